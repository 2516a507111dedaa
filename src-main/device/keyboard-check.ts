import { abortableSleep } from './abort';
import { sameApp, type ExpectKeyboard, type KeyboardElsewhereRefusal } from './contract';
import type { Point } from './coords';
import { activeWindow, getWindow, transientParents, windowAt, type DesktopWindow } from './windows';

/** How long a click may take to give the keyboard to the window clicked, before input goes elsewhere. */
export const FOCUS_SETTLE_MS = 500;
const SETTLE_POLL_MS = 20;

/** Input stopped by the keyboard check (EXPECT_KEYBOARD_META), part-way or before any of it. */
export class KeyboardElsewhereError extends Error {
  override name = 'KeyboardElsewhereError';
  constructor(readonly refusal: KeyboardElsewhereRefusal) {
    super(`the input would go to ${refusal.window ? `"${refusal.window.title}"` : 'no window the agent may use'}, not to ${refusal.expected}`);
  }
}

/**
 * One call's keyboard check: where its input goes, against the window it was judged for. That window is
 * looked up once; after that each check is one or two X requests.
 */
export class KeyboardCheck {
  private expectedWindow: Promise<DesktopWindow | null> | null = null;

  constructor(
    private readonly expected: ExpectKeyboard,
    /** Deskhand's own windows: never a target, whatever program they belong to. */
    private readonly isProtected: (window: DesktopWindow) => boolean,
  ) {}

  /**
   * Throws KeyboardElsewhereError unless the input goes to the expected program: to the topmost window
   * at `at` (a point about to be clicked), else to the active window. `typed`: characters already sent.
   */
  async ensure(at: Point | null, typed = 0): Promise<void> {
    const target = at ? await windowAt(at) : await activeWindow();
    if (target && (await this.accepts(target))) return;
    const window = target && !this.isProtected(target) ? { title: target.title, app: target.app } : null;
    throw new KeyboardElsewhereError({ expected: this.expected.app, window, typed });
  }

  /**
   * After a click meant to give the expected window the keyboard: waits up to FOCUS_SETTLE_MS for the
   * window manager to make it (or a window of its program) the active one, then checks a last time.
   */
  async settle(signal?: AbortSignal): Promise<void> {
    const deadline = performance.now() + FOCUS_SETTLE_MS;
    while (performance.now() < deadline) {
      const active = await activeWindow();
      if (active && (await this.accepts(active))) return;
      await abortableSleep(SETTLE_POLL_MS, signal);
    }
    await this.ensure(null);
  }

  private async accepts(target: DesktopWindow): Promise<boolean> {
    if (this.isProtected(target)) return false;
    if (this.expected.window && target.id === this.expected.window) return true;
    const expected = await (this.expectedWindow ??= this.lookUpExpected());
    // The window the host named has closed: there is nothing left to tell its program by but a name
    // any window can take, so the input is held.
    if (this.expected.window && !expected) return false;
    // The same process: the window itself, its dialogs, its other windows. Only without a pid on either
    // side does the application's name decide.
    if (expected && expected.pid !== null && target.pid !== null) {
      return target.pid === expected.pid || (await this.isDialogOf(target, expected));
    }
    return sameApp(this.expected.app, target.app);
  }

  /** A dialog another process opened for the expected window (the desktop portal's file chooser). */
  private async isDialogOf(target: DesktopWindow, expected: DesktopWindow): Promise<boolean> {
    return (await transientParents(target.id)).includes(expected.id);
  }

  private async lookUpExpected(): Promise<DesktopWindow | null> {
    if (!this.expected.window) return null;
    try {
      return await getWindow(this.expected.window);
    } catch {
      return null; // closed since
    }
  }
}
