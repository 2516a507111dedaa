import { useState } from 'react';
import type { ScreenshotRef } from '../../../src-main/protocol';
import { useBridge } from '../store';
import { TRAJECTORY_CLASSES } from './trajectoryStyles';

const THUMBNAIL_WIDTH = 160;

/** A thumbnail sized from the stored dimensions, so rows do not jump when it loads. Loaded by URL, lazily. */
export function StepThumbnail({ screenshot, stepNumber }: { screenshot: ScreenshotRef; stepNumber: number }) {
  const bridge = useBridge();
  const [failed, setFailed] = useState(false);
  const height = Math.round((THUMBNAIL_WIDTH * screenshot.height) / screenshot.width);
  if (failed) {
    return (
      <div className={TRAJECTORY_CLASSES.thumbnailMissing} style={{ width: THUMBNAIL_WIDTH, height }}>
        <span className={TRAJECTORY_CLASSES.thumbnailMissingText}>Screenshot unavailable</span>
      </div>
    );
  }
  return (
    <img
      className={TRAJECTORY_CLASSES.thumbnail}
      src={bridge.screenshotUrl(screenshot)}
      alt={`Screenshot of step ${stepNumber}`}
      width={THUMBNAIL_WIDTH}
      height={height}
      loading="lazy"
      decoding="async"
      onError={() => setFailed(true)}
    />
  );
}
