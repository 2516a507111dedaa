import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeskhandConfig } from '../../src-main/host/config';
import { createHost } from '../../src-main/host/create-host';
import { startModelServer } from '../fixtures/model-server';
import { replies } from '../support/host-harness';
import { startXterm, startXvfb, type XDisplay, type XProgram } from '../support/xvfb';

let x: XDisplay;
let xterm: XProgram;
beforeAll(async () => {
  x = await startXvfb({ width: 1024, height: 768 });
  xterm = await startXterm(x, { maximized: true });
});
afterAll(async () => {
  await xterm?.stop();
  await x?.stop();
});

describe('the real device client is killed mid-run', () => {
  it('the host records an ERROR step, starts a new device client, and the session goes on', async () => {
    const { app, hostTo, host } = replies;
    const model = await startModelServer({
      name: 'device killed',
      steps: [
        hostTo('deskhand-xterm', 'wait a little'),
        app({ Function: 'wait', Args: { seconds: 2 }, Status: 'CONTINUE' }),
        { ...app({ Function: 'wait', Args: { seconds: 0 }, Status: 'CONTINUE' }), expect: { contains: ['Your last step failed'] } },
        app({ Function: '', Status: 'FINISH', Comment: 'still here' }),
        host({ Status: 'FINISH', Comment: 'survived' }),
      ],
    });
    const config = DeskhandConfig.parse({ models: { host: { baseUrl: model.baseUrl, model: 'scripted', maxRetries: 0 } } });
    const deskhand = createHost({ dataDir: mkdtempSync(join(tmpdir(), 'deskhand-devkill-')), config, env: { ...x.env, OPENAI_API_KEY: 'x' } });
    try {
      const start = await deskhand.endpoint.handle({ type: 'session.start', id: 's', request: 'wait a little' });
      expect(start).toMatchObject({ ok: true });
      // Kill the device client while it carries out the 2-second wait (as an X error would abort it).
      while (model.requests.length < 2) await new Promise((done) => setTimeout(done, 20));
      await new Promise((done) => setTimeout(done, 300));
      const { pid } = deskhand.deviceStatus();
      expect(pid).toBeGreaterThan(0);
      process.kill(pid!, 'SIGKILL');

      const outcome = await deskhand.sessions.running;
      expect(outcome).toEqual({ status: 'finished', result: 'survived' });
      const sessionId = deskhand.store.listSessions(1)[0]!.id;
      const steps = deskhand.store.steps(sessionId);
      expect(steps[1]).toMatchObject({ agent: 'AppAgent', status: 'ERROR', actionText: 'Wait 2 s' });
      expect(steps[1]?.error).toMatch(/wait failed/);
      expect(steps[2]).toMatchObject({ status: 'CONTINUE' });
      expect(steps[2]?.screenshot).not.toBeNull();
      const status = deskhand.deviceStatus();
      expect(status.restarts).toBe(1);
      expect(status.pid).not.toBe(pid);
    } finally {
      await deskhand.close();
      await model.close();
    }
  });
});
