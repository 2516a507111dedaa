import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

describe('the device client whose log nobody reads any more (its host died)', () => {
  it('still exits on SIGTERM, instead of spinning on the failed writes to its stderr', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, DISPLAY: '', WAYLAND_DISPLAY: '' };
    const child = spawn(process.execPath, ['--import', 'tsx', resolve('src-main/device/main.ts')], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      await new Promise<void>((ready) => {
        let log = '';
        child.stderr.on('data', (chunk: Buffer) => {
          log += chunk.toString();
          if (log.includes('ready (pid')) ready();
        });
      });
      child.stderr.destroy();
      const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
      child.kill('SIGTERM');
      const code = await Promise.race([exited, new Promise<'still running'>((done) => setTimeout(() => done('still running'), 5_000))]);
      expect(code).toBe(143);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
