/** How Deskhand tells the failures of its own storage (a full disk, a disk it cannot write) from other errors. */

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

/** SQLite's codes (extended ones start with these) for a database it cannot write or reach on disk. */
const UNWRITABLE_SQLITE_CODES = ['SQLITE_READONLY', 'SQLITE_IOERR', 'SQLITE_CANTOPEN'];

/**
 * The code of a write that the data folder's disk refused for a reason other than space: a file system
 * made read-only (as Linux does to a disk after errors), an I/O error, a database file that can no longer
 * be opened for writing. Only SQLite's codes and EROFS count: a bare EACCES or EIO may come from
 * something other than the data folder (a program the agent started), and is not to be blamed on it.
 */
export function unwritableCode(error: unknown): string | null {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    if (code === 'EROFS' || UNWRITABLE_SQLITE_CODES.some((prefix) => code.startsWith(prefix))) return code;
  }
  return null;
}
