import type { ScreenshotRef } from '../../../src-main/protocol';

/** `<session>/<file>`, each part encoded, as both hosts serve screenshots (below app://screenshots/ or /screenshots/). */
export function screenshotPath(ref: ScreenshotRef): string {
  return `${encodeURIComponent(ref.sessionId)}/${encodeURIComponent(ref.file)}`;
}
