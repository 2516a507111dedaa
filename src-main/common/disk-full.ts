/** The write error codes that mean the file system (or the user's quota on it) has no room left. */
const FULL_CODES = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT']);

/** The code of a write refused for lack of space, found in `error` or one of its causes; null for any other error. */
export function diskFullCode(error: unknown): string | null {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && FULL_CODES.has(code)) return code;
  }
  return null;
}

export function isDiskFull(error: unknown): boolean {
  return diskFullCode(error) !== null;
}

/** How a disk that refused a write is described after "the disk ...": a quota used up is not a full disk. */
export function fullDescription(code: string | null): string {
  return code === 'EDQUOT' ? 'has no room left in your quota (EDQUOT)' : `is full${code ? ` (${code})` : ''}`;
}
