import { Box, ButtonBase, Dialog, Typography } from '@mui/material';
import { useState } from 'react';
import type { ScreenshotRef } from '../../../src-main/protocol';
import { useBridge } from '../store';

const THUMBNAIL_WIDTH = 160;

/** A thumbnail sized from the stored dimensions (so rows do not jump when it loads); a click shows it full size. */
export function StepScreenshot({ screenshot, stepIndex }: { screenshot: ScreenshotRef; stepIndex: number }) {
  const bridge = useBridge();
  const [enlarged, setEnlarged] = useState(false);
  const [failed, setFailed] = useState(false);
  const url = bridge.screenshotUrl(screenshot);
  const thumbnailHeight = Math.round((THUMBNAIL_WIDTH * screenshot.height) / screenshot.width);
  const alt = `Screenshot of step ${stepIndex}`;

  if (failed) {
    return (
      <Box
        sx={{ width: THUMBNAIL_WIDTH, height: thumbnailHeight, flexShrink: 0, display: 'grid', placeItems: 'center', bgcolor: 'action.hover' }}
      >
        <Typography variant="caption" color="text.secondary">
          Screenshot unavailable
        </Typography>
      </Box>
    );
  }

  return (
    <>
      <ButtonBase
        onClick={() => setEnlarged(true)}
        aria-label={`Enlarge screenshot of step ${stepIndex}`}
        sx={{ flexShrink: 0, alignSelf: 'flex-start', borderRadius: 1, overflow: 'hidden', border: 1, borderColor: 'divider' }}
      >
        <img
          src={url}
          alt={alt}
          width={THUMBNAIL_WIDTH}
          height={thumbnailHeight}
          loading="lazy"
          decoding="async"
          onError={() => setFailed(true)}
          style={{ display: 'block', objectFit: 'contain' }}
        />
      </ButtonBase>
      <Dialog open={enlarged} onClose={() => setEnlarged(false)} maxWidth={false} aria-label={alt}>
        <img
          src={url}
          alt={`${alt}, full size`}
          style={{ display: 'block', maxWidth: '90vw', maxHeight: '90vh', objectFit: 'contain' }}
          onClick={() => setEnlarged(false)}
        />
      </Dialog>
    </>
  );
}
