import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src-main/memory/database';
import { InteractionStore } from '../../src-main/memory/interaction-store';
import { SessionStore } from '../../src-main/memory/session-store';
import type { HostEvent } from '../../src-main/protocol';
import { InteractionBroker, InteractionCancelled } from '../../src-main/session/interaction-broker';

function setup() {
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'deskhand-broker-')), 'deskhand.sqlite'));
  const sessions = new SessionStore(db);
  const store = new InteractionStore(db);
  const events: HostEvent[] = [];
  const broker = new InteractionBroker(store, (event) => events.push(event));
  return { sessions, store, events, broker };
}

describe('InteractionBroker', () => {
  it('asked with a signal already aborted (Stop came first): rejects at once, shows nothing and leaves nothing open', async () => {
    const { sessions, store, events, broker } = setup();
    const session = sessions.createSession('ask', 'desktop');
    const stop = new AbortController();
    stop.abort();
    const asked = broker.ask({ kind: 'questions', sessionId: session.id, agent: 'HostAgent', questions: ['Which file?'] }, stop.signal);
    const settled = await Promise.race([
      asked.then(
        () => 'answered',
        (error: unknown) => (error instanceof InteractionCancelled ? 'cancelled' : `failed: ${String(error)}`),
      ),
      new Promise((done) => setTimeout(() => done('still waiting'), 1_000)),
    ]);
    expect(settled).toBe('cancelled');
    expect(store.open(session.id)).toEqual([]);
    expect(broker.pending(session.id)).toEqual([]);
    expect(events.filter((event) => event.kind === 'interaction.requested')).toEqual([]);
  });

  it('an answer sent with another session\'s id is not_found, and the interaction still waits for its own', async () => {
    const { sessions, broker } = setup();
    const mine = sessions.createSession('mine', 'desktop');
    const other = sessions.createSession('other', 'desktop');
    const asked = broker.ask({ kind: 'questions', sessionId: mine.id, agent: 'HostAgent', questions: ['Which file?'] }, new AbortController().signal);
    const [interaction] = broker.pending(mine.id);
    if (!interaction) throw new Error('nothing pending');
    expect(() => broker.respond(other.id, interaction.id, { kind: 'answers', answers: ['a.txt'] })).toThrow(
      expect.objectContaining({ code: 'not_found' }),
    );
    broker.respond(mine.id, interaction.id, { kind: 'answers', answers: ['a.txt'] });
    await expect(asked).resolves.toEqual({ kind: 'answers', answers: ['a.txt'] });
    // Answered: a second answer is the conflict it always was.
    expect(() => broker.respond(mine.id, interaction.id, { kind: 'answers', answers: ['b.txt'] })).toThrow(expect.objectContaining({ code: 'conflict' }));
  });

  it('an answer the full disk refuses fails, and the question stays open to be answered again', async () => {
    const { sessions, store, events, broker } = setup();
    const session = sessions.createSession('ask', 'desktop');
    const asked = broker.ask({ kind: 'questions', sessionId: session.id, agent: 'HostAgent', questions: ['Which file?'] }, new AbortController().signal);
    const [interaction] = broker.pending(session.id);
    if (!interaction) throw new Error('nothing pending');
    const resolve = store.resolve.bind(store);
    store.resolve = () => {
      throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    };
    expect(() => broker.respond(session.id, interaction.id, { kind: 'answers', answers: ['a.txt'] })).toThrow('database or disk is full');
    expect(broker.pending(session.id).map((open) => open.id)).toEqual([interaction.id]);
    expect(events.some((event) => event.kind === 'interaction.resolved')).toBe(false);

    store.resolve = resolve;
    broker.respond(session.id, interaction.id, { kind: 'answers', answers: ['a.txt'] });
    await expect(asked).resolves.toEqual({ kind: 'answers', answers: ['a.txt'] });
    expect(store.open(session.id)).toEqual([]);
  });

  it('stopped while the store refuses to mark the question cancelled: it is cancelled all the same, and nothing throws from the abort', async () => {
    const { sessions, store, events, broker } = setup();
    const session = sessions.createSession('ask', 'desktop');
    const stop = new AbortController();
    const asked = broker.ask({ kind: 'questions', sessionId: session.id, agent: 'HostAgent', questions: ['Which file?'] }, stop.signal);
    store.resolve = () => {
      throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    };
    // A listener that threw would end the process (Node rethrows it on the next tick).
    expect(() => stop.abort()).not.toThrow();
    await expect(asked).rejects.toBeInstanceOf(InteractionCancelled);
    expect(broker.pending(session.id)).toEqual([]);
    expect(events.filter((event) => event.kind === 'interaction.resolved')).toMatchObject([{ outcome: 'cancelled' }]);
    // The row could not be marked: it is still open, for the round's end or the next start to cancel.
    expect(store.open(session.id)).toHaveLength(1);
  });
});
