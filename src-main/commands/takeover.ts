import { clampToScreen, PointerReport, ScreenSize } from '../device/contract';

/**
 * Takeover detection: if the pointer is not where the agent left it, the user has
 * taken the mouse, and the run pauses until asked to resume.
 *
 * Pure bookkeeping; the host feeds it pointer positions in logical screen coordinates. Every device
 * tool result carries `structuredContent.pointer` (PointerReport: where the pointer is after the tool
 * ran), so no extra call is needed:
 *
 *   const guard = new TakeoverGuard();
 *   // each step: the pointer from the step's screenshot result (or the `pointer` tool), with the screen's size
 *   const seen = guard.check(pointerFromResult(screenshot.structuredContent), screenSizeFromResult(screenshot.structuredContent));
 *   // the action itself: the device refuses it if the pointer left guard.lastAgentPointer
 *   // (EXPECT_POINTER_META), and reports where it is now, which goes to check() as well
 *   if (seen.takenOver) pause(seen.message);
 *   // after each action: where the agent left it
 *   guard.agentLeftPointerAt(pointerFromResult(result.structuredContent));
 *   // when the user asks to resume
 *   guard.resume(pointerFromResult(pointerTool.structuredContent));
 *
 * Once a takeover is seen it is latched: check() keeps saying so until resume(), so a user who moves
 * the mouse back to the same spot does not silently hand control back.
 *
 * A screen that shrinks under the pointer has the X server move it inside (clampToScreen): given the
 * screen's size (`structuredContent.screenSize`, when a result has it), check() takes a pointer found
 * there for the agent's, and that point becomes where the agent left it.
 */

export interface ScreenPoint {
  x: number;
  y: number;
}

export interface TakeoverCheck {
  takenOver: boolean;
  /** Where the agent left the pointer (null before its first action or right after resume without a point). */
  expected: ScreenPoint | null;
  actual: ScreenPoint | null;
  /** Distance between them in screen pixels (0 when either is unknown). */
  distance: number;
  /** For the trajectory and the pause notice; '' when not taken over. */
  message: string;
}

export interface TakeoverOptions {
  /** Movement up to this many pixels is not a takeover (rounding, HiDPI). Default 4. */
  tolerancePx?: number;
}

export const DEFAULT_TAKEOVER_TOLERANCE_PX = 4;

/** The pointer's screen position from a device tool result's structuredContent, or null if absent. */
export function pointerFromResult(structuredContent: unknown): ScreenPoint | null {
  if (!structuredContent || typeof structuredContent !== 'object') return null;
  const parsed = PointerReport.safeParse((structuredContent as { pointer?: unknown }).pointer);
  return parsed.success ? parsed.data.screen : null;
}

/** The screen's size from a device tool result's structuredContent, or null when it does not say it. */
export function screenSizeFromResult(structuredContent: unknown): ScreenSize | null {
  if (!structuredContent || typeof structuredContent !== 'object') return null;
  const parsed = ScreenSize.safeParse((structuredContent as { screenSize?: unknown }).screenSize);
  return parsed.success ? parsed.data : null;
}

const distanceBetween = (a: ScreenPoint, b: ScreenPoint): number => Math.hypot(a.x - b.x, a.y - b.y);

export class TakeoverGuard {
  /** Movement up to this many screen pixels is not a takeover. */
  readonly tolerance: number;
  private expected: ScreenPoint | null = null;
  private taken: TakeoverCheck | null = null;
  private resumedTakeovers = 0;

  constructor(options: TakeoverOptions = {}) {
    this.tolerance = options.tolerancePx ?? DEFAULT_TAKEOVER_TOLERANCE_PX;
    if (!(this.tolerance >= 0)) throw new Error('tolerancePx must be 0 or more');
  }

  /** Whether a takeover was seen and not yet resumed from. */
  get paused(): boolean {
    return this.taken !== null;
  }

  /** Where the agent last left the pointer. */
  get lastAgentPointer(): ScreenPoint | null {
    return this.expected;
  }

  /** Record where the pointer is after an agent action (null: unknown, e.g. the tool failed). */
  agentLeftPointerAt(point: ScreenPoint | null): void {
    if (point && !this.taken) this.expected = { x: point.x, y: point.y };
  }

  /**
   * Compares the pointer now with where the agent left it; given the screen's size now, with where that
   * point is on the screen (clampToScreen), which then becomes the agent's point.
   */
  check(actual: ScreenPoint | null, screenSize: ScreenSize | null = null): TakeoverCheck {
    if (this.taken) return { ...this.taken, actual };
    const expected = this.expected;
    if (!expected || !actual) return { takenOver: false, expected, actual, distance: 0, message: '' };
    const onScreen = screenSize ? clampToScreen(expected, screenSize) : expected;
    const fromOnScreen = distanceBetween(actual, onScreen);
    if (fromOnScreen <= this.tolerance) {
      this.expected = onScreen;
      return { takenOver: false, expected: onScreen, actual, distance: fromOnScreen, message: '' };
    }
    const result: TakeoverCheck = {
      takenOver: true,
      expected,
      actual,
      distance: distanceBetween(actual, expected),
      message:
        `The pointer moved from (${expected.x}, ${expected.y}), where the agent left it, to (${actual.x}, ${actual.y}): ` +
        'you have taken the mouse, so the run is paused. Resume it when you are done.',
    };
    this.taken = result;
    return result;
  }

  /** How many times control was handed back after a takeover: the user may have changed focus meanwhile. */
  get takeovers(): number {
    return this.resumedTakeovers;
  }

  /** Hands control back to the agent; `current` (if known) becomes the new reference point. */
  resume(current: ScreenPoint | null = null): void {
    if (this.taken) this.resumedTakeovers++;
    this.taken = null;
    this.expected = current ? { x: current.x, y: current.y } : null;
  }
}
