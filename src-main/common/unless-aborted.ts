/**
 * `work`'s result, or a rejection with `reason()` as soon as `signal` is aborted. The work itself goes
 * on, unawaited: for waits that cannot be cancelled (a process starting, a probe) but must not hold up
 * a Stop.
 */
export function unlessAborted<T>(work: Promise<T>, signal: AbortSignal | undefined, reason: () => Error): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(reason());
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => reject(reason());
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
