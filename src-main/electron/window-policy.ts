/**
 * Keeps the app's own window out of the agent's screenshots and never takes focus from the program the
 * agent drives. Pure logic over a window-like object (Electron's BrowserWindow fits).
 */
import type { WindowWhileActing } from './desktop-settings';

export interface PolicyWindow {
  isDestroyed(): boolean;
  isMinimized(): boolean;
  isVisible(): boolean;
  minimize(): void;
  hide(): void;
  /** Shows (and un-minimises) the window without activating it. */
  showInactive(): void;
  setContentProtection(enable: boolean): void;
}

export type WindowPolicy = Exclude<WindowWhileActing, 'auto'>;

export class ActingWindowController {
  /** What we did to the window when the agent started acting, so we undo only that. */
  private moved: 'minimized' | 'hidden' | null = null;
  private acting = false;

  constructor(
    private readonly window: PolicyWindow,
    private policy: WindowPolicy,
  ) {
    this.applyProtection();
  }

  get currentPolicy(): WindowPolicy {
    return this.policy;
  }

  setPolicy(policy: WindowPolicy): void {
    if (policy === this.policy) return;
    this.restore();
    this.policy = policy;
    this.applyProtection();
    if (this.acting) this.update(true);
  }

  /** Called when the agent starts or stops acting (a session is `running`, or none is). */
  update(acting: boolean): void {
    this.acting = acting;
    if (this.window.isDestroyed()) return;
    if (!acting) {
      this.restore();
      return;
    }
    if (this.moved || !this.window.isVisible() || this.window.isMinimized()) return;
    if (this.policy === 'minimize') {
      this.window.minimize();
      this.moved = 'minimized';
    } else if (this.policy === 'hide') {
      this.window.hide();
      this.moved = 'hidden';
    }
  }

  /** Brings the window back without focus (the agent waits for the user, or stopped). */
  private restore(): void {
    if (!this.moved) return;
    this.moved = null;
    if (!this.window.isDestroyed()) this.window.showInactive();
  }

  private applyProtection(): void {
    if (!this.window.isDestroyed()) this.window.setContentProtection(this.policy === 'protect');
  }
}
