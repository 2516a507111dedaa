import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../../src-main/host/data-dir-lock';
import { SETTINGS_FILE_NAME } from '../../src-main/host/settings-store';
import { killOnceListening, runEntry } from '../support/entry-process';

/**
 * A second Deskhand started while one runs on the same data folder stops at the folder's lock before it
 * reads anything there: the settings file the running one uses is not salvaged (rewritten) under it.
 */

/** A settings file with one pattern that is no regular expression: opening it rewrites it without that one. */
const DAMAGED = JSON.stringify({ safety: { denyCommandPatterns: [String.raw`\bcurl\b`, '(unclosed'] } });

let dataDir: string;
let running: ChildProcess;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'deskhand-entry-lock-'));
  writeFileSync(join(dataDir, SETTINGS_FILE_NAME), DAMAGED);
  // The Deskhand that runs: a live process named in the lock.
  running = spawn('sleep', ['30']);
  writeFileSync(join(dataDir, LOCK_FILE), String(running.pid));
});
afterEach(async () => {
  running.kill('SIGKILL');
  if (running.exitCode === null && running.signalCode === null) await new Promise((done) => running.once('exit', done));
});

async function start(entry: string, args: string[] = []): Promise<{ code: number | null; output: string }> {
  const env = { ...process.env, DESKHAND_DATA_DIR: dataDir, DESKHAND_PORT: '0', DISPLAY: '', OPENAI_API_KEY: 'x', OPENAI_BASE_URL: '' };
  // Started after all, the test fails on the output.
  const { code, stdout, stderr } = await runEntry(entry, args, env, { onStdout: killOnceListening });
  return { code, output: stdout + stderr };
}

function expectUntouched(): void {
  expect(readFileSync(join(dataDir, SETTINGS_FILE_NAME), 'utf8')).toBe(DAMAGED);
  expect(readdirSync(dataDir).sort()).toEqual([LOCK_FILE, SETTINGS_FILE_NAME]);
  expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).toBe(String(running.pid));
}

describe('a second Deskhand on a data folder in use', () => {
  it('the CLI stops at the lock, and leaves the settings file as it is', async () => {
    const { code, output } = await start('src-main/cli/main.ts', ['run', '--mode', 'shell', 'hello']);
    expect(output).toContain(`another Deskhand (process ${running.pid}) is using the data folder`);
    expect(output).not.toContain('Deskhand cannot use');
    expect(code).toBe(2);
    expectUntouched();
  });

  it('browser mode stops at the lock, and leaves the settings file as it is', async () => {
    const { code, output } = await start('src-main/web/main.ts');
    expect(output).toContain(`another Deskhand (process ${running.pid}) is using the data folder`);
    expect(output).not.toContain('Deskhand cannot use');
    expect(code).toBe(1);
    expectUntouched();
  });

  it('openDataDir (the desktop app opens its settings through it) locks the folder first', async () => {
    const { openDataDir } = await import('../../src-main/host/open-settings');
    await expect(openDataDir(dataDir, { OPENAI_API_KEY: 'x' })).rejects.toThrow(`another Deskhand (process ${running.pid})`);
    expectUntouched();
    // Once the other one is gone, the folder is this one's: the settings are salvaged, under its lock.
    running.kill('SIGKILL');
    await new Promise((done) => running.once('exit', done));
    const { lock, settings } = await openDataDir(dataDir, { OPENAI_API_KEY: 'x' });
    expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).toMatch(new RegExp(`^${process.pid}\\b`));
    expect(settings.loadProblem).toMatch(/had values Deskhand cannot use/);
    expect(existsSync(join(dataDir, `${SETTINGS_FILE_NAME}.bad`))).toBe(true);
    lock.release();
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  });
});
