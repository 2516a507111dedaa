import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { AuditStore } from '../../src-main/commands/audit-store';
import { BlackboardStore } from '../../src-main/memory/blackboard-store';
import { openDatabase, schemaVersion, type Db } from '../../src-main/memory/database';
import { InteractionStore } from '../../src-main/memory/interaction-store';
import { MIGRATIONS } from '../../src-main/memory/migrations';
import { ScreenshotFiles } from '../../src-main/memory/screenshot-files';
import { SessionStore, type NewStep } from '../../src-main/memory/session-store';
import { InteractionBroker } from '../../src-main/session/interaction-broker';
import { SessionService, type SessionServiceDeps } from '../../src-main/session/session-service';

function tempDb(): string {
  return join(mkdtempSync(join(tmpdir(), 'deskhand-store-')), 'deskhand.sqlite');
}

const step = (overrides: Partial<NewStep> = {}): NewStep => ({
  round: 0,
  agent: 'AppAgent',
  target: 'Terminal',
  subtask: 'type',
  plan: [],
  comment: '',
  promptText: null,
  annotated: null,
  phaseMs: { DATA_COLLECTION: 1 },
  costUsd: null,
  approvedBy: 'policy',
  notRun: null,
  status: 'CONTINUE',
  observation: 'o',
  thought: 't',
  action: { function: 'click', args: { x: 1, y: 2 } },
  actionText: 'Click at (1, 2)',
  result: 'done',
  error: null,
  modelReply: '{}',
  screenshot: null,
  startedAt: 1,
  durationMs: 2,
  tokens: { prompt: 3, completion: 4 },
  ...overrides,
});

