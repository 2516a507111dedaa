/** Holds a run between steps while paused (the Pause button, or the user taking the mouse). */
export class PauseGate {
  private waiting: Array<() => void> = [];
  private reason: string | null = null;

  get paused(): boolean {
    return this.reason !== null;
  }

  pause(reason: string): boolean {
    if (this.reason !== null) return false;
    this.reason = reason;
    return true;
  }

  resume(): boolean {
    if (this.reason === null) return false;
    this.reason = null;
    const waiting = this.waiting;
    this.waiting = [];
    for (const wake of waiting) wake();
    return true;
  }

  /** Resolves at once when not paused; otherwise when resumed or aborted. */
  wait(signal: AbortSignal): Promise<void> {
    if (this.reason === null || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      signal.addEventListener('abort', done, { once: true });
      this.waiting.push(done);
    });
  }
}
