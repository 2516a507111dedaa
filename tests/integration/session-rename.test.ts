import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { CommandResults, MAX_SESSION_TITLE_CHARS, type HostEvent } from '../../src-main/protocol';
import { replies, runRequest, until } from '../support/host-harness';
import { COMMAND_ID, damageSession, harnessPerTest, send } from '../support/host-per-test';

/**
 * The session.rename contract through the host core's protocol endpoint (what the WebSocket, Electron
 * IPC and the CLI all use): the reply, the `session.updated` event every connected UI is sent, what
 * the store keeps, and the error replies for a bad title and for a session that is not there or damaged.
 */

const { host: hostReply } = replies;

const startHarness = harnessPerTest({ restoreMocks: true });

describe('session.rename over the protocol', () => {
  it('renames a session: the reply and an event to every connected UI carry it, the list and a restart keep it', async () => {
    const current = await startHarness({ name: 'one session', steps: [hostReply({ Status: 'FINISH', Comment: 'sorted' })] });
    const { sessionId } = await runRequest(current.host, 'sort the photos into folders by year');
    // A second window (or browser tab): each connection subscribes on its own.
    const otherWindow: HostEvent[] = [];
    current.host.sessions.subscribe((event) => otherWindow.push(event));
    const before = current.host.store.requireSession(sessionId);

    const reply = await send(current, { type: 'session.rename', sessionId, title: '  Photos by year  ' });
    if (reply.type !== 'reply' || !reply.ok) throw new Error(`session.rename refused: ${JSON.stringify(reply)}`);
    expect(reply.id).toBe(COMMAND_ID);
    // What the renderer checks the reply against.
    const { session } = CommandResults['session.rename'].parse(reply.result);
    expect(session).toEqual({ ...before, title: 'Photos by year' });
    for (const events of [current.events, otherWindow]) expect(events.at(-1)).toEqual({ kind: 'session.updated', session });

    const list = await send(current, { type: 'session.list' });
    expect(list).toMatchObject({ ok: true, result: { sessions: [{ id: sessionId, title: 'Photos by year', request: 'sort the photos into folders by year' }] } });
    expect(await send(current, { type: 'session.list', query: 'photos by' })).toMatchObject({ ok: true, result: { sessions: [{ id: sessionId }] } });
    expect(await send(current, { type: 'session.open', sessionId })).toMatchObject({
      ok: true,
      result: { session: { title: 'Photos by year' }, rounds: [{ request: 'sort the photos into folders by year' }] },
    });

    const restarted = await current.restart();
    expect(restarted.store.requireSession(sessionId).title).toBe('Photos by year');
  });

  it('refuses a bad title with a clear error, and changes nothing', async () => {
    const current = await startHarness({ name: 'one session', steps: [hostReply({ Status: 'FINISH', Comment: 'done' })] });
    const { sessionId } = await runRequest(current.host, 'tidy the desktop');
    const eventsBefore = current.events.length;
    const cases: Array<[unknown, string]> = [
      ['', 'invalid command: title: the title is empty'],
      ['   ', 'invalid command: title: the title is empty'],
      ['x'.repeat(MAX_SESSION_TITLE_CHARS + 1), `invalid command: title: the title is too long: at most ${MAX_SESSION_TITLE_CHARS} characters`],
      ['two\nlines', 'invalid command: title: the title may not hold control characters such as tabs or line breaks'],
      ['right\u202Eto left', 'invalid command: title: the title may not hold control characters such as tabs or line breaks'],
      [42, expect.stringMatching(/^invalid command: title: /) as unknown as string],
    ];
    for (const [title, message] of cases) {
      expect(await send(current, { type: 'session.rename', sessionId, title }), JSON.stringify(title)).toEqual({
        type: 'reply',
        id: COMMAND_ID,
        ok: false,
        error: { code: 'bad_message', message },
      });
    }
    expect(await send(current, { type: 'session.rename', sessionId })).toMatchObject({ ok: false, error: { code: 'bad_message', message: expect.stringMatching(/^invalid command: title: /) } });
    expect(current.host.store.requireSession(sessionId).title).toBe('tidy the desktop');
    expect(current.events).toHaveLength(eventsBefore);
  });

  it('answers not_found for an unknown session, and conflict for a damaged one (which can only be deleted)', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const current = await startHarness({ name: 'one session', steps: [hostReply({ Status: 'FINISH', Comment: 'done' })] });
    expect(await send(current, { type: 'session.rename', sessionId: 'no-such-session', title: 'Anything' })).toEqual({
      type: 'reply',
      id: COMMAND_ID,
      ok: false,
      error: { code: 'not_found', message: 'no session with id no-such-session' },
    });

    const { sessionId } = await runRequest(current.host, 'this one gets damaged');
    const db = damageSession(current, sessionId);
    try {
      const eventsBefore = current.events.length;
      expect(await send(current, { type: 'session.rename', sessionId, title: 'Saved at last' })).toMatchObject({
        ok: false,
        error: { code: 'conflict', message: expect.stringMatching(/^this session is damaged and cannot be renamed, only deleted \(mode: /) },
      });
      expect((db.prepare('SELECT title FROM sessions WHERE id = ?').get(sessionId) as { title: string }).title).toBe('this one gets damaged');
      expect(current.events).toHaveLength(eventsBefore);
    } finally {
      db.close();
    }
  });

  it('scrubs a key typed into the title from what is stored, replied and sent', async () => {
    const current = await startHarness({ name: 'one session', steps: [hostReply({ Status: 'FINISH', Comment: 'done' })] });
    const { sessionId } = await runRequest(current.host, 'log in to the portal');
    // The harness's host runs with OPENAI_API_KEY=test-key.
    const reply = await send(current, { type: 'session.rename', sessionId, title: 'Portal with key test-key' });
    expect(JSON.stringify(reply)).not.toContain('test-key');
    expect(JSON.stringify(current.events.at(-1))).not.toContain('test-key');
    const db = new Database(join(current.dataDir, 'deskhand.sqlite'), { readonly: true });
    try {
      expect(JSON.stringify(db.prepare('SELECT * FROM sessions').all())).not.toContain('test-key');
    } finally {
      db.close();
    }
    expect(current.host.store.requireSession(sessionId).title).toMatch(/^Portal with key /);
  });

  it('renames a session while its run waits for the user; the run\'s later updates keep the new title', async () => {
    const current = await startHarness({
      name: 'waits on a question',
      steps: [hostReply({ Status: 'PENDING', Questions: ['Which folder?'] }), hostReply({ Status: 'FINISH', Comment: 'archived' })],
    });
    const start = await send(current, { type: 'session.start', request: 'archive the old reports' });
    const sessionId = (start as { result: { session: { id: string } } }).result.session.id;
    const asked = await until(() => current.events.find((event) => event.kind === 'interaction.requested' && event.interaction.sessionId === sessionId), 'the question');
    if (asked.kind !== 'interaction.requested') throw new Error('not a question');

    const reply = await send(current, { type: 'session.rename', sessionId, title: 'Reports archive' });
    // The live status, not only the stored one.
    expect(reply).toMatchObject({ ok: true, result: { session: { id: sessionId, title: 'Reports archive', status: 'waiting' } } });

    expect(await send(current, { type: 'interaction.answer', sessionId, interactionId: asked.interaction.id, answers: ['Archive'] })).toMatchObject({ ok: true });
    expect(await current.host.sessions.running).toEqual({ status: 'finished', result: 'archived' });
    const updates = current.events.filter((event) => event.kind === 'session.updated' && event.session.id === sessionId);
    expect(updates.at(-1)).toMatchObject({ session: { title: 'Reports archive', status: 'finished' } });
    expect(current.host.store.requireSession(sessionId)).toMatchObject({ title: 'Reports archive', request: 'archive the old reports' });
  });
});
