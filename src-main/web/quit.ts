import { constants } from 'node:os';

/** How long closing may take before browser mode exits anyway (an MCP server that never exits holds it). */
export const CLOSE_TIMEOUT_MS = 10_000;

/** What quitting needs; main passes the real process, tests their own. */
export interface QuitOptions {
  /** Closes the server and the host. */
  close(): Promise<void>;
  exit(code: number): void;
  log(message: string): void;
}

/**
 * The handler for SIGINT, SIGTERM and SIGHUP: closes everything, then exits 0; exits 1 when closing fails or
 * takes longer than CLOSE_TIMEOUT_MS. A second signal while closing exits at once, as a shell reports
 * an interrupted command (130 for Ctrl+C).
 */
export function quitOnSignal(options: QuitOptions): (signal: NodeJS.Signals) => void {
  let closing = false;
  let exited = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const exit = (code: number, message?: string): void => {
    if (exited) return;
    exited = true;
    clearTimeout(timer);
    if (message) options.log(message);
    options.exit(code);
  };
  return (signal) => {
    if (closing) {
      exit(128 + constants.signals[signal], '[deskhand] quitting without waiting for closing to finish');
      return;
    }
    closing = true;
    options.log(signal === 'SIGINT' ? '[deskhand] closing (Ctrl+C again quits at once)' : `[deskhand] closing (${signal})`);
    timer = setTimeout(() => exit(1, `[deskhand] closing took longer than ${CLOSE_TIMEOUT_MS / 1000} s: quitting anyway`), CLOSE_TIMEOUT_MS);
    options.close().then(
      () => exit(0),
      (error: unknown) => exit(1, `[deskhand] closing failed: ${error instanceof Error ? error.message : String(error)}`),
    );
  };
}
