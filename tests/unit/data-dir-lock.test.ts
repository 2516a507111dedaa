import { spawn, type ChildProcess } from 'node:child_process';
import * as realFs from 'node:fs';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * Another starter's moves are played between two of this one's file operations: right after this
 * process has read the lock file, the other one acts, as a second Deskhand started in the same instant would.
 */
const hooks = vi.hoisted(() => ({ afterRead: null as null | ((path: string, text: string) => void), noHardLinks: false }));

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const readFileSync = ((...args: Parameters<typeof actual.readFileSync>) => {
    const result = actual.readFileSync(...args);
    const hook = hooks.afterRead;
    if (hook && typeof args[0] === 'string') hook(args[0], result.toString());
    return result;
  }) as typeof actual.readFileSync;
  // A file system without hard links (FAT, some network mounts) answers EPERM.
  const linkSync = ((...args: Parameters<typeof actual.linkSync>) => {
    if (hooks.noHardLinks) throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
    return actual.linkSync(...args);
  }) as typeof actual.linkSync;
  return { ...actual, readFileSync, linkSync, default: { ...actual, readFileSync, linkSync } };
});

const { DataDirInUseError, LOCK_FILE, lockDataDir } = await import('../../src-main/host/data-dir-lock');

/** A pid that belonged to a process that has ended (a Deskhand that crashed). */
async function deadPid(): Promise<number> {
  const child = spawn('true');
  await new Promise((done) => child.once('exit', done));
  return child.pid as number;
}

let dataDir: string;
let others: ChildProcess[] = [];
/** A live process standing for the other Deskhand. */
function liveOther(): number {
  const child = spawn('sleep', ['30']);
  others.push(child);
  return child.pid as number;
}

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'deskhand-lock-race-'));
});
afterEach(async () => {
  hooks.afterRead = null;
  hooks.noHardLinks = false;
  for (const child of others) {
    child.kill('SIGKILL');
    if (child.exitCode === null && child.signalCode === null) await new Promise((done) => child.once('exit', done));
  }
  others = [];
});

