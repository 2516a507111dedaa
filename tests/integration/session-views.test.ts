import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AutoResponder } from '../../src-main/session/interaction-broker';
import { replies, runRequest, until, type HostHarness } from '../support/host-harness';
import { harnessPerTest } from '../support/host-per-test';

const { app, hostTo, host: hostReply } = replies;

const startHarness = harnessPerTest();

type Reply = { type: string; ok: boolean; result?: unknown; error?: { code: string; message: string } };

async function command(current: HostHarness, message: Record<string, unknown>): Promise<Reply> {
  return (await current.host.endpoint.handle({ id: 'c', ...message })) as Reply;
}

async function exported(current: HostHarness, sessionId: string): Promise<string> {
  const reply = await command(current, { type: 'session.export', sessionId });
  return (reply.result as { json: string }).json;
}

describe('session views: what a session shows is its own', () => {
  it('export and blackboard.get show only the session\'s own Q&A; a deleted session\'s answers leave the running prompt', async () => {
    // The PIN question is answered at once; the folder question waits for the user.
    const answerPin: AutoResponder = (interaction) =>
      interaction.kind === 'questions' && interaction.questions[0] === 'Your bank PIN?' ? { kind: 'answers', answers: ['4711-private'] } : null;
    const current = await startHarness(
      {
        name: 'carried answers',
        steps: [
          hostReply({ Status: 'PENDING', Questions: ['Your bank PIN?'] }),
          hostReply({ Status: 'FINISH', Comment: 'done A' }),
          // Carried into the next session's prompt: an answer given once need not be asked again.
          { ...hostReply({ Status: 'PENDING', Questions: ['Which folder?'] }), expect: { contains: ['A: 4711-private'] } },
          { ...hostReply({ Status: 'FINISH', Comment: 'done B' }), expect: { contains: ['A: Documents'], notContains: ['4711-private'] } },
        ],
      },
      { autoResponder: answerPin },
    );
    const first = await runRequest(current.host, 'session A');
    expect(first.outcome).toEqual({ status: 'finished', result: 'done A' });

    const start = await command(current, { type: 'session.start', request: 'session B' });
    const sessionId = (start.result as { session: { id: string } }).session.id;
    const asked = await until(() => current.host.sessions.running && current.events.find((event) => event.kind === 'interaction.requested' && event.interaction.sessionId === sessionId), 'the folder question');
    if (asked.kind !== 'interaction.requested') throw new Error('not a question');

    expect(await exported(current, sessionId)).not.toContain('4711-private');
    expect(await command(current, { type: 'blackboard.get', sessionId })).toMatchObject({ ok: true, result: { questions: [], requests: ['session B'] } });

    expect(await command(current, { type: 'session.delete', sessionId: first.sessionId })).toMatchObject({ ok: true });
    // The session whose round runs (waiting on its question) is not deleted under it.
    expect(await command(current, { type: 'session.delete', sessionId })).toMatchObject({ ok: false, error: { code: 'conflict', message: 'stop the session before deleting it' } });
    expect(await command(current, { type: 'interaction.answer', sessionId, interactionId: asked.interaction.id, answers: ['Documents'] })).toMatchObject({ ok: true });
    expect(await current.host.sessions.running).toEqual({ status: 'finished', result: 'done B' });
    current.model.assertDone();

    const json = await exported(current, sessionId);
    expect(json).toContain('Documents');
    expect(json).not.toContain('4711-private');
    expect(await command(current, { type: 'blackboard.get', sessionId })).toMatchObject({
      ok: true,
      result: { questions: [{ question: 'Which folder?', answer: 'Documents' }] },
    });
  });
});

describe('session views: no secret in what the UI or the CLI is sent', () => {
  it('approval cards, status lines, forms and the pending interactions of session.open are scrubbed', async () => {
    // The harness runs with OPENAI_API_KEY=test-key: the model has it typed, held for approval, and put in a form.
    const secret = 'test-key';
    const form = { schema: { type: 'object', properties: { token: { type: 'string' } } }, data: { token: `token ${secret}` } };
    const current = await startHarness({
      name: 'secrets in events',
      steps: [
        hostTo('xterm', `type ${secret}`),
        app({ Function: 'type_text', Args: { text: secret, x: 5, y: 5 }, Status: 'CONFIRM', Comment: `typing ${secret}` }),
        app({ Function: '', Status: 'PENDING', Questions: [], Form: form }),
        app({ Function: '', Status: 'FINISH', Comment: 'typed' }),
        hostReply({ Status: 'FINISH', Comment: 'done' }),
      ],
    });
    const start = await command(current, { type: 'session.start', request: 'type my key' });
    const sessionId = (start.result as { session: { id: string } }).session.id;
    const held = await until(() => current.host.sessions.running && current.events.find((event) => event.kind === 'interaction.requested'), 'the approval');
    if (held.kind !== 'interaction.requested') throw new Error('not an interaction');
    const open = await command(current, { type: 'session.open', sessionId });
    expect(open).toMatchObject({ ok: true, result: { interactions: [{ id: held.interaction.id, kind: 'confirm' }] } });
    expect(JSON.stringify(open)).not.toContain(secret);

    expect(await command(current, { type: 'interaction.decide', sessionId, interactionId: held.interaction.id, approved: true })).toMatchObject({ ok: true });
    const opened = await until(() => current.events.find((event) => event.kind === 'form.updated'), 'the form');
    if (opened.kind !== 'form.updated') throw new Error('not a form');
    expect(await command(current, { type: 'form.event', sessionId, formId: opened.form.formId, path: '', value: null, action: 'Send' })).toMatchObject({ ok: true });
    expect(await current.host.sessions.running).toEqual({ status: 'finished', result: 'done' });
    // What ran is what the model asked for; what was shown of it has no secret.
    expect(current.deviceActions()).toContainEqual({ tool: 'type_text', args: { text: secret, x: 5, y: 5 } });
    const statuses = current.events.flatMap((event) => (event.kind === 'status.changed' ? [event.detail] : []));
    expect(statuses).toEqual(expect.arrayContaining([expect.stringMatching(/^Waiting for your approval: /), expect.stringMatching(/^Approved: /)]));
    expect(current.events.filter((event) => JSON.stringify(event).includes(secret))).toEqual([]);
  });
});

describe('session views: deleting a session', () => {
  it('tells every UI it is gone even when its screenshots cannot be removed, and says so', async () => {
    const current = await startHarness({ name: 'delete', steps: [hostReply({ Status: 'FINISH', Comment: 'done' })] });
    const { sessionId } = await runRequest(current.host, 'something');
    // The screenshots folder turned into a file: no session's folder under it can be removed.
    const { root } = current.host.screenshots;
    rmSync(root, { recursive: true, force: true });
    writeFileSync(root, 'not a folder');

    const reply = await command(current, { type: 'session.delete', sessionId });
    expect(reply).toMatchObject({ ok: false, error: { message: expect.stringMatching(/deleted, but its screenshots could not be removed/) } });
    expect(current.events).toContainEqual({ kind: 'session.deleted', sessionId });
    expect(current.host.store.getSession(sessionId)).toBeNull();
    expect(existsSync(root)).toBe(true);
  });
});
