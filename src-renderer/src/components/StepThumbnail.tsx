import { useState } from 'react';
import type { ScreenshotRef } from '../../../src-main/protocol';
import { TRAJECTORY_CLASSES } from './trajectoryStyles';
import { useScreenshotUrl } from './useScreenshotUrl';

const THUMBNAIL_WIDTH = 160;

/** A thumbnail sized from the stored dimensions, so rows do not jump when it loads. */
export function StepThumbnail({ screenshot, stepNumber }: { screenshot: ScreenshotRef; stepNumber: number }) {
  const { url, failed } = useScreenshotUrl(screenshot);
  const [broken, setBroken] = useState(false);
  const height = Math.round((THUMBNAIL_WIDTH * screenshot.height) / screenshot.width);
  if (failed || broken || !url) {
    return (
      <div className={TRAJECTORY_CLASSES.thumbnailMissing} style={{ width: THUMBNAIL_WIDTH, height }}>
        {(failed || broken) && <span className={TRAJECTORY_CLASSES.thumbnailMissingText}>Screenshot unavailable</span>}
      </div>
    );
  }
  return (
    <img
      className={TRAJECTORY_CLASSES.thumbnail}
      src={url}
      alt={`Screenshot of step ${stepNumber}`}
      width={THUMBNAIL_WIDTH}
      height={height}
      decoding="async"
      onError={() => setBroken(true)}
    />
  );
}
