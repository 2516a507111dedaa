import { afterEach, describe, expect, it } from 'vitest';
import type { HostMessage } from '../../src-main/protocol';
import { replies, startHostHarness, until, type HostHarness } from '../support/host-harness';

const { app } = replies;

let harness: HostHarness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

function sessionIdOf(reply: HostMessage): string {
  if (reply.type !== 'reply' || !reply.ok) throw new Error(`refused: ${JSON.stringify(reply)}`);
  return (reply.result as { session: { id: string } }).session.id;
}

describe('two windows: Stop in one, Pause or Resume in the other before the run has ended', () => {
  it('the run stays stopping: Pause is refused, nothing says paused, and it ends stopped (defect: it said paused, then running)', async () => {
    harness = await startHostHarness({
      name: 'stop, then pause',
      steps: [{ ...app({ Function: '', Status: 'FINISH', Comment: 'done' }), delayMs: 400 }],
    });
    const { host } = harness;
    const sessionId = sessionIdOf(await host.endpoint.handle({ type: 'session.start', id: 's', request: 'think', mode: 'shell' }));
    const current = harness;
    await until(() => current.model.requests.length === 1, 'the model request');

    // Sent by two windows at once: each is handled before the round has wound down.
    const [stop, pause, resume] = await Promise.all([
      host.endpoint.handle({ type: 'session.stop', id: 'a', sessionId }),
      host.endpoint.handle({ type: 'session.pause', id: 'b', sessionId }),
      host.endpoint.handle({ type: 'session.resume', id: 'c', sessionId }),
    ]);
    expect(stop).toMatchObject({ ok: true, result: { stopped: true } });
    expect(pause).toMatchObject({ ok: true, result: { paused: false } });
    expect(resume).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(await host.sessions.running).toEqual({ status: 'stopped', result: 'Stopped by you' });

    const statuses = current.events.flatMap((event) => (event.kind === 'status.changed' ? [event.status] : []));
    expect(statuses.slice(statuses.indexOf('stopping'))).toEqual(['stopping']);
    expect(host.store.getSession(sessionId)?.status).toBe('stopped');
  });
});
