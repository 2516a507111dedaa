/**
 * The main window's size and place, kept in `window-state.json` in userData and checked with zod when
 * read back (a hand-edited or truncated file falls back to defaults). A saved place that is no longer
 * on any display (a monitor was unplugged) is dropped, keeping the size.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { readValidatedJson, writeJsonAtomic } from '../common/json-file';

const Coordinate = z.number().int().min(-100_000).max(100_000);
const Extent = z.number().int().min(200).max(20_000);

export const WindowState = z
  .object({
    x: Coordinate.optional(),
    y: Coordinate.optional(),
    width: Extent,
    height: Extent,
    maximized: z.boolean().default(false),
  })
  .strict();
export type WindowState = z.infer<typeof WindowState>;

export const DEFAULT_WINDOW_STATE: WindowState = { width: 1200, height: 820, maximized: false };
export const WINDOW_STATE_FILE = 'window-state.json';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** How much of `a` lies inside `b`, in pixels. */
function overlap(a: Rect, b: Rect): number {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return width > 0 && height > 0 ? width * height : 0;
}

/**
 * Keeps a saved state usable on the current displays: the size is capped to the largest work area, and
 * the position is kept only if a good part of the window's title area would be on some display.
 */
export function fitToDisplays(state: WindowState, workAreas: readonly Rect[]): WindowState {
  if (workAreas.length === 0) return state;
  const maxWidth = Math.max(...workAreas.map((area) => area.width));
  const maxHeight = Math.max(...workAreas.map((area) => area.height));
  const width = Math.min(state.width, maxWidth);
  const height = Math.min(state.height, maxHeight);
  const fitted: WindowState = { width, height, maximized: state.maximized };
  if (state.x === undefined || state.y === undefined) return fitted;
  // The top strip (where the title bar is) must be reachable with the mouse.
  const titleStrip: Rect = { x: state.x, y: state.y, width, height: Math.min(40, height) };
  const visible = Math.max(...workAreas.map((area) => overlap(titleStrip, area)));
  return visible >= titleStrip.width * titleStrip.height * 0.5 ? { ...fitted, x: state.x, y: state.y } : fitted;
}

export class WindowStateFile {
  readonly path: string;
  readonly loadProblem: string | null;
  private readonly initial: WindowState;

  constructor(dir: string) {
    this.path = join(dir, WINDOW_STATE_FILE);
    const read = readValidatedJson(this.path, WindowState);
    this.loadProblem = read.problem;
    this.initial = read.value ?? DEFAULT_WINDOW_STATE;
  }

  load(workAreas: readonly Rect[]): WindowState {
    return fitToDisplays(this.initial, workAreas);
  }

  save(state: WindowState): void {
    const parsed = WindowState.safeParse(state);
    if (parsed.success) writeJsonAtomic(this.path, parsed.data, 0o644);
  }
}
