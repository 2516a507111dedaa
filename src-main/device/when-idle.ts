/**
 * Work for the device's idle time (while the agent waits for the model): it starts once no tool call
 * has run for `idleMs`, and a call that starts meanwhile asks it to stop at its next break (`busy`).
 */
export class WhenIdle {
  private timer: NodeJS.Timeout | null = null;
  private calls = 0;

  constructor(
    private readonly idleMs: number,
    private readonly work: (busy: () => boolean) => Promise<unknown>,
    private readonly onError: (error: unknown) => void,
  ) {}

  callStarted(): void {
    this.calls++;
    this.disarm();
  }

  callEnded(): void {
    this.calls = Math.max(0, this.calls - 1);
    if (this.calls > 0) return;
    this.disarm();
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.calls === 0) this.work(() => this.calls > 0).catch(this.onError);
    }, this.idleMs);
    // Idle work never keeps the process alive.
    this.timer.unref();
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
