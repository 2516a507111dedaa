/**
 * Mapping between pixels of the last screenshot the model was sent and logical screen coordinates
 * (the space mouse input uses). Pure: no I/O, no native code.
 *
 * A screenshot covers `region` (logical screen coordinates; may start at negative x/y on multi-monitor
 * setups) and was encoded as an image of `imageWidth` x `imageHeight` pixels, after any crop and
 * downscale. HiDPI needs no special case: the region is logical, the image size is what the model saw.
 */

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Point {
  x: number;
  y: number;
}

export interface ScreenshotGeometry {
  region: Rect;
  imageWidth: number;
  imageHeight: number;
}

export class CoordinateError extends Error {
  override name = 'CoordinateError';
}

/** Before any screenshot: image pixels are screen pixels over the full screen. */
export function identityGeometry(screenWidth: number, screenHeight: number): ScreenshotGeometry {
  return {
    region: { x: 0, y: 0, width: screenWidth, height: screenHeight },
    imageWidth: screenWidth,
    imageHeight: screenHeight,
  };
}

export function scaleOf(geometry: ScreenshotGeometry): { sx: number; sy: number } {
  return {
    sx: geometry.region.width / geometry.imageWidth,
    sy: geometry.region.height / geometry.imageHeight,
  };
}

/**
 * Image pixel -> logical screen point (integers). Valid input is 0 <= x < imageWidth and
 * 0 <= y < imageHeight; anything else is a CoordinateError naming the valid range.
 */
export function imageToScreen(geometry: ScreenshotGeometry, point: Point): Point {
  const { imageWidth, imageHeight, region } = geometry;
  const inside =
    Number.isFinite(point.x) &&
    Number.isFinite(point.y) &&
    point.x >= 0 &&
    point.y >= 0 &&
    point.x < imageWidth &&
    point.y < imageHeight;
  if (!inside) {
    throw new CoordinateError(
      `coordinates (${point.x}, ${point.y}) are outside the last screenshot, which is ${imageWidth}x${imageHeight} ` +
        `pixels: x must be in 0..${imageWidth - 1} and y in 0..${imageHeight - 1}`,
    );
  }
  const { sx, sy } = scaleOf(geometry);
  // Clamp to the region's last pixel: x = imageWidth - 0.4 would otherwise round onto the next monitor.
  const x = Math.min(region.x + Math.round(point.x * sx), region.x + Math.ceil(region.width) - 1);
  const y = Math.min(region.y + Math.round(point.y * sy), region.y + Math.ceil(region.height) - 1);
  return { x, y };
}

/** Logical screen point -> image pixel, or null when the point is outside the screenshot's region. */
export function screenToImage(geometry: ScreenshotGeometry, point: Point): Point | null {
  const { region } = geometry;
  const dx = point.x - region.x;
  const dy = point.y - region.y;
  if (dx < 0 || dy < 0 || dx >= region.width || dy >= region.height) return null;
  const { sx, sy } = scaleOf(geometry);
  return {
    x: Math.min(Math.round(dx / sx), geometry.imageWidth - 1),
    y: Math.min(Math.round(dy / sy), geometry.imageHeight - 1),
  };
}

/** Size of an image whose long edge is at most maxEdge, keeping the aspect ratio; never upscales. */
export function fitLongEdge(width: number, height: number, maxEdge: number): { width: number; height: number } {
  const scale = Math.min(1, maxEdge / Math.max(width, height));
  return {
    width: Math.max(1, Math.round(width * scale)),
    height: Math.max(1, Math.round(height * scale)),
  };
}

/** Whether `point` is one of `rect`'s pixels: x..x+width-1 across, y..y+height-1 down. */
export function containsPoint(rect: Rect, point: Point): boolean {
  return point.x >= rect.x && point.y >= rect.y && point.x < rect.x + rect.width && point.y < rect.y + rect.height;
}

/** Intersection of two rectangles, or null when they do not overlap. */
export function intersect(a: Rect, b: Rect): Rect | null {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.width, b.x + b.width);
  const bottom = Math.min(a.y + a.height, b.y + b.height);
  if (right <= x || bottom <= y) return null;
  return { x, y, width: right - x, height: bottom - y };
}

/** What a capture of `bounds` (the whole screen when null) covers on a screen of `screen` size; null when none of it shows. */
export function capturedArea(bounds: Rect | null, screen: { width: number; height: number }): Rect | null {
  const full: Rect = { x: 0, y: 0, width: screen.width, height: screen.height };
  return bounds ? intersect(bounds, full) : full;
}

/** The parts of `a` that `b` does not cover: up to four rectangles (above, below, left, right of b). */
export function subtract(a: Rect, b: Rect): Rect[] {
  const overlap = intersect(a, b);
  if (!overlap) return [a];
  const parts: Rect[] = [];
  const aBottom = a.y + a.height;
  const oBottom = overlap.y + overlap.height;
  if (overlap.y > a.y) parts.push({ x: a.x, y: a.y, width: a.width, height: overlap.y - a.y });
  if (oBottom < aBottom) parts.push({ x: a.x, y: oBottom, width: a.width, height: aBottom - oBottom });
  if (overlap.x > a.x) parts.push({ x: a.x, y: overlap.y, width: overlap.x - a.x, height: overlap.height });
  const oRight = overlap.x + overlap.width;
  if (oRight < a.x + a.width) parts.push({ x: oRight, y: overlap.y, width: a.x + a.width - oRight, height: overlap.height });
  return parts;
}

/**
 * What shows of each window `hidden` picks out, given every window topmost first: its bounds less those
 * of every shown window above it. Minimised windows neither show nor cover anything.
 */
export function visibleParts<W extends { bounds: Rect; minimized: boolean }>(windows: readonly W[], hidden: (window: W) => boolean): Rect[] {
  const parts: Rect[] = [];
  const above: Rect[] = [];
  for (const window of windows) {
    if (window.minimized) continue;
    if (hidden(window)) {
      let shown = [window.bounds];
      for (const cover of above) shown = shown.flatMap((part) => subtract(part, cover));
      parts.push(...shown);
    }
    above.push(window.bounds);
  }
  return parts;
}
