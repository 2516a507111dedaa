import { isDiskFull } from '../common/disk-full';
import { damagedDatabaseMessage, isDatabaseDamage } from '../memory/database';
import type { DataDiskSpace } from '../memory/disk-space';

/**
 * A failure of Deskhand's storage named as such, with what to do about it: a damaged database, or a full
 * disk (`whatToDo` then, e.g. "free some space, then try again"); null for any other error.
 */
export function storageFailure(error: unknown, disk: Pick<DataDiskSpace, 'fullMessage'>, whatToDo: string): string | null {
  if (isDatabaseDamage(error)) return damagedDatabaseMessage(error);
  if (isDiskFull(error)) return disk.fullMessage(error, whatToDo);
  return null;
}

/** What a failed command or run start is reported as: its storage failure (see above), or its message. */
export function failureMessage(error: unknown, disk: Pick<DataDiskSpace, 'fullMessage'>): string {
  return storageFailure(error, disk, 'free some space, then try again') ?? (error instanceof Error ? error.message : String(error));
}
