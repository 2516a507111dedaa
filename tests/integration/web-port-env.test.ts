import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

function startWeb(port: string, extra: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  const env = { ...process.env, DESKHAND_DATA_DIR: mkdtempSync(join(tmpdir(), 'deskhand-web-port-')), DESKHAND_PORT: port, DISPLAY: '', ...extra };
  const child = spawn(process.execPath, ['--import', 'tsx', resolve('src-main/web/main.ts')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer): void => {
    output += chunk.toString();
    // Started after all: stop it, the test has its answer.
    if (output.includes('Deskhand UI:')) child.kill('SIGKILL');
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  return new Promise((done) => child.once('exit', (code) => done({ code, output })));
}

describe('DESKHAND_PORT', () => {
  it.each(['0x50', '1e3', ' ', '80.0'])("refuses '%s' instead of reading it as another port", async (port) => {
    const { code, output } = await startWeb(port);
    expect(output).toContain(`DESKHAND_PORT must be 0..65535, got '${port}'`);
    expect(code).toBe(1);
  });
});

describe('DESKHAND_HOST', () => {
  it('takes an IPv6 loopback address written as in a URL, [::1]', async () => {
    const { output } = await startWeb('0', { DESKHAND_HOST: '[::1]' });
    expect(output).toMatch(/Deskhand UI: http:\/\/\[::1\]:\d+\/\?token=/);
  });
});

describe('browser mode when its terminal goes away', () => {
  it('closes the host on SIGHUP, after its output was closed, and exits 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'deskhand-web-hup-'));
    const env = { ...process.env, DESKHAND_DATA_DIR: dataDir, DESKHAND_PORT: '0', DISPLAY: '' };
    const child = spawn(process.execPath, ['--import', 'tsx', resolve('src-main/web/main.ts')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    let output = '';
    await new Promise<void>((started) => {
      const collect = (chunk: Buffer): void => {
        output += chunk.toString();
        if (output.includes('Deskhand UI:')) started();
      };
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
    });
    // Nobody reads its output any more (| head -1 took the address), then the terminal closes.
    child.stdout.destroy();
    child.stderr.destroy();
    child.kill('SIGHUP');
    expect(await exited).toBe(0);
    // Closed, not killed: the data folder's lock is released.
    expect(existsSync(join(dataDir, 'host.lock'))).toBe(false);
  });
});
