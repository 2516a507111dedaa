// The desktop app's log file (src-main/electron/file-log.ts): rotation by bytes, a rotation that fails,
// and the host's secrets kept out of every line copied from the console.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { scrubLogsWith, scrubLogText } from '../../src-main/common/log';
import { createFileLog, LOG_FILE, teeConsole } from '../../src-main/electron/file-log';

const METHODS = ['log', 'info', 'warn', 'error'] as const;

let dir: string;
let saved: Array<[(typeof METHODS)[number], PropertyDescriptor | undefined]>;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'deskhand-log-'));
  saved = METHODS.map((method) => [method, Object.getOwnPropertyDescriptor(console, method)]);
});

afterEach(() => {
  // teeConsole replaces the console's methods: put the originals back.
  for (const [method, descriptor] of saved) if (descriptor) Object.defineProperty(console, method, descriptor);
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

const logText = (): string => readFileSync(join(dir, LOG_FILE), 'utf8');

describe('the log file', () => {
  it('rotates by bytes, not characters', () => {
    // Time stamp, level, 60 three-byte characters and the newline: 91 characters, 211 bytes a line.
    const message = '€'.repeat(60);
    const log = createFileLog(dir, 400);
    log.write('info', message);
    log.write('info', message);
    expect(statSync(join(dir, LOG_FILE)).size).toBe(211);
    expect(existsSync(join(dir, 'main.old.log'))).toBe(true);
  });

  it('keeps writing when the old log cannot be replaced, and rotates again later', () => {
    // A folder in the old log's place makes the rename fail, as a file held open does on Windows.
    mkdirSync(join(dir, 'main.old.log'));
    writeFileSync(join(dir, 'main.old.log', 'keep'), '');
    const log = createFileLog(dir, 200);
    for (let index = 0; index < 6; index++) log.write('info', `line ${index} ${'x'.repeat(40)}`);
    for (let index = 0; index < 6; index++) expect(logText()).toContain(`line ${index} `);

    rmSync(join(dir, 'main.old.log'), { recursive: true });
    for (let index = 6; index < 12; index++) log.write('info', `line ${index} ${'x'.repeat(40)}`);
    expect(statSync(join(dir, 'main.old.log')).isFile()).toBe(true);
    expect(logText()).toContain('line 11 ');
  });

  it('keeps the running host\'s secrets out of every console line it copies', () => {
    for (const method of METHODS) vi.spyOn(console, method).mockImplementation(() => undefined);
    const stop = scrubLogsWith((text) => text.split('sk-secret-123456').join('[redacted]'));
    teeConsole(createFileLog(dir));
    console.error('[mcp] server failed:', new Error('401 from https://u:sk-secret-123456@proxy/v1'));
    console.log(`[agent] key ${'sk-secret-123456'} refused`);
    console.warn({ apiKey: 'sk-secret-123456' });
    stop();
    const text = logText();
    expect(text).not.toContain('sk-secret-123456');
    expect(text).toMatch(/ERROR \[mcp\] server failed: Error: 401 from https:\/\/u:\[redacted\]@proxy\/v1/);
    expect(text).toContain('INFO [agent] key [redacted] refused');
    expect(text).toContain("WARN { apiKey: '[redacted]' }");
    expect(scrubLogText('sk-secret-123456')).toBe('sk-secret-123456');
  });

  it('never stops start-up: a logs folder that cannot be made leaves the app running without the file', () => {
    // A file where the logs folder should be, as a folder left owned by another user makes mkdir fail too.
    const blocked = join(dir, 'logs');
    writeFileSync(blocked, 'not a folder');
    const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const log = createFileLog(blocked);
    expect(() => log.write('info', 'still running')).not.toThrow();
    expect(readFileSync(blocked, 'utf8')).toBe('not a folder');
    expect(spy).toHaveBeenCalledWith(expect.stringMatching(/^\[deskhand\] no log file: .*logs/));
  });
});
