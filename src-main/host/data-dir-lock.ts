import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = 'host.lock';

export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One Deskhand host per data folder. A second one (the CLI or browser mode started while the app runs)
 * would take the first one's running sessions for crashed ones: mark them interrupted, cancel their
 * approvals and audit the held actions as never run, while the first host can still run them. The
 * lock is a file holding the owner's pid, taken atomically; one left by a process that is gone (a
 * crash, kill -9) is taken over. Hosts in one process (tests) share it. Returns the release function.
 */
export function lockDataDir(dataDir: string): () => void {
  const file = join(dataDir, LOCK_FILE);
  const mine = String(process.pid);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(file, mine, { flag: 'wx' });
      return () => release(file, mine);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number(readFileSync(file, 'utf8').trim());
    if (owner === process.pid) return () => undefined;
    if (Number.isInteger(owner) && owner > 0 && alive(owner)) {
      throw new DataDirInUseError(
        `another Deskhand (process ${owner}) is using the data folder ${dataDir}: close it first, or set ` +
          `DESKHAND_DATA_DIR to another folder (if no Deskhand is running, delete ${file})`,
      );
    }
    // Left by a process that is gone: remove it and try again (another starter may win the race).
    rmSync(file, { force: true });
  }
  throw new DataDirInUseError(`could not lock the data folder ${dataDir}: another Deskhand is starting at the same time`);
}

function release(file: string, mine: string): void {
  try {
    if (readFileSync(file, 'utf8').trim() === mine) rmSync(file, { force: true });
  } catch {
    // Already gone: nothing to release.
  }
}
