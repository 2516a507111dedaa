/**
 * Whether pixels of the last screenshot still point at what it showed. Coordinates are mapped through
 * the area the screenshot covered; if the screen changed size, or the window (or monitor) it showed
 * moved or changed size, since then, the same pixel is another place on screen now. Pure: the caller
 * reads the screen and the window as they are now.
 */
import { capturedArea, type Rect, type ScreenshotGeometry } from './coords';

export interface Size {
  width: number;
  height: number;
}

/** What a screenshot was asked to show. */
export type ShotSource = { kind: 'screen' } | { kind: 'window'; id: string } | { kind: 'display'; index: number };

/** A screenshot's mapping, and what it needs to be checked against the screen later. */
export interface TakenGeometry extends ScreenshotGeometry {
  source: ShotSource;
  /** The whole screen's logical size when it was taken. */
  screen: Size;
}

/** The screen (or the source's bounds) as it is at action time; `bounds` null when the window is gone. */
export interface ScreenNow {
  screen: Size;
  /** The window's or monitor's bounds now; ignored for a whole-screen screenshot. */
  bounds: Rect | null;
}

const size = (s: Size): string => `${s.width}x${s.height}`;
const rect = (r: Rect): string => `${r.width}x${r.height} at (${r.x}, ${r.y})`;
const sameRect = (a: Rect, b: Rect): boolean => a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;

/**
 * Why coordinates of a screenshot taken with `taken` no longer point at what it showed, in words for the
 * agent; null when they still do.
 */
export function screenChange(taken: TakenGeometry, now: ScreenNow): string | null {
  const screenResized = taken.screen.width !== now.screen.width || taken.screen.height !== now.screen.height;
  if (taken.source.kind === 'screen') {
    return screenResized ? `the screen changed size since the last screenshot (${size(taken.screen)} then, ${size(now.screen)} now)` : null;
  }
  const what = taken.source.kind === 'window' ? `window ${taken.source.id}` : `display ${taken.source.index}`;
  if (!now.bounds) return `${what}, which the last screenshot showed, is gone`;
  const area = capturedArea(now.bounds, now.screen);
  if (area && sameRect(area, taken.region)) return null;
  if (screenResized) {
    return `the screen changed size since the last screenshot (${size(taken.screen)} then, ${size(now.screen)} now), and with it the part of ${what} it showed`;
  }
  return `${what} moved or changed size since the last screenshot (${rect(taken.region)} then, ${area ? rect(area) : 'off screen'} now)`;
}

/**
 * How a refusal of an action at a point ends. Deskhand's agents get a new screenshot with their next
 * step (they cannot take one themselves); another MCP client takes one.
 */
export const LOOK_AGAIN = 'Look at a new screenshot before acting at a point.';

/** The refusal the agent reads: what changed, and to look again before acting. */
export function screenChangedMessage(tool: string, change: string): string {
  return `${tool} not run: ${change}, so its coordinates no longer point at what it showed. ${LOOK_AGAIN}`;
}
