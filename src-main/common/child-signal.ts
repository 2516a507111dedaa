/**
 * A signal that aborts when `parent` does, for one request, released when the request ends; `abort`
 * ends just this request (a deadline).
 *
 * Libraries add an abort listener per request to the signal they are given and do not always remove
 * it, so passing a round's long-lived signal piles listeners up; `AbortSignal.any()` avoids that but
 * leaks every dependent signal (and what its listeners hold) on Node 20 until the parent aborts:
 * about 150 KB a step, measured by the memory benchmark. One listener on the parent, removed in
 * `release()`, has neither problem.
 */
export function childSignal(parent: AbortSignal | undefined): { signal: AbortSignal; abort(reason?: unknown): void; release(): void } {
  const controller = new AbortController();
  if (!parent) return { signal: controller.signal, abort: (reason) => controller.abort(reason), release: () => undefined };
  const onAbort = (): void => controller.abort(parent.reason);
  if (parent.aborted) onAbort();
  else parent.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    abort: (reason) => controller.abort(reason),
    release: () => parent.removeEventListener('abort', onAbort),
  };
}

/** Waits `ms`, or less when the signal aborts (then it rejects with the signal's reason). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
