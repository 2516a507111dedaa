import { CancelledError } from './abort';

export class ToolTimeoutError extends Error {
  override name = 'ToolTimeoutError';
}

/**
 * How long the queue waits for an aborted task to stop before the next one starts anyway. Tools check
 * their signal between short steps, so this only matters for one stuck in a native call.
 */
export const ABORT_GRACE_MS = 2_000;

export interface QueuedCall {
  timeoutMs: number;
  /** The tool's name, for messages. */
  label: string;
  /** The request's own signal: aborted when the caller cancels it. */
  signal?: AbortSignal;
}

/**
 * Runs tasks one at a time: input from two calls must never interleave, and a click must be mapped
 * with the geometry of the screenshot that preceded it. Each task gets a signal that its request's
 * cancel and its timeout abort; a timed-out or cancelled task keeps the queue until it has stopped
 * (at most ABORT_GRACE_MS), so the next action cannot run alongside it.
 */
export class SerialQueue {
  private tail: Promise<void> = Promise.resolve();

  run<T>(task: (signal: AbortSignal) => Promise<T>, call: QueuedCall): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    return previous.then(() => runOne(task, call, release));
  }
}

function runOne<T>(task: (signal: AbortSignal) => Promise<T>, { timeoutMs, label, signal }: QueuedCall, release: () => void): Promise<T> {
  if (signal?.aborted) {
    release();
    return Promise.reject(new CancelledError('cancelled before it ran'));
  }
  const controller = new AbortController();
  const cancel = (): void => controller.abort(new CancelledError('cancelled while it ran'));
  signal?.addEventListener('abort', cancel, { once: true });
  let grace: NodeJS.Timeout | undefined;
  controller.signal.addEventListener('abort', () => (grace = setTimeout(release, ABORT_GRACE_MS)), { once: true });
  const stopped = (): void => {
    signal?.removeEventListener('abort', cancel);
    clearTimeout(grace);
    release();
  };
  const running = Promise.resolve().then(() => task(controller.signal));
  running.then(stopped, stopped);
  return withTimeout(running, timeoutMs, label, (error) => controller.abort(error));
}

/** Rejects with a ToolTimeoutError (after telling `onTimeout`) when `promise` takes longer than `timeoutMs`. */
export function withTimeout<T>(
  promise: Promise<T>,
  timeoutMs: number,
  label: string,
  onTimeout?: (error: ToolTimeoutError) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      const budget = timeoutMs >= 1000 ? `${(timeoutMs / 1000).toFixed(1)} s` : `${timeoutMs} ms`;
      const error = new ToolTimeoutError(`${label} timed out after ${budget}`);
      onTimeout?.(error);
      reject(error);
    }, timeoutMs);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
