import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelWithPrices } from '../../src-main/agents/runtime';
import { DeskhandConfig } from '../../src-main/host/config';
import { BlackboardStore } from '../../src-main/memory/blackboard-store';
import { openDatabase, type Db } from '../../src-main/memory/database';
import { DataDiskSpace } from '../../src-main/memory/disk-space';
import { InteractionStore } from '../../src-main/memory/interaction-store';
import { SessionStore } from '../../src-main/memory/session-store';
import { loadPromptLibrary } from '../../src-main/prompter/prompt-library';
import { ActiveSession, type SessionDeps } from '../../src-main/session/active-session';

const SECRET = 'sk-live-0123456789abcdef';
const scrub = <T>(value: T): T => JSON.parse(JSON.stringify(value).replaceAll(SECRET, '[redacted]')) as T;

describe('ActiveSession: a resumed request', () => {
  it('holding a secret is on the blackboard once, whether it is passed as typed or as stored', async () => {
    const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'deskhand-active-')), 'deskhand.sqlite'));
    const store = new SessionStore(db, null, scrub);
    const blackboards = new BlackboardStore(db, scrub);
    const request = `log in with ${SECRET}`;
    const session = store.createSession(request, 'desktop');
    // What a crash left: the round started and its request on the blackboard (both scrubbed when written).
    store.startRound(session.id, request);
    blackboards.load(session.id, 0).addRequest(request);
    store.setStatus(session.id, 'interrupted');
    // Only what the start of a round uses: the device never comes up, so the round ends there.
    const deps = {
      store,
      blackboards,
      interactions: new InteractionStore(db, scrub),
      config: DeskhandConfig.parse({}),
      scrub,
      emit: () => undefined,
      tools: () => Promise.reject(new Error('no device here')),
    } as unknown as SessionDeps;
    const models = {} as { host: ModelWithPrices; app: ModelWithPrices };

    for (const given of [request, scrub(request)]) {
      const live = new ActiveSession(deps, store.requireSession(session.id));
      expect(await live.startRound(given, models, { resumed: true })).toMatchObject({ status: 'error' });
      store.setStatus(session.id, 'interrupted');
      expect(blackboards.load(session.id, 0).requests.toJSON()).toEqual([{ request: 'log in with [redacted]' }]);
    }
  });
});

/** What a round needs of the host, over a real database, with no device (no step gets far). */
function depsWithoutDevice(db: Db, store: SessionStore, emit: (event: { kind: string; status?: string; result?: string | null }) => void): SessionDeps {
  return {
    store,
    blackboards: new BlackboardStore(db, scrub),
    interactions: new InteractionStore(db, scrub),
    config: DeskhandConfig.parse({}),
    scrub,
    emit,
    tools: () => Promise.reject(new Error('no device here')),
  } as unknown as SessionDeps;
}

/** A shell session's tools and a dispatcher that never sees the user take the mouse. */
const shellSessionDevice = {
  tools: () => Promise.resolve({ names: new Set<string>(), docs: '', screenless: null }),
  dispatcher: { takeover: { resume: () => undefined }, checkTakeover: () => Promise.resolve({ takenOver: false }), rebasePointer: () => Promise.resolve() },
};

describe('ActiveSession: the end of a round that cannot be saved', () => {
  it('is reported as an error saying so, not as the outcome the database does not hold', async () => {
    const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'deskhand-active-')), 'deskhand.sqlite'));
    const store = new SessionStore(db, null, scrub);
    const session = store.createSession('do a thing', 'desktop');
    const events: Array<{ kind: string; status?: string; result?: string | null }> = [];
    const deps = depsWithoutDevice(db, store, (event) => events.push(event));
    const live = new ActiveSession(deps, store.requireSession(session.id));
    // The disk fills up just as the round ends.
    store.endRound = () => {
      throw new Error('database or disk is full');
    };
    const outcome = await live.startRound('do a thing', {} as { host: ModelWithPrices; app: ModelWithPrices });
    expect(outcome.status).toBe('error');
    // Why the round ended stays in what the user is told.
    expect(outcome.result).toBe(
      'the round ended (error: internal error: no device here) but that could not be saved: database or disk is full; it shows as interrupted at the next start',
    );
    expect(events.filter((event) => event.kind === 'session.ended')).toEqual([
      { kind: 'session.ended', sessionId: session.id, status: 'error', result: outcome.result },
    ]);
    expect(store.requireSession(session.id).status).toBe('running');
  });
});

/** What SQLite itself throws for a write to a database it may only read (as after a remount read-only). */
function readOnlyDatabaseError(): Error {
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'deskhand-readonly-')), 'deskhand.sqlite'));
  db.pragma('query_only = ON');
  try {
    new SessionStore(db, null, scrub).createSession('never saved', 'shell');
  } catch (error) {
    return error as Error;
  } finally {
    db.close();
  }
  throw new Error('SQLite took a write in query_only mode');
}

