import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeskhandConfig } from '../../src-main/host/config';
import { createHost } from '../../src-main/host/create-host';
import { startModelServer } from '../fixtures/model-server';
import { fakeDeviceLaunch, replies } from '../support/host-harness';
import { startXvfb, type XDisplay } from '../support/xvfb';

let x: XDisplay;
beforeAll(async () => {
  x = await startXvfb({ width: 800, height: 600 });
});
afterAll(async () => {
  await x?.stop();
});

const shell = (command: string) => ({ ...replies.app({ Function: 'execute_command', Args: { command }, Status: 'CONTINUE' }), delayMs: 150 });

describe('kill -9 of the host mid-run', () => {
  it('loses no committed step; the session shows as interrupted and can be resumed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'deskhand-kill-'));
    const model = await startModelServer({ name: 'long shell run', steps: Array.from({ length: 30 }, (_, i) => shell(`echo step ${i}`)) });
    const child = spawn(process.execPath, ['--import', 'tsx', resolve('src-main/cli/main.ts'), 'run', '--mode', 'shell', 'count slowly'], {
      env: { ...x.env, DESKHAND_DATA_DIR: dataDir, OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'scripted', DESKHAND_CONFIRM: 'never' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const seen = await new Promise<number>((done, fail) => {
      let stdout = '';
      let steps = 0;
      const timer = setTimeout(() => fail(new Error(`no steps within 60 s; stderr:\n${stderr}`)), 60_000);
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const lines = stdout.split('\n');
        stdout = lines.pop() ?? '';
        for (const line of lines) {
          if ((JSON.parse(line) as { kind?: string }).kind === 'step.added') steps++;
          if (steps === 4) {
            clearTimeout(timer);
            child.kill('SIGKILL');
            done(steps);
          }
        }
      });
    });
    await new Promise((done) => child.once('exit', done));
    await model.close();

    const raw = new Database(join(dataDir, 'deskhand.sqlite'));
    expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
    raw.close();

    const resumeModel = await startModelServer({
      name: 'resume',
      steps: [{ ...replies.app({ Function: '', Status: 'FINISH', Comment: 'resumed and done' }), expect: { contains: ['count slowly', 'echo step'] } }],
    });
    const config = DeskhandConfig.parse({ models: { host: { baseUrl: resumeModel.baseUrl, model: 'scripted', maxRetries: 0 } } });
    const host = createHost({ dataDir, config, env: { ...process.env, OPENAI_API_KEY: 'x' }, deviceLaunch: fakeDeviceLaunch({}) });
    try {
      expect(host.interrupted).toHaveLength(1);
      const sessionId = host.interrupted[0]!;
      const session = host.store.getSession(sessionId);
      expect(session?.status).toBe('interrupted');
      const steps = host.store.steps(sessionId);
      // Every step the CLI reported was committed first; the kill may have landed after one more.
      expect(steps.length).toBeGreaterThanOrEqual(seen);
      expect(steps.map((step) => step.index)).toEqual(steps.map((_, index) => index));
      expect(steps[0]?.result).toContain('step 0');

      const resumed = await host.endpoint.handle({ type: 'session.resume', id: 'r', sessionId });
      expect(resumed).toMatchObject({ ok: true });
      expect(await host.sessions.running).toEqual({ status: 'finished', result: 'resumed and done' });
      expect(host.store.getSession(sessionId)).toMatchObject({ status: 'finished', roundCount: 2 });
    } finally {
      await host.close();
      await resumeModel.close();
    }
  });
});
