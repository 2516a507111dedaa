import { isDiskFull, unwritableCode } from '../common/storage-errors';
import { damagedDatabaseMessage, isDatabaseDamage } from '../memory/database';
import type { DataDiskSpace } from '../memory/disk-space';

/** What could not go on because of the storage failure (if not the whole action), and what to do once it is mended. */
export interface StorageAdvice {
  /** E.g. "the round could not go on". */
  what?: string;
  /** E.g. "continue the session". */
  then: string;
}

/**
 * A failure of Deskhand's storage named as such, with what to do about it: a damaged database, a full
 * disk, or a data folder that cannot be written (read-only, an I/O error); null for any other error.
 */
export function storageFailure(error: unknown, disk: Pick<DataDiskSpace, 'fullMessage' | 'dataDir'>, advice: StorageAdvice): string | null {
  if (isDatabaseDamage(error)) return damagedDatabaseMessage(error);
  const { what, then } = advice;
  if (isDiskFull(error)) return disk.fullMessage(error, what ? `${what}. Free some space, then ${then}` : `free some space, then ${then}`);
  const unwritable = unwritableCode(error);
  if (unwritable === null) return null;
  const message = error instanceof Error ? error.message : String(error);
  // Node's own messages start with the code ("EROFS: read-only file system, open …"); SQLite's do not.
  const reason = message.includes(unwritable) ? message : `${message} (${unwritable})`;
  return (
    `Deskhand could not write to its data folder (${disk.dataDir}): ${reason}${what ? `; ${what}` : ''}. ` +
    `Check that the folder is writable and its disk connected, then ${then}`
  );
}

/** What a failed command or run start is reported as: its storage failure (see above), or its message. */
export function failureMessage(error: unknown, disk: Pick<DataDiskSpace, 'fullMessage' | 'dataDir'>): string {
  return storageFailure(error, disk, { then: 'try again' }) ?? (error instanceof Error ? error.message : String(error));
}