describe('ActiveSession: a round that fails on its storage', () => {
  it('ends saying which disk is full, that the data folder cannot be written, or that the database is damaged, with what to do, not "internal error"', async () => {
    const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'deskhand-active-')), 'deskhand.sqlite'));
    const store = new SessionStore(db, null, scrub);
    const outcomes = [];
    for (const thrown of [
      Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }),
      Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' }),
      readOnlyDatabaseError(),
      new Error('something else'),
    ]) {
      const session = store.createSession('do a thing', 'desktop');
      const deps = {
        ...depsWithoutDevice(db, store, () => undefined),
        disk: new DataDiskSpace('/data', () => ({ bavail: 0, bsize: 4096, blocks: 1_000 })),
        tools: () => Promise.reject(thrown),
      } as unknown as SessionDeps;
      outcomes.push(await new ActiveSession(deps, store.requireSession(session.id)).startRound('do a thing', {} as { host: ModelWithPrices; app: ModelWithPrices }));
    }
    expect(outcomes).toEqual([
      {
        status: 'error',
        result: "The disk that holds Deskhand's data (/data) is full (SQLITE_FULL): the round could not go on. Free some space, then continue the session",
      },
      { status: 'error', result: expect.stringMatching(/^Deskhand's database is damaged \(database disk image is malformed\)\. Restart Deskhand/) },
      {
        status: 'error',
        result:
          'Deskhand could not write to its data folder (/data): attempt to write a readonly database (SQLITE_READONLY); the round could not go on. ' +
          'Check that the folder is writable and its disk connected, then continue the session',
      },
      { status: 'error', result: 'internal error: something else' },
    ]);
  });
});

describe('ActiveSession: the start of a round that cannot be saved', () => {
  it('leaves neither a round nor a status behind: the session is as it was, and nothing is recovered as interrupted', () => {
    const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'deskhand-active-')), 'deskhand.sqlite'));
    const store = new SessionStore(db, null, scrub);
    const session = store.createSession('do a thing', 'desktop');
    store.startRound(session.id, 'do a thing');
    store.endRound(session.id, 0, 'finished', 'done');
    store.setStatus(session.id, 'finished', 'done');
    const deps = depsWithoutDevice(db, store, () => undefined);
    const live = new ActiveSession(deps, store.requireSession(session.id));
    // The follow-up's round is written; the disk fills up as the session is marked running.
    const setStatus = store.setStatus.bind(store);
    store.setStatus = () => {
      throw new Error('database or disk is full');
    };
    expect(() => live.startRound('and another', {} as { host: ModelWithPrices; app: ModelWithPrices })).toThrow('database or disk is full');
    store.setStatus = setStatus;

    expect(store.rounds(session.id)).toEqual([{ idx: 0, request: 'do a thing', status: 'finished', result: 'done' }]);
    expect(store.requireSession(session.id)).toMatchObject({ status: 'finished', roundCount: 1 });
    expect(store.markUnfinishedInterrupted()).toEqual([]);
    expect(store.rounds(session.id).map((round) => round.status)).toEqual(['finished']);
  });
});

describe('ActiveSession: a step that cannot be saved for a full disk', () => {
  const full = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });

  /** A resumed shell session: its first step (the note that it was interrupted) is saved before any model is asked. */
  function resumedSession() {
    const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'deskhand-active-')), 'deskhand.sqlite'));
    const store = new SessionStore(db, null, scrub);
    const session = store.createSession('list the files', 'shell');
    store.startRound(session.id, 'list the files');
    store.setStatus(session.id, 'interrupted');
    const events: Array<{ kind: string; status?: string; detail?: string; session?: { status: string } }> = [];
    const deps = {
      ...depsWithoutDevice(db, store, (event) => events.push(event)),
      ...shellSessionDevice,
      disk: new DataDiskSpace('/data', () => ({ bavail: 1e9, bsize: 4096, blocks: 2e9 })),
    } as unknown as SessionDeps;
    const live = new ActiveSession(deps, store.requireSession(session.id));
    const statuses = () => events.flatMap((event) => (event.kind === 'status.changed' ? [event.status] : []));
    return { store, session, live, statuses, events };
  }

  it('a status the disk had no room for is the one its next saved step reports, not the one the database kept', async () => {
    const { store, live, events } = resumedSession();
    const round = live.startRound('list the files', {} as { host: ModelWithPrices; app: ModelWithPrices }, { resumed: true });
    expect(live.pauseRun('Paused by you', 'user')).toBe(true);
    // Resumed while the disk is full: 'paused' stays in the database, and then the step finds room.
    const setStatus = store.setStatus.bind(store);
    store.setStatus = () => {
      throw full();
    };
    expect(live.resumeRun()).toBe(true);
    for (let i = 0; i < 50 && !events.some((event) => event.kind === 'session.updated'); i++) await new Promise((done) => setTimeout(done, 5));
    store.setStatus = setStatus;
    live.stop();
    await round;
    expect(events.find((event) => event.kind === 'session.updated')?.session?.status).toBe('running');
  });

  it('is not paused for once Stop came: nobody would Resume it, and the run says it is stopping, not paused', async () => {
    const { store, live, statuses } = resumedSession();
    const appendStep = store.appendStep.bind(store);
    // Stop comes while the step's action runs; then its commit finds the disk full.
    store.appendStep = () => {
      live.stop();
      throw full();
    };
    const outcome = await live.startRound('list the files', {} as { host: ModelWithPrices; app: ModelWithPrices }, { resumed: true });
    store.appendStep = appendStep;
    expect(outcome.status).toBe('stopped');
    expect(statuses()).toEqual(['running', 'stopping']);
  });

  it('is saved when Stop comes after space was freed, rather than lost', async () => {
    const { store, session, live, statuses } = resumedSession();
    const appendStep = store.appendStep.bind(store);
    store.appendStep = () => {
      throw full();
    };
    const round = live.startRound('list the files', {} as { host: ModelWithPrices; app: ModelWithPrices }, { resumed: true });
    for (let i = 0; i < 50 && !statuses().includes('paused'); i++) await new Promise((done) => setTimeout(done, 5));
    expect(statuses()).toContain('paused');
    // Space freed, and then Stop rather than Resume.
    store.appendStep = appendStep;
    live.stop();
    expect(await round).toMatchObject({ status: 'stopped' });
    expect(store.steps(session.id).map((step) => step.actionText)).toEqual(['Resumed after an interruption']);
  });
});

