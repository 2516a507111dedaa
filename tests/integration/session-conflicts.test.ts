import { afterEach, describe, expect, it } from 'vitest';
import { HostCommand, type HostMessage } from '../../src-main/protocol';
import { replies, startHostHarness, until, type HostHarness } from '../support/host-harness';

const { app } = replies;

/** The most answers one interaction.answer carries, as the protocol has it. */
const MAX_ANSWERS = (() => {
  const answer = (count: number) => ({ type: 'interaction.answer', id: 'a', sessionId: 's', interactionId: 'q', answers: Array<string>(count).fill('yes') });
  let most = 0;
  while (most < 1_000 && HostCommand.safeParse(answer(most + 1)).success) most++;
  return most;
})();

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

describe('a model that asks more questions than one answer can carry', () => {
  it('is asked again for fewer, so that the user can answer them (defect: 51 questions could never be answered, and the run waited until stopped)', async () => {
    const many = Array.from({ length: MAX_ANSWERS + 1 }, (_, index) => `Question ${index + 1}?`);
    harness = await startHostHarness({
      name: 'too many questions',
      steps: [
        app({ Function: '', Status: 'PENDING', Questions: many }),
        app({ Function: '', Status: 'PENDING', Questions: ['Which folder?', 'Which name?'] }),
        app({ Function: '', Status: 'FINISH', Comment: 'answered' }),
      ],
    });
    const { host } = harness;
    const sessionId = sessionIdOf(await host.endpoint.handle({ type: 'session.start', id: 's', request: 'ask me', mode: 'shell' }));
    const current = harness;
    try {
      const interaction = await until(() => {
        const event = current.events.find((candidate) => candidate.kind === 'interaction.requested');
        return event?.kind === 'interaction.requested' ? event.interaction : undefined;
      }, 'the questions');
      if (interaction.kind !== 'questions') throw new Error(`asked ${interaction.kind}`);
      expect(interaction.questions.length).toBeLessThanOrEqual(MAX_ANSWERS);
      const answers = interaction.questions.map((_, index) => `answer ${index + 1}`);
      expect(await host.endpoint.handle({ type: 'interaction.answer', id: 'a', sessionId, interactionId: interaction.id, answers })).toMatchObject({ ok: true });
      expect(await host.sessions.running).toEqual({ status: 'finished', result: 'answered' });
    } finally {
      await host.endpoint.handle({ type: 'session.stop', id: 'x', sessionId });
    }
  });
});
