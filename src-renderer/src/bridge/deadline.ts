/**
 * How long the UI waits for the host to answer one command. Every command is answered at once (work
 * runs after the answer, reported by events), so a minute without one means the host is stuck or the
 * reply was lost: the button that sent it must come back rather than spin for ever.
 */
export const REPLY_DEADLINE_MS = 60_000;

/** The error a command gets when its answer does not come in time. */
export function noReplyError(commandType: string, deadlineMs: number): Error {
  return new Error(`Deskhand did not answer (${commandType}) within ${Math.round(deadlineMs / 1000)} s. Try again; if it goes on, restart Deskhand.`);
}

/** Settles like `promise`, or rejects with `noReplyError` once `deadlineMs` has passed; `onLate` runs then. */
export function withReplyDeadline<T>(promise: Promise<T>, commandType: string, deadlineMs: number, onLate?: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      onLate?.();
      reject(noReplyError(commandType, deadlineMs));
    }, deadlineMs);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
