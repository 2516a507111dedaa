import { Box, Typography } from '@mui/material';
import { useState } from 'react';
import type { ScreenshotRef } from '../../../src-main/protocol';
import { useBridge } from '../store';

const THUMBNAIL_WIDTH = 160;

/** A thumbnail sized from the stored dimensions, so rows do not jump when it loads. Loaded by URL, lazily. */
export function StepThumbnail({ screenshot, stepNumber }: { screenshot: ScreenshotRef; stepNumber: number }) {
  const bridge = useBridge();
  const [failed, setFailed] = useState(false);
  const height = Math.round((THUMBNAIL_WIDTH * screenshot.height) / screenshot.width);
  if (failed) {
    return (
      <Box sx={{ width: THUMBNAIL_WIDTH, height, flexShrink: 0, display: 'grid', placeItems: 'center', bgcolor: 'action.hover', borderRadius: 1 }}>
        <Typography variant="caption" color="text.secondary">
          Screenshot unavailable
        </Typography>
      </Box>
    );
  }
  return (
    <Box
      component="img"
      src={bridge.screenshotUrl(screenshot)}
      alt={`Screenshot of step ${stepNumber}`}
      width={THUMBNAIL_WIDTH}
      height={height}
      loading="lazy"
      decoding="async"
      onError={() => setFailed(true)}
      sx={{ display: 'block', flexShrink: 0, alignSelf: 'flex-start', objectFit: 'contain', borderRadius: 1, border: 1, borderColor: 'divider' }}
    />
  );
}