describe('ActiveSession: a run paused for want of free space', () => {
  it('goes on after Resume once the space to keep was lowered in Settings meanwhile', async () => {
    const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'deskhand-active-')), 'deskhand.sqlite'));
    const store = new SessionStore(db, null, scrub);
    const session = store.createSession('list the files', 'shell');
    const events: Array<{ kind: string; status?: string; detail?: string }> = [];
    let config = DeskhandConfig.parse({ limits: { minFreeDiskMb: 100 } });
    const deps = {
      ...depsWithoutDevice(db, store, (event) => events.push(event)),
      get config() {
        return config;
      },
      ...shellSessionDevice,
      // 60 MB free.
      disk: new DataDiskSpace('/data', () => ({ bavail: 15_360, bsize: 4096, blocks: 1e6 })),
    } as unknown as SessionDeps;
    const live = new ActiveSession(deps, store.requireSession(session.id));
    const paused = () => events.filter((event) => event.kind === 'status.changed' && event.status === 'paused');
    const round = live.startRound('list the files', {} as { host: ModelWithPrices; app: ModelWithPrices });
    for (let i = 0; i < 50 && paused().length === 0; i++) await new Promise((done) => setTimeout(done, 5));
    expect(paused()).toHaveLength(1);
    expect(paused()[0]?.detail).toMatch(/^Only 60 MB free .* at least 100 MB free/);
    // As the Troubleshooting section says: keep less free (Settings, Limits), then Resume.
    config = DeskhandConfig.parse({ limits: { minFreeDiskMb: 50 } });
    expect(live.resumeRun()).toBe(true);
    // The step is taken (here it fails: there is no model), rather than the run pausing again.
    for (let i = 0; i < 50 && store.steps(session.id).length === 0 && paused().length === 1; i++) await new Promise((done) => setTimeout(done, 5));
    expect(paused()).toHaveLength(1);
    live.stop();
    await round;
  });
});

describe('ActiveSession: a step under way when Stop comes', () => {
  it('reports no progress after Stop: the run says it is stopping until it ends, never running again', async () => {
    const db = openDatabase(join(mkdtempSync(join(tmpdir(), 'deskhand-active-')), 'deskhand.sqlite'));
    const store = new SessionStore(db, null, scrub);
    const session = store.createSession('list the files', 'shell');
    const events: Array<{ kind: string; status?: string; detail?: string }> = [];
    let live: ActiveSession | null = null;
    const deps = {
      ...depsWithoutDevice(db, store, (event) => events.push(event)),
      ...shellSessionDevice,
      prompts: loadPromptLibrary(resolve('prompts')),
      // Stop comes just as the step starts, after the last check of the loop: the step reaches its model.
      disk: {
        shortage: () => {
          live?.stop();
          return null;
        },
      },
    } as unknown as SessionDeps;
    live = new ActiveSession(deps, store.requireSession(session.id));
    const outcome = await live.startRound('list the files', {} as { host: ModelWithPrices; app: ModelWithPrices });
    expect(outcome.status).toBe('stopped');
    const statuses = events.flatMap((event) => (event.kind === 'status.changed' ? [`${event.status}: ${event.detail}`] : []));
    expect(statuses[0]).toBe('running: Round 1 started');
    expect(statuses.slice(1)).toEqual(['stopping: Stopping']);
  });
});
