import { createInterface, type Interface } from 'node:readline';
import type { HostEvent } from '../protocol';

export interface PauseHandlerOptions {
  /** Whether a person can answer on the terminal (stdin is one). */
  interactive: boolean;
  input: NodeJS.ReadableStream;
  /** Where the notices go (stderr: stdout is the run's JSON lines). */
  write(text: string): void;
  resume(sessionId: string): Promise<void>;
  stop(): void;
}

/**
 * A run paused without the UI (the user took the mouse, or the data folder's disk ran short): on a
 * terminal, Enter resumes it; without one nobody could, so the run is stopped rather than left waiting.
 */
export class CliPauses {
  private prompt: Interface | null = null;
  private waitingFor: string | null = null;
  /** The input ended (Ctrl+D): no Enter can come any more. */
  private inputEnded = false;
  /** Set when a pause stopped the run: nobody could have resumed it. */
  stoppedForPause = false;

  constructor(private readonly options: PauseHandlerOptions) {}

  onEvent(event: HostEvent): void {
    if (event.kind !== 'status.changed' || event.status !== 'paused') return;
    const { options } = this;
    if (!options.interactive || this.inputEnded) {
      this.stopForPause(`the run paused (${event.detail}), and with no terminal to resume it from it is stopped`);
      return;
    }
    options.write(`deskhand: paused: ${event.detail}.\n`);
    if (this.waitingFor) return;
    this.waitingFor = event.sessionId;
    options.write('deskhand: press Enter to resume, Ctrl+C to stop.\n');
    if (!this.prompt) {
      this.prompt = createInterface({ input: options.input, terminal: false });
      this.prompt.once('close', () => {
        this.inputEnded = true;
        if (this.waitingFor) this.stopForPause('the input was closed, so nothing can resume the run: it is stopped');
        this.waitingFor = null;
      });
    }
    this.prompt.once('line', () => {
      const sessionId = this.waitingFor;
      this.waitingFor = null;
      if (!sessionId) return;
      options.resume(sessionId).catch((error: unknown) => options.write(`deskhand: could not resume: ${error instanceof Error ? error.message : String(error)}\n`));
    });
  }

  close(): void {
    // Closed by us as the run ends: nothing waits for a resume any more.
    this.waitingFor = null;
    this.prompt?.close();
    this.prompt = null;
  }

  private stopForPause(why: string): void {
    if (this.stoppedForPause) return;
    this.stoppedForPause = true;
    this.options.write(`deskhand: ${why}.\n`);
    this.options.stop();
  }
}
