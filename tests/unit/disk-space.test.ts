import { describe, expect, it } from 'vitest';
import { diskFullCode, fullDescription, isDiskFull, unwritableCode } from '../../src-main/common/storage-errors';
import { DataDiskSpace } from '../../src-main/memory/disk-space';
import { failureMessage } from '../../src-main/session/failure-message';

const MB = 1024 * 1024;
const withFree = (bytes: number) => () => ({ bavail: bytes / 4096, bsize: 4096, blocks: 1_000_000 });

describe('DataDiskSpace', () => {
  it('says nothing while the minimum is free, and why a run should wait once it is not', () => {
    expect(new DataDiskSpace('/data', withFree(100 * MB)).shortage(100)).toBeNull();
    expect(new DataDiskSpace('/data', withFree(100 * MB - 4096)).shortage(100)).toBe(
      "Only 99 MB free on the disk that holds Deskhand's data (/data); Deskhand keeps at least 100 MB free so that every step can be saved. Free some space, then Resume",
    );
    expect(new DataDiskSpace('/data', withFree(0)).shortage(1)).toMatch(/^Only 0 MB free/);
  });

  it('never holds a run when the check is off (0), or when the file system cannot say how much is free', () => {
    expect(new DataDiskSpace('/data', withFree(0)).shortage(0)).toBeNull();
    const unknown = new DataDiskSpace('/data', () => {
      throw Object.assign(new Error('statfs is not supported'), { code: 'ENOSYS' });
    });
    expect(unknown.freeBytes()).toBeNull();
    expect(unknown.shortage(100)).toBeNull();
    expect(new DataDiskSpace('/data', () => ({ bavail: Number.NaN, bsize: 4096, blocks: 1_000_000 })).freeBytes()).toBeNull();
    // A file system that reports no size at all (a FUSE one without statfs answers all zeros) has not run out of room.
    const sizeless = new DataDiskSpace('/data', () => ({ bavail: 0, bsize: 512, blocks: 0 }));
    expect(sizeless.freeBytes()).toBeNull();
    expect(sizeless.shortage(100)).toBeNull();
  });

  it('names the disk, the code and what to do when a write was refused', () => {
    const space = new DataDiskSpace('/home/ana/.config/Deskhand', withFree(0));
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    expect(space.fullMessage(new Error('saving the step failed', { cause: full }), 'step 3 could not be saved')).toBe(
      "The disk that holds Deskhand's data (/home/ana/.config/Deskhand) is full (SQLITE_FULL): step 3 could not be saved",
    );
  });
});

describe('fullDescription', () => {
  it('says a quota used up is one, not a full disk', () => {
    expect(fullDescription('ENOSPC')).toBe('is full (ENOSPC)');
    expect(fullDescription('SQLITE_FULL')).toBe('is full (SQLITE_FULL)');
    expect(fullDescription('EDQUOT')).toBe('has no room left in your quota (EDQUOT)');
    expect(fullDescription(null)).toBe('is full');
    const quota = Object.assign(new Error('disk quota exceeded'), { code: 'EDQUOT' });
    expect(new DataDiskSpace('/data', withFree(MB)).fullMessage(quota, 'step 2 could not be saved')).toBe(
      "The disk that holds Deskhand's data (/data) has no room left in your quota (EDQUOT): step 2 could not be saved",
    );
  });
});

describe('isDiskFull', () => {
  it('knows SQLite and the file system running out of room, the quota included, also as a cause', () => {
    for (const code of ['SQLITE_FULL', 'ENOSPC', 'EDQUOT']) {
      expect(isDiskFull(Object.assign(new Error('full'), { code }))).toBe(true);
      expect(diskFullCode(new Error('wrapped', { cause: Object.assign(new Error('full'), { code }) }))).toBe(code);
    }
  });

  it('is not fooled by other errors, a message that only says "full", or a non-error', () => {
    expect(isDiskFull(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }))).toBe(false);
    expect(isDiskFull(Object.assign(new Error('permission denied'), { code: 'EACCES' }))).toBe(false);
    expect(isDiskFull(new Error('database or disk is full'))).toBe(false);
    expect(isDiskFull({ code: 'ENOSPC' })).toBe(false);
    expect(isDiskFull(null)).toBe(false);
  });
});

describe('unwritableCode', () => {
  const error = (code: string, message = code) => Object.assign(new Error(message), { code });

  it("knows SQLite's read-only, I/O and cannot-open codes (extended ones too) and a read-only file system, also as a cause", () => {
    for (const code of ['SQLITE_READONLY', 'SQLITE_READONLY_DBMOVED', 'SQLITE_IOERR', 'SQLITE_IOERR_WRITE', 'SQLITE_CANTOPEN', 'EROFS']) {
      expect(unwritableCode(error(code))).toBe(code);
      expect(unwritableCode(new Error('saving the step failed', { cause: error(code) }))).toBe(code);
    }
  });

  it('blames no bare permission or I/O error on the data folder (a program the agent ran may have met it), nor a full disk or a busy database', () => {
    for (const code of ['EACCES', 'EPERM', 'EIO', 'SQLITE_FULL', 'ENOSPC', 'SQLITE_BUSY', 'SQLITE_CORRUPT']) expect(unwritableCode(error(code))).toBeNull();
    expect(unwritableCode({ code: 'EROFS' })).toBeNull();
  });

  it('is reported with the folder, the reason and what to do, the code said once', () => {
    const disk = new DataDiskSpace('/home/ana/.config/Deskhand', withFree(MB));
    expect(failureMessage(error('SQLITE_IOERR_WRITE', 'disk I/O error'), disk)).toBe(
      'Deskhand could not write to its data folder (/home/ana/.config/Deskhand): disk I/O error (SQLITE_IOERR_WRITE). ' +
        'Check that the folder is writable and its disk connected, then try again',
    );
    expect(failureMessage(error('EROFS', "EROFS: read-only file system, open '/home/ana/.config/Deskhand/settings.json'"), disk)).toBe(
      "Deskhand could not write to its data folder (/home/ana/.config/Deskhand): EROFS: read-only file system, open '/home/ana/.config/Deskhand/settings.json'. " +
        'Check that the folder is writable and its disk connected, then try again',
    );
    expect(failureMessage(error('EACCES', 'permission denied'), disk)).toBe('permission denied');
  });
});