describe('the data folder lock', () => {
  it('a lock left by a dead process is taken over, and let go on release', async () => {
    const file = join(dataDir, LOCK_FILE);
    writeFileSync(file, String(await deadPid()));
    const release = lockDataDir(dataDir);
    expect(readFileSync(file, 'utf8')).toMatch(new RegExp(`^${process.pid}\\b`));
    release();
    expect(realFs.existsSync(file)).toBe(false);
  });

  it('a live owner keeps it', () => {
    const other = liveOther();
    writeFileSync(join(dataDir, LOCK_FILE), String(other));
    expect(() => lockDataDir(dataDir)).toThrow(DataDirInUseError);
    expect(() => lockDataDir(dataDir)).toThrow(`another Deskhand (process ${other})`);
  });

  it('two starters finding the same stale lock: the one that took it over keeps it, the other is refused', async () => {
    const file = join(dataDir, LOCK_FILE);
    const dead = await deadPid();
    writeFileSync(file, String(dead));
    const other = liveOther();
    let raced = false;
    hooks.afterRead = (path, text) => {
      if (raced || path !== file || text.trim() !== String(dead)) return;
      raced = true;
      // The other starter saw the same dead owner a moment earlier: it removed the stale lock and wrote its own.
      realFs.rmSync(file);
      realFs.writeFileSync(file, String(other), { flag: 'wx' });
    };
    expect(() => lockDataDir(dataDir)).toThrow(`another Deskhand (process ${other})`);
    expect(raced).toBe(true);
    // The other one's lock was not removed under it.
    expect(readFileSync(file, 'utf8').trim()).toBe(String(other));
    // Nothing of the attempt is left behind in the data folder.
    expect(readdirSync(dataDir)).toEqual([LOCK_FILE]);
  });

  it('a lock file still empty (its starter is writing its pid) is not taken for a stale one', () => {
    const file = join(dataDir, LOCK_FILE);
    writeFileSync(file, '');
    const other = liveOther();
    let reads = 0;
    hooks.afterRead = (path) => {
      if (path !== file || ++reads !== 1) return;
      // The starter that created it finishes writing its pid just after this one read it empty.
      realFs.writeFileSync(file, String(other));
    };
    expect(() => lockDataDir(dataDir)).toThrow(`another Deskhand (process ${other})`);
    expect(readFileSync(file, 'utf8').trim()).toBe(String(other));
  });

  it('an empty lock file left long ago (a crash before the pid was written) is taken over', () => {
    const file = join(dataDir, LOCK_FILE);
    writeFileSync(file, '');
    const old = new Date(Date.now() - 60_000);
    realFs.utimesSync(file, old, old);
    const release = lockDataDir(dataDir);
    expect(readFileSync(file, 'utf8')).toMatch(new RegExp(`^${process.pid}\\b`));
    release();
  });

  it('works on a file system without hard links: locks, takes a stale lock over, refuses a live owner', async () => {
    hooks.noHardLinks = true;
    const file = join(dataDir, LOCK_FILE);
    writeFileSync(file, String(await deadPid()));
    const release = lockDataDir(dataDir);
    expect(readFileSync(file, 'utf8')).toMatch(new RegExp(`^${process.pid}\\b`));
    release();
    expect(readdirSync(dataDir)).toEqual([]);
    const other = liveOther();
    writeFileSync(file, String(other));
    expect(() => lockDataDir(dataDir)).toThrow(`another Deskhand (process ${other})`);
  });

  it('a takeover claim left by a starter that died taking over is cleared once old', async () => {
    const file = join(dataDir, LOCK_FILE);
    writeFileSync(file, String(await deadPid()));
    const seen = readFileSync(file, 'utf8');
    const { createHash } = await import('node:crypto');
    const claim = `${file}.takeover-${createHash('sha256').update(seen).digest('hex').slice(0, 16)}`;
    realFs.linkSync(file, claim);
    // A minute later: a takeover takes milliseconds, so that claim's holder is gone.
    const now = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => now() + 60_000);
    try {
      const release = lockDataDir(dataDir);
      expect(readFileSync(file, 'utf8')).toMatch(new RegExp(`^${process.pid}\\b`));
      release();
    } finally {
      vi.restoreAllMocks();
    }
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('a takeover claim just made by another starter is waited for, not cleared', async () => {
    const file = join(dataDir, LOCK_FILE);
    writeFileSync(file, String(await deadPid()));
    const seen = readFileSync(file, 'utf8');
    const { createHash } = await import('node:crypto');
    realFs.linkSync(file, `${file}.takeover-${createHash('sha256').update(seen).digest('hex').slice(0, 16)}`);
    expect(() => lockDataDir(dataDir)).toThrow(/another Deskhand is starting at the same time/);
    expect(readFileSync(file, 'utf8')).toBe(seen);
  });

  it('hosts in one process share it', () => {
    const release = lockDataDir(dataDir);
    const second = lockDataDir(dataDir);
    second();
    expect(realFs.existsSync(join(dataDir, LOCK_FILE))).toBe(true);
    release();
    expect(realFs.existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  });
});

describe('the data folder lock across processes', () => {
  it('of several starters finding one stale lock at the same instant, exactly one gets it', async () => {
    const file = join(dataDir, LOCK_FILE);
    writeFileSync(file, String(await deadPid()));
    const module = JSON.stringify(join(process.cwd(), 'src-main/host/data-dir-lock.ts'));
    const startAt = Date.now() + 2_500;
    // Each one waits for the same instant, then locks and holds the lock a moment.
    const script =
      `const { lockDataDir } = await import(${module});` +
      `while (Date.now() < ${startAt});` +
      `try { const release = lockDataDir(${JSON.stringify(dataDir)}); console.log('got'); setTimeout(release, 800); }` +
      `catch (error) { console.log(error.name); }`;
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, () => {
        const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        return new Promise<string>((done) => child.once('exit', () => done(out.trim())));
      }),
    );
    expect(outcomes.filter((outcome) => outcome === 'got'), outcomes.join(', ')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'DataDirInUseError')).toHaveLength(3);
    expect(readdirSync(dataDir)).toEqual([]);
  });
});