describe('SessionStore', () => {
  it('migrates a new database to the latest version in WAL mode', () => {
    const db = openDatabase(tempDb());
    expect(schemaVersion(db)).toBe(MIGRATIONS.length);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
  });

  it('refuses a database from a newer Deskhand', () => {
    const file = tempDb();
    const raw = new Database(file);
    raw.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    raw.close();
    expect(() => openDatabase(file)).toThrow(/newer than this Deskhand/);
  });

  it('says which file it cannot open, and lets go of it', () => {
    const file = tempDb();
    writeFileSync(file, 'not a database '.repeat(100));
    expect(() => openDatabase(file)).toThrow(`cannot open the Deskhand database ${file}: file is not a database`);
    const newer = tempDb();
    const raw = new Database(newer);
    raw.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    raw.close();
    expect(() => openDatabase(newer)).toThrow(`cannot open the Deskhand database ${newer}: the database is at schema version`);
    if (existsSync('/proc/self/fd')) {
      const open = readdirSync('/proc/self/fd').map((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`);
        } catch {
          return '';
        }
      });
      expect(open.filter((path) => path.startsWith(newer) || path.startsWith(file))).toEqual([]);
    }
  });

  it('gives a session from schema 1 the round of its first request, finished or not', () => {
    const file = tempDb();
    const raw = new Database(file);
    raw.exec(MIGRATIONS[0] as string);
    raw.pragma('user_version = 1');
    raw.prepare(`INSERT INTO sessions VALUES ('done', 'Rename', 'rename the PDFs', 'desktop', 'finished', 'Renamed', 1, 5, 1)`).run();
    raw.prepare(`INSERT INTO sessions VALUES ('cut', 'Copy', 'copy the photos', 'desktop', 'running', NULL, 2, 6, 0)`).run();
    raw.close();

    const store = new SessionStore(openDatabase(file));
    expect(store.rounds('done')).toEqual([{ idx: 0, request: 'rename the PDFs', status: 'finished', result: 'Renamed' }]);
    expect(store.rounds('cut')).toEqual([{ idx: 0, request: 'copy the photos', status: 'running', result: null }]);
    expect(store.markUnfinishedInterrupted()).toEqual(['cut']);
    expect(store.rounds('cut')).toMatchObject([{ idx: 0, status: 'interrupted' }]);
    // A follow-up is the second round, as the session's round count says.
    expect(store.startRound('done', 'now delete them')).toBe(1);
    expect(store.rounds('done').map((round) => round.request)).toEqual(['rename the PDFs', 'now delete them']);
  });

  it('appends steps in order and reads them back as the UI sees them', () => {
    const store = new SessionStore(openDatabase(tempDb()));
    const session = store.createSession('  do   the thing  ', 'desktop');
    expect(session).toMatchObject({ title: 'do the thing', status: 'running', stepCount: 0 });
    const first = store.appendStep(session.id, step());
    const second = store.appendStep(session.id, step({ status: 'FINISH', action: null, actionText: 'No action' }));
    expect([first.index, second.index]).toEqual([0, 1]);
    expect(store.steps(session.id)).toEqual([first, second]);
    expect(store.getSession(session.id)?.stepCount).toBe(2);
  });

  it('keeps why a step did not run (rejected, paused, refused, taken over, stopped) across a reopen, and null for a step that ran', () => {
    const file = tempDb();
    const before = new SessionStore(openDatabase(file));
    const session = before.createSession('tidy up', 'desktop');
    const written = [
      before.appendStep(session.id, step({ notRun: 'rejected', result: 'Rejected by the user; the action did not run' })),
      before.appendStep(session.id, step({ notRun: 'paused' })),
      before.appendStep(session.id, step({ notRun: 'refused', status: 'ERROR', result: null, error: 'refused by the safety policy: denied' })),
      before.appendStep(session.id, step({ notRun: 'taken-over', status: 'ERROR', result: null, error: 'not run: you have taken the mouse' })),
      before.appendStep(session.id, step({ notRun: 'stopped', status: 'ERROR', result: null, error: 'not run: the run was stopped' })),
      before.appendStep(session.id, step()),
    ];
    expect(written.map((view) => view.notRun)).toEqual(['rejected', 'paused', 'refused', 'taken-over', 'stopped', null]);
    const after = new SessionStore(openDatabase(file));
    expect(after.steps(session.id)).toEqual(written);
    expect(after.step(session.id, written[0]?.id ?? '')?.step.notRun).toBe('rejected');
    expect(after.stepsWithReplies(session.id).map((view) => view.notRun)).toEqual(['rejected', 'paused', 'refused', 'taken-over', 'stopped', null]);
  });

  it('reads the steps of a schema 5 database back after its migration, none marked as not run', () => {
    const file = tempDb();
    const raw = new Database(file);
    for (const migration of MIGRATIONS.slice(0, 5)) raw.exec(migration);
    raw.pragma('user_version = 5');
    raw.prepare(`INSERT INTO sessions (id, title, request, mode, status, created_at, updated_at, step_count) VALUES ('old', 'Old', 'old request', 'desktop', 'finished', 1, 2, 1)`).run();
    raw
      .prepare(
        `INSERT INTO steps (id, session_id, idx, agent, status, observation, thought, action_text, result, started_at, duration_ms)
         VALUES ('s1', 'old', 0, 'ShellAgent', 'CONTINUE', '', 'You rejected the held action.', 'Run ''ls''', 'Rejected by the user; the action did not run', 1, 0)`,
      )
      .run();
    raw.close();
    const db = openDatabase(file);
    expect(schemaVersion(db)).toBe(6);
    expect(new SessionStore(db).steps('old')).toMatchObject([{ id: 's1', result: 'Rejected by the user; the action did not run', notRun: null }]);
  });

  it('reads a step whose not-run column holds an unknown value as damaged, naming the step', () => {
    const db = openDatabase(tempDb());
    const store = new SessionStore(db);
    const session = store.createSession('x', 'desktop');
    store.appendStep(session.id, step());
    db.prepare(`UPDATE steps SET not_run = 'maybe' WHERE session_id = ?`).run(session.id);
    expect(() => store.steps(session.id)).toThrow(`step 1 of session ${session.id} is damaged`);
  });

  it('adds the usage no step records to the session, with the steps\' usage and no step', () => {
    const store = new SessionStore(openDatabase(tempDb()));
    const session = store.createSession('look around', 'desktop');
    store.appendStep(session.id, step({ costUsd: 0.5 }));
    store.addUsage(session.id, { prompt: 100, completion: 20 }, 0.25);
    // A model without prices: the cost so far stays as it is.
    store.addUsage(session.id, { prompt: 1, completion: 2 }, null);
    expect(store.getSession(session.id)).toMatchObject({ stepCount: 1, tokens: { prompt: 104, completion: 26 }, costUsd: 0.75 });
    expect(() => store.addUsage('no-such-session', { prompt: 1, completion: 1 }, null)).toThrow('no session with id no-such-session');
  });

  it('marks sessions left running by a killed process as interrupted, keeping their steps', () => {
    const file = tempDb();
    const before = new SessionStore(openDatabase(file));
    const running = before.createSession('long job', 'desktop');
    before.appendStep(running.id, step());
    const done = before.createSession('short job', 'desktop');
    before.setStatus(done.id, 'finished', 'ok');
    const after = new SessionStore(openDatabase(file));
    expect(after.markUnfinishedInterrupted()).toEqual([running.id]);
    expect(after.getSession(running.id)?.status).toBe('interrupted');
    expect(after.getSession(done.id)?.status).toBe('finished');
    expect(after.steps(running.id)).toHaveLength(1);
  });

  it('scrubs a step itself before it is written or returned, whoever calls it', () => {
    const scrub = <T>(value: T): T => JSON.parse(JSON.stringify(value).replaceAll('hunter22-secret', '[redacted]')) as T;
    const store = new SessionStore(openDatabase(tempDb()), null, scrub);
    const session = store.createSession('log in', 'desktop');
    const secret = 'hunter22-secret';
    const view = store.appendStep(
      session.id,
      step({ observation: `the key ${secret}`, actionText: `Type '${secret}'`, modelReply: secret, promptText: secret, action: { function: 'type_text', args: { text: secret } } }),
    );
    const detail = store.step(session.id, view.id);
    expect(JSON.stringify([view, store.steps(session.id), detail])).not.toContain(secret);
    expect(detail).toMatchObject({ modelReply: '[redacted]', promptText: '[redacted]', step: { observation: 'the key [redacted]' } });
  });

  it('fails a step for an unknown session without writing anything', () => {
    const store = new SessionStore(openDatabase(tempDb()));
    expect(() => store.appendStep('missing', step())).toThrow(/no session/);
  });
});

describe('SessionStore: renaming a session', () => {
  it('keeps the new title across a restart, and changes nothing else: not its request, rounds, time or place in the list', () => {
    const file = tempDb();
    const store = new SessionStore(openDatabase(file));
    const older = store.createSession('rename the three newest PDFs in Downloads by their title', 'desktop');
    store.startRound(older.id, 'rename the three newest PDFs in Downloads by their title');
    store.appendStep(older.id, step());
    store.setStatus(older.id, 'finished', 'renamed them');
    const newer = store.createSession('email the March invoice to Ana', 'shell');
    const before = store.requireSession(older.id);

    const renamed = store.renameSession(older.id, 'PDF titles');
    expect(renamed).toEqual({ ...before, title: 'PDF titles' });

    const reopened = new SessionStore(openDatabase(file));
    expect(reopened.getSession(older.id)).toEqual(renamed);
    expect(reopened.rounds(older.id).map((round) => round.request)).toEqual(['rename the three newest PDFs in Downloads by their title']);
    expect(reopened.listSessions().map((session) => session.id)).toEqual([newer.id, older.id]);
    expect(reopened.getSession(newer.id)?.title).toBe('email the March invoice to Ana');
  });

  it('is found by a search for its new title, and still by its request', () => {
    const store = new SessionStore(openDatabase(tempDb()));
    const session = store.createSession('sort the photos into folders by year', 'desktop');
    store.renameSession(session.id, 'Holiday pictures 100%');
    expect(store.listSessions(200, 'holiday').map((found) => found.id)).toEqual([session.id]);
    expect(store.listSessions(200, '100%').map((found) => found.id)).toEqual([session.id]);
    expect(store.listSessions(200, 'by year').map((found) => found.id)).toEqual([session.id]);
  });

  it('scrubs the title like the request: a key typed into it is never stored', () => {
    const scrub = <T>(value: T): T => JSON.parse(JSON.stringify(value).replaceAll('hunter22-secret', '[redacted]')) as T;
    const db = openDatabase(tempDb());
    const store = new SessionStore(db, null, scrub);
    const session = store.createSession('log in', 'desktop');
    expect(store.renameSession(session.id, 'Login with hunter22-secret').title).toBe('Login with [redacted]');
    expect(JSON.stringify(db.prepare('SELECT * FROM sessions').all())).not.toContain('hunter22-secret');
  });

  it('fails for an unknown session without writing anything', () => {
    const store = new SessionStore(openDatabase(tempDb()));
    const session = store.createSession('keep me', 'desktop');
    expect(() => store.renameSession('missing', 'New name')).toThrow(/no session with id missing/);
    expect(store.listSessions().map((listed) => listed.title)).toEqual(['keep me']);
    expect(store.getSession(session.id)?.title).toBe('keep me');
  });
});

/** The database with every statement run through it recorded: its SQL and the columns it returns. */
function recorded(db: Db): { db: Db; ran: Array<{ source: string; columns: string[]; args: unknown[] }> } {
  const ran: Array<{ source: string; columns: string[]; args: unknown[] }> = [];
  const recording = new Proxy(db, {
    get(target, key) {
      if (key !== 'prepare') {
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (source: string) => {
        const statement = target.prepare(source);
        return new Proxy(statement, {
          get(inner, name) {
            const value: unknown = Reflect.get(inner, name);
            if (typeof value !== 'function') return value;
            if (name !== 'all' && name !== 'get' && name !== 'run' && name !== 'iterate') return value.bind(inner);
            return (...args: unknown[]) => {
              ran.push({ source, columns: inner.reader ? inner.columns().map((column) => column.name) : [], args });
              return value.apply(inner, args);
            };
          },
        });
      };
    },
  });
  return { db: recording, ran };
}

describe('what session.open and session.export read', () => {
  const big = (overrides: Partial<NewStep> = {}) => step({ promptText: 'p'.repeat(6_000), modelReply: 'r'.repeat(1_500), ...overrides });

  it('the steps of a view leave out each step\'s prompt and model reply', () => {
    const { db, ran } = recorded(openDatabase(tempDb()));
    const store = new SessionStore(db);
    const session = store.createSession('many steps', 'desktop');
    for (let i = 0; i < 5; i++) store.appendStep(session.id, big());
    ran.length = 0;
    expect(store.steps(session.id)).toHaveLength(5);
    expect(ran).toHaveLength(1);
    expect(ran[0]?.columns).toContain('observation');
    expect(ran[0]?.columns).not.toContain('model_reply');
    expect(ran[0]?.columns).not.toContain('prompt_text');
  });

  it('an export reads every step\'s model reply in one query, not one per step', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'deskhand-export-'));
    const { db, ran } = recorded(openDatabase(join(dir, 'deskhand.sqlite')));
    const store = new SessionStore(db);
    const interactions = new InteractionStore(db);
    // Only what an export uses; the rest of a host is not needed to answer it.
    const deps = {
      store,
      blackboards: new BlackboardStore(db),
      interactions,
      screenshots: new ScreenshotFiles(dir),
      broker: new InteractionBroker(interactions, () => undefined),
      settings: null,
      scrub: <T>(value: T): T => value,
    } as unknown as SessionServiceDeps;
    const service = new SessionService(deps);
    const session = store.createSession('export me', 'desktop');
    for (let i = 0; i < 20; i++) store.appendStep(session.id, big({ modelReply: `{"reply": ${i}}` }));
    ran.length = 0;
    const { json } = await service.handle({ type: 'session.export', id: 'e', sessionId: session.id });
    const document = JSON.parse(json) as { steps: Array<{ index: number; modelReply: string | null }> };
    expect(document.steps.map((exportedStep) => exportedStep.modelReply)).toEqual(Array.from({ length: 20 }, (_, i) => `{"reply": ${i}}`));
    expect(ran.filter((statement) => /\bFROM steps\b/.test(statement.source))).toHaveLength(1);
  });
});

describe('the queries of start-up and of deleting a session', () => {
  /** What SQLite plans for a statement: "SCAN <table>" alone is a read of the whole table (not "… USING INDEX"). */
  const plan = (db: Db, statement: { source: string; args: unknown[] }): string[] =>
    (db.prepare(`EXPLAIN QUERY PLAN ${statement.source}`).all(...statement.args) as Array<{ detail: string }>).map((row) => row.detail);

  it('read no table whole that grows with every command or question (the audit, the interactions)', () => {
    const raw = openDatabase(tempDb());
    const { db, ran } = recorded(raw);
    const store = new SessionStore(db);
    const audit = new AuditStore(db);
    const session = store.createSession('gone soon', 'desktop');
    ran.length = 0;
    audit.markUnfinishedUnknown();
    store.deleteSession(session.id);
    expect(ran).toHaveLength(2);
    const scans = ran.flatMap((statement) => plan(raw, statement)).filter((step) => /^SCAN (audit|interactions)$/.test(step));
    expect(scans).toEqual([]);
  });
});

describe('ScreenshotFiles', () => {
  it('stores files under the session folder and never resolves a path outside it', async () => {
    const files = new ScreenshotFiles(mkdtempSync(join(tmpdir(), 'deskhand-shots-')));
    const { stored, written } = files.write('s1', 'step-00000', { bytes: Buffer.from('img'), mimeType: 'image/jpeg', width: 2, height: 3 });
    expect(stored).toMatchObject({ file: 'step-00000.jpg', bytes: 3, width: 2, height: 3 });
    expect(stored.sha256).toBe(createHash('sha256').update('img').digest('hex'));
    await written;
    expect(readFileSync(join(files.root, 's1', 'step-00000.jpg'), 'utf8')).toBe('img');
    expect(files.pathOf('s1', 'step-00000.jpg')).toBe(join(files.root, 's1', 'step-00000.jpg'));
    for (const [session, file] of [['s1', '../x.jpg'], ['..', 'x.jpg'], ['s1', 'a/b.jpg'], ['s1', '.hidden'], ['s1', '']]) {
      expect(files.pathOf(session as string, file as string)).toBeNull();
    }
  });

  it('does not bring back the folder of a deleted session, and makes it again only when told', async () => {
    const files = new ScreenshotFiles(mkdtempSync(join(tmpdir(), 'deskhand-shots-')));
    const image = { bytes: Buffer.from('one'), mimeType: 'image/png', width: 1, height: 1 };
    await files.write('s1', 'step-00000', image).written;
    rmSync(join(files.root, 's1'), { recursive: true });
    await expect(files.write('s1', 'step-00001', image).written).rejects.toThrow(/ENOENT/);
    expect(existsSync(join(files.root, 's1'))).toBe(false);
    files.forget('s1');
    await files.write('s1', 'step-00002', { ...image, bytes: Buffer.from('two') }).written;
    expect(readFileSync(join(files.root, 's1', 'step-00002.png'), 'utf8')).toBe('two');
  });

  it('refuses an unknown image type at once, and reports a write that fails', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'deskhand-shots-'));
    const files = new ScreenshotFiles(dataDir);
    expect(() => files.write('s1', 'step-00000', { bytes: Buffer.from('x'), mimeType: 'image/gif', width: 1, height: 1 })).toThrow(
      'unsupported screenshot type image/gif',
    );
    // A file where the screenshots folder should be: no folder can be made under it.
    writeFileSync(join(dataDir, 'screenshots'), 'not a folder');
    const { written } = files.write('s1', 'step-00000', { bytes: Buffer.from('x'), mimeType: 'image/png', width: 1, height: 1 });
    await expect(written).rejects.toThrow(/ENOTDIR|EEXIST/);
  });
});
