import { sleep } from '../common/child-signal';

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

/** Waits `ms` (no timer at all for 0), or rejects with abortError once `signal` is aborted. */
export async function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  throwIfAborted(signal);
  if (ms <= 0) return;
  await sleep(ms, signal).catch(() => throwIfAborted(signal));
}
