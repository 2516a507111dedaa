/**
 * Cancellation inside the device client. Every action gets an AbortSignal (queue.ts: the request's
 * cancel or the tool's timeout aborts it); actions made of steps check it between them, so Stop ends
 * typing, a drag or a scroll at the next step instead of at its end.
 */

export class CancelledError extends Error {
  override name = 'CancelledError';
}

/** What an aborted step throws: the abort's reason when it is an Error. */
export function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new CancelledError('cancelled');
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError(signal);
}

/** `work`'s result, or a rejection as soon as `signal` is aborted (the work goes on, unawaited). */
export function unlessAborted<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => reject(abortError(signal));
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** Waits `ms` (no timer at all for 0), or rejects once `signal` is aborted. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    if (ms <= 0) return resolve();
    if (!signal) {
      setTimeout(resolve, ms);
      return;
    }
    const cancel = (): void => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', cancel);
      resolve();
    }, ms);
    signal.addEventListener('abort', cancel, { once: true });
  });
}
