import { isDiskFull } from '../common/disk-full';
import { damagedDatabaseMessage, isDatabaseDamage } from '../memory/database';
import type { DataDiskSpace } from '../memory/disk-space';

/**
 * What a failed command or run start is reported as: a damaged database or a full disk named as such,
 * with what to do about it; any other error by its message.
 */
export function failureMessage(error: unknown, disk: Pick<DataDiskSpace, 'fullMessage'>): string {
  if (isDatabaseDamage(error)) return damagedDatabaseMessage(error);
  if (isDiskFull(error)) return disk.fullMessage(error, 'free some space, then try again');
  return error instanceof Error ? error.message : String(error);
}
