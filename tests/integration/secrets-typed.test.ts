import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HostEvent, Interaction } from '../../src-main/protocol';
import { replies, until } from '../support/host-harness';
import { harnessPerTest } from '../support/host-per-test';

/**
 * The API key a user pastes into a request, an answer or a form is kept out of the database like the
 * key a command prints: every store scrubs what it writes. (The harness's key is "test-key".)
 */

const KEY = 'test-key';
const { app } = replies;

const startHarness = harnessPerTest();

function databaseBytes(dataDir: string): Buffer {
  return Buffer.concat(
    readdirSync(dataDir)
      .filter((name) => name.startsWith('deskhand.sqlite'))
      .map((name) => readFileSync(join(dataDir, name))),
  );
}

describe('secrets the user types', () => {
  it('never reach the database: request, answer, form data and result are scrubbed as they are stored', async () => {
    const form = { schema: { type: 'object', properties: { token: { type: 'string' } } } };
    const current = await startHarness({
      name: 'typed secrets',
      steps: [
        app({ Function: '', Status: 'PENDING', Questions: ['Which account?'] }),
        app({ Function: '', Status: 'PENDING', Questions: [], Form: form }),
        // The model is never sent the key either (the model client scrubs prompts).
        { ...app({ Function: '', Status: 'FINISH', Comment: 'stored' }), expect: { contains: ['[redacted]'] } },
      ],
    });
    const { host } = current;
    const start = await host.endpoint.handle({ type: 'session.start', id: 's', request: `log in with ${KEY} please`, mode: 'shell' });
    expect(start).toMatchObject({ ok: true });
    const sessionId = (start as { result: { session: { id: string } } }).result.session.id;

    const question = await until(() => {
      const event = current.events.find((candidate): candidate is Extract<HostEvent, { kind: 'interaction.requested' }> => candidate.kind === 'interaction.requested');
      return event?.interaction as Interaction | undefined;
    }, 'the question');
    expect(
      await host.endpoint.handle({ type: 'interaction.answer', id: 'a', sessionId, interactionId: question.id, answers: [`the one for ${KEY}`] }),
    ).toMatchObject({ ok: true });

    const formId = await until(() => {
      const event = current.events.find((candidate) => candidate.kind === 'form.updated');
      return event?.kind === 'form.updated' ? event.form.formId : undefined;
    }, 'the form');
    expect(
      await host.endpoint.handle({ type: 'form.event', id: 'f', sessionId, formId, path: 'token', value: KEY, action: 'Send' }),
    ).toMatchObject({ ok: true });
    expect(await host.sessions.running).toEqual({ status: 'finished', result: 'stored' });
    current.model.assertDone();

    // The blackboard the UI reads holds the answers, without the key.
    const board = JSON.stringify(await host.endpoint.handle({ type: 'blackboard.get', id: 'b', sessionId }));
    expect(board).toContain('the one for [redacted]');
    expect(board).not.toContain(KEY);
    // What was stored says where the key was, without it.
    expect(host.store.rounds(sessionId)[0]?.request).toBe('log in with [redacted] please');
    expect(host.store.getSession(sessionId)?.title).not.toContain(KEY);
    await host.close();
    const bytes = databaseBytes(current.dataDir);
    expect(bytes.length).toBeGreaterThan(0);
    expect(bytes.includes(Buffer.from(KEY)), 'the key is in the database files').toBe(false);
    expect(bytes.includes(Buffer.from('the one for [redacted]')), 'the answer was stored, scrubbed').toBe(true);
  });

  it('a password typed into a form reaches the agent, but never the database, the blackboard view or a later session', async () => {
    const PASSWORD = 'correct-horse-battery';
    const form = { schema: { type: 'object', properties: { user: { type: 'string' }, pass: { type: 'string', format: 'password' } } } };
    const current = await startHarness({
      name: 'form password',
      steps: [
        app({ Function: '', Status: 'PENDING', Questions: [], Form: form }),
        // The agent that asked for it gets it, to type it where it is needed.
        { ...app({ Function: '', Status: 'FINISH', Comment: 'logged in' }), expect: { contains: [PASSWORD] } },
        // A later session is told the form was answered, without the password.
        { ...app({ Function: '', Status: 'FINISH', Comment: 'next' }), expect: { contains: ['typed into a password field: not kept'], notContains: [PASSWORD] } },
      ],
    });
    const { host } = current;
    const start = await host.endpoint.handle({ type: 'session.start', id: 's', request: 'log in to the intranet', mode: 'shell' });
    const sessionId = (start as { result: { session: { id: string } } }).result.session.id;
    const formId = await until(() => {
      const event = current.events.find((candidate) => candidate.kind === 'form.updated');
      return event?.kind === 'form.updated' ? event.form.formId : undefined;
    }, 'the form');
    expect(await host.endpoint.handle({ type: 'form.event', id: 'f1', sessionId, formId, path: 'user', value: 'ana', action: null })).toMatchObject({ ok: true });
    expect(await host.endpoint.handle({ type: 'form.event', id: 'f2', sessionId, formId, path: 'pass', value: PASSWORD, action: 'Log in' })).toMatchObject({ ok: true });
    // Until it is submitted, what the user types goes back to their own UI like any field.
    const typedUntil = current.events.length;
    expect(await host.sessions.running).toEqual({ status: 'finished', result: 'logged in' });

    const board = JSON.stringify(await host.endpoint.handle({ type: 'blackboard.get', id: 'b', sessionId }));
    expect(board).toContain('ana');
    expect(board).not.toContain(PASSWORD);

    const next = await host.endpoint.handle({ type: 'session.start', id: 's2', request: 'check the mail', mode: 'shell' });
    expect(next).toMatchObject({ ok: true });
    expect(await host.sessions.running).toEqual({ status: 'finished', result: 'next' });
    current.model.assertDone();
    // The step that read it keeps its prompt for the step detail: with the password left out.
    const last = host.store.steps(sessionId).at(-1);
    const detail = last ? host.store.step(sessionId, last.id) : null;
    expect(detail?.promptText).toContain('"pass":"[redacted]"');
    expect(JSON.stringify(current.events.slice(typedUntil))).not.toContain(PASSWORD);
    await host.close();
    expect(databaseBytes(current.dataDir).includes(Buffer.from(PASSWORD)), 'the password is in the database files').toBe(false);
  });
});
