import { createHash, randomUUID } from 'node:crypto';
import { accessSync, constants as fsConstants, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = 'host.lock';

/** A lock file with no pid in it younger than this may be one whose starter is still writing it. */
const UNWRITTEN_GRACE_MS = 5_000;
/** A takeover claim older than this was left by a starter that died taking over (it takes milliseconds). */
const ABANDONED_CLAIM_MS = 10_000;
/** How long a starter waits, at most, for another one to finish writing or taking over the lock. */
const WAIT_MS = 3_000;
const RETRY_PAUSE_MS = 20;

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

function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/** What linking answers on a file system without hard links (FAT, some network mounts). */
function noHardLinks(error: unknown): boolean {
  return ['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV'].includes(code(error) ?? '');
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The owner's pid: the lock holds "PID NONCE" (or just "PID", as written by earlier versions); null when it holds none. */
function ownerOf(text: string): number | null {
  const pid = Number(text.trim().split(/\s+/)[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/**
 * Creates the lock file with its content in one step: written to a file of this starter's own, then
 * hard-linked to the lock's name, which fails if the lock exists. Another starter never sees it empty.
 * Where the file system has no hard links, it is created exclusively and then written.
 */
function create(file: string, content: string): boolean {
  const own = `${file}.${process.pid}.${randomUUID()}.new`;
  writeFileSync(own, content, { flag: 'wx' });
  try {
    linkSync(own, file);
    return true;
  } catch (error) {
    if (code(error) === 'EEXIST') return false;
    if (!noHardLinks(error)) throw error;
  } finally {
    unlinkSync(own);
  }
  try {
    writeFileSync(file, content, { flag: 'wx' });
    return true;
  } catch (error) {
    if (code(error) === 'EEXIST') return false;
    throw error;
  }
}

/**
 * Removes the stale lock whose content was `seen`, and nothing else. Only the starter that holds the
 * claim on that very lock removes it: the claim is a hard link to the lock under a name made from its
 * content (each lock's content is unique: pid and nonce), created exclusively. Once linked, the claim's
 * content says which lock it caught: the stale one (it is removed), or a lock another starter wrote
 * since it was read (it is left alone). A lock is only ever removed by the holder of its claim, so the
 * one caught stays in place until its claimer removes it.
 */
function removeStale(file: string, seen: string): void {
  const claim = `${file}.takeover-${createHash('sha256').update(seen).digest('hex').slice(0, 16)}`;
  try {
    linkSync(file, claim);
  } catch (error) {
    if (code(error) === 'ENOENT') return; // gone already: try again to create it
    if (noHardLinks(error)) {
      // No claim can be made here: removed if it still holds what was read (the best such a file system allows).
      try {
        if (readFileSync(file, 'utf8') === seen) unlinkSync(file);
      } catch (failure) {
        if (code(failure) !== 'ENOENT') throw failure;
      }
      return;
    }
    if (code(error) !== 'EEXIST') throw error;
    // Another starter is taking it over; its claim is let go within milliseconds, unless it died meanwhile.
    try {
      if (Date.now() - statSync(claim).ctimeMs > ABANDONED_CLAIM_MS) unlinkSync(claim);
    } catch {
      // Let go meanwhile.
    }
    return;
  }
  try {
    if (readFileSync(claim, 'utf8') === seen) unlinkSync(file);
  } finally {
    unlinkSync(claim);
  }
}

/**
 * One Deskhand host per data folder. A second one (the CLI or browser mode started while the app runs)
 * would take the first one's running sessions for crashed ones: mark them interrupted, cancel their
 * approvals and audit the held actions as never run, while the first host can still run them. The
 * lock is a file holding the owner's pid, created atomically with its content; one left by a process
 * that is gone (a crash, kill -9) is taken over, by one starter only, even when several find it at
 * once (removeStale). Hosts in one process (tests) share it. Returns the release function.
 */
export function lockDataDir(dataDir: string): () => void {
  const file = join(dataDir, LOCK_FILE);
  const mine = `${process.pid} ${randomUUID()}`;
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    if (create(file, mine)) return () => release(file, mine);
    let seen: string;
    let age: number;
    try {
      age = Date.now() - statSync(file).mtimeMs;
      seen = readFileSync(file, 'utf8');
    } catch (error) {
      if (code(error) === 'ENOENT') continue; // let go meanwhile
      throw error;
    }
    const owner = ownerOf(seen);
    if (owner === process.pid) return () => undefined;
    if (owner !== null && alive(owner)) {
      throw new DataDirInUseError(
        `another Deskhand (process ${owner}) is using the data folder ${dataDir}: close it first, or set ` +
          `DESKHAND_DATA_DIR to another folder (if no Deskhand is running, delete ${file})`,
      );
    }
    if (Date.now() > deadline) {
      throw new DataDirInUseError(
        `could not lock the data folder ${dataDir}: another Deskhand is starting at the same time ` +
          `(if no Deskhand is running, delete ${file})`,
      );
    }
    // No pid in it yet: a starter may be writing it (as earlier versions did, in two steps). Taken over only once old.
    if (owner === null && age < UNWRITTEN_GRACE_MS) {
      pause(RETRY_PAUSE_MS);
      continue;
    }
    // Left by a process that is gone: removed (by one starter only), and created again by whoever comes first.
    removeStale(file, seen);
    pause(RETRY_PAUSE_MS * Math.random());
  }
}

function release(file: string, mine: string): void {
  try {
    // Only this process's own lock: it is alive, so nobody else removes or replaces it meanwhile.
    if (readFileSync(file, 'utf8') === mine) unlinkSync(file);
  } catch {
    // Already gone: nothing to release.
  }
}

/** Creates the data folder, or says which folder could not be used and what to do, naming the errno. */
export function prepareDataDir(dataDir: string): void {
  try {
    // Private: it holds the sessions (requests, answers, typed text) and screenshots of the screen.
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    accessSync(dataDir, fsConstants.W_OK | fsConstants.X_OK);
  } catch (error) {
    const { code: errno, message } = error as NodeJS.ErrnoException;
    throw new Error(
      `cannot use the data folder ${dataDir} (${errno ?? message}): it must be a folder Deskhand can create and write; ` +
        'set DESKHAND_DATA_DIR to one',
    );
  }
}

/** The data folder, made and locked for this process: what an entry point holds before it reads anything in it. */
export interface DataDirLock {
  readonly dataDir: string;
  release(): void;
}

/**
 * Makes the data folder and takes its lock. Entry points call it first, before opening the settings
 * (which may rewrite a damaged settings.json), and hand the lock to createHost, which lets it go on close.
 */
export function claimDataDir(dataDir: string): DataDirLock {
  prepareDataDir(dataDir);
  const unlock = lockDataDir(dataDir);
  let released = false;
  return {
    dataDir,
    release() {
      if (released) return;
      released = true;
      unlock();
    },
  };
}
