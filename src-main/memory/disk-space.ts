import { statfsSync, type StatsFs } from 'node:fs';
import { diskFullCode, fullDescription } from '../common/storage-errors';

const MB = 1024 * 1024;

function megabytes(bytes: number): string {
  return `${Math.floor(bytes / MB)} MB`;
}

/**
 * The free space of the disk that holds Deskhand's data folder, as it matters to Deskhand: every step
 * writes a screenshot and a few rows, and a step that cannot be saved after its action ran is a record
 * lost. A run pauses before a step while less than the minimum is free, rather than failing halfway.
 */
export class DataDiskSpace {
  constructor(
    readonly dataDir: string,
    /** statfs of a path; replaced in tests. */
    private readonly statfs: (path: string) => Pick<StatsFs, 'bavail' | 'bsize' | 'blocks'> = statfsSync,
  ) {}

  /** Bytes Deskhand may still write there (blocks available to an ordinary user), or null when the system cannot tell. */
  freeBytes(): number | null {
    try {
      const { bavail, bsize, blocks } = this.statfs(this.dataDir);
      // No size at all: a file system that does not report one (FUSE without statfs answers zeros), not a full one.
      if (Number(blocks) === 0) return null;
      const free = Number(bavail) * Number(bsize);
      return Number.isFinite(free) && free >= 0 ? free : null;
    } catch {
      // A file system that cannot answer statfs (some network mounts): writes still say when they fail.
      return null;
    }
  }

  /** Why a run should not take another step now (less than `minFreeMb` free), or null. 0 turns the check off. */
  shortage(minFreeMb: number): string | null {
    if (minFreeMb <= 0) return null;
    const free = this.freeBytes();
    if (free === null || free >= minFreeMb * MB) return null;
    return (
      `Only ${megabytes(free)} free on the disk that holds Deskhand's data (${this.dataDir}); ` +
      `Deskhand keeps at least ${minFreeMb} MB free so that every step can be saved. Free some space, then Resume`
    );
  }

  /** What the user is told when a write was refused for lack of space: which disk, and what to do. */
  fullMessage(error: unknown, what: string): string {
    const code = diskFullCode(error);
    return `The disk that holds Deskhand's data (${this.dataDir}) ${fullDescription(code)}: ${what}`;
  }
}
