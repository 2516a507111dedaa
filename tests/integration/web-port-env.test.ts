import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { killOnceListening, runEntry, spawnEntry } from '../support/entry-process';

async function startWeb(port: string, extra: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  const env = { ...process.env, DESKHAND_DATA_DIR: mkdtempSync(join(tmpdir(), 'deskhand-web-port-')), DESKHAND_PORT: port, DISPLAY: '', ...extra };
  // Started after all: it is stopped, the test has its answer.
  const { code, stdout, stderr } = await runEntry('src-main/web/main.ts', [], env, { onStdout: killOnceListening });
  return { code, output: stdout + stderr };
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
    let started = (): void => undefined;
    const listening = new Promise<void>((done) => (started = done));
    const web = spawnEntry('src-main/web/main.ts', [], env, {
      onStdout: (stdout) => {
        if (stdout.includes('Deskhand UI:')) started();
      },
    });
    await listening;
    // Nobody reads its output any more (| head -1 took the address), then the terminal closes.
    web.child.stdout.destroy();
    web.child.stderr.destroy();
    web.child.kill('SIGHUP');
    expect(await web.exited).toBe(0);
    // Closed, not killed: the data folder's lock is released.
    expect(existsSync(join(dataDir, 'host.lock'))).toBe(false);
  });
});
