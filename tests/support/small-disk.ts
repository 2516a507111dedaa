import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real file system of a few megabytes (tmpfs), so that a test can fill it and watch Deskhand meet
 * ENOSPC and SQLITE_FULL where it writes. Mounting needs root (CI runs as root); elsewhere `why` says
 * why there is none, and the tests that need one are skipped with that reason.
 */
export interface SmallDisk {
  path: string;
  freeBytes(): number;
  /** Fills the disk with a file of its own until only `leaveBytes` are free; returns the file. */
  fill(leaveBytes: number): string;
  unmount(): void;
}

export function mountSmallDisk(megabytes: number): SmallDisk | { why: string } {
  if (process.platform !== 'linux') return { why: 'a tmpfs needs Linux' };
  if (process.getuid?.() !== 0) return { why: 'mounting a tmpfs needs root' };
  const path = mkdtempSync(join(tmpdir(), 'deskhand-small-disk-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m,mode=0700`, 'tmpfs', path], { encoding: 'utf8' });
  if (mounted.status !== 0) {
    rmSync(path, { recursive: true, force: true });
    return { why: `mount -t tmpfs failed: ${(mounted.stderr || mounted.error?.message || '').trim()}` };
  }
  const freeBytes = (): number => {
    const { bavail, bsize } = statfsSync(path);
    return Number(bavail) * Number(bsize);
  };
  let ballasts = 0;
  return {
    path,
    freeBytes,
    fill(leaveBytes) {
      const file = join(path, `ballast-${ballasts++}`);
      const size = Math.max(0, freeBytes() - leaveBytes);
      const made = spawnSync('fallocate', ['-l', String(size), file], { encoding: 'utf8' });
      if (made.status !== 0) throw new Error(`fallocate failed: ${made.stderr}`);
      return file;
    },
    unmount() {
      spawnSync('umount', ['-l', path]);
      rmSync(path, { recursive: true, force: true });
    },
  };
}

/** A folder inside the small disk (the data folder of a host under test). */
export function folderOn(disk: SmallDisk, name: string): string {
  const folder = join(disk.path, name);
  mkdirSync(folder, { recursive: true });
  return folder;
}
