import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuditStore } from '../../src-main/commands/audit-store';
import { recoverInterrupted } from '../../src-main/host/recover-interrupted';
import { BlackboardStore } from '../../src-main/memory/blackboard-store';
import { openDatabase, type Db } from '../../src-main/memory/database';
import { InteractionStore } from '../../src-main/memory/interaction-store';
import { SessionStore } from '../../src-main/memory/session-store';
import { newStep } from '../support/store-fixtures';

/**
 * What a damaged row (a bad disk, a hand edit, a record of an older Deskhand whose shape has changed since)
 * does: a clear error for the one thing it belongs to, never a host that cannot start or list its sessions.
 */

function freshDb(): Db {
  return openDatabase(join(mkdtempSync(join(tmpdir(), 'deskhand-damaged-')), 'deskhand.sqlite'));
}

const step = newStep({ observation: 'o', thought: 't' });

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a damaged row', () => {
  it('leaves the other sessions listed, and is named in the log and when opened', () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const db = freshDb();
    const store = new SessionStore(db);
    const good = store.createSession('good one', 'desktop');
    const bad = store.createSession('bad one', 'desktop');
    db.prepare(`UPDATE sessions SET status = 'exploded' WHERE id = ?`).run(bad.id);

    expect(store.listSessions().map((session) => session.id)).toEqual([good.id]);
    expect(store.listSessions(200, 'one').map((session) => session.id)).toEqual([good.id]);
    expect(errors.mock.calls.flat().join('\n')).toContain(bad.id);
    expect(() => store.getSession(bad.id)).toThrow(new RegExp(`session ${bad.id} is damaged`));
  });

  it('of a step is an error naming the step and its column, not a bare JSON syntax error', () => {
    const db = freshDb();
    const store = new SessionStore(db);
    const session = store.createSession('steps', 'desktop');
    store.appendStep(session.id, step);
    db.prepare(`UPDATE steps SET plan_json = '[unterminated' WHERE session_id = ?`).run(session.id);
    expect(() => store.steps(session.id)).toThrow(/step 1 of session .* is damaged: plan_json/);
  });

  it('of a question carried from another session does not stop new sessions from starting', () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const db = freshDb();
    const sessions = new SessionStore(db);
    const boards = new BlackboardStore(db);
    const old = sessions.createSession('old', 'desktop');
    boards.load(old.id, 0).addQuestion('Which folder?', 'Downloads');
    boards.load(old.id, 0).addQuestion('Which name?', 'report.pdf');
    db.prepare(`UPDATE blackboard_items SET content_json = '{"question": 1}' WHERE content_json LIKE '%Downloads%'`).run();

    const next = sessions.createSession('new', 'desktop');
    const board = boards.load(next.id, 5);
    expect(board.questions.all().map((item) => item.get('answer'))).toEqual(['report.pdf']);
    expect(errors.mock.calls.flat().join('\n')).toMatch(/damaged questions record/);
    // The session's own damaged record is still an error: its blackboard would be incomplete.
    expect(() => boards.load(old.id, 0)).toThrow(/damaged questions record/);
  });

  it('of a held action or a form does not stop start-up recovery; the rest of it is still done', () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const db = freshDb();
    const sessions = new SessionStore(db);
    const interactions = new InteractionStore(db);
    const audit = new AuditStore(db);
    const session = sessions.createSession('clean up', 'shell');
    sessions.startRound(session.id, 'clean up');
    interactions.save({ kind: 'questions', id: 'q-1', sessionId: session.id, agent: 'ShellAgent', questions: ['Which?'] });
    interactions.saveForm({ formId: 'f-1', sessionId: session.id, agent: 'ShellAgent', schema: {}, uischema: null, data: {}, state: 'open' });
    interactions.saveForm({ formId: 'f-2', sessionId: session.id, agent: 'ShellAgent', schema: {}, uischema: null, data: {}, state: 'open' });
    // A payload an older Deskhand wrote (a shape this one does not know), and a form cut short.
    db.prepare(`UPDATE interactions SET payload_json = '{"kind":"approve","id":"q-1"}' WHERE id = 'q-1'`).run();
    db.prepare(`UPDATE forms SET spec_json = '{"formId":' WHERE form_id = 'f-2'`).run();

    expect(recoverInterrupted(sessions, interactions, audit)).toEqual([session.id]);
    expect(sessions.getSession(session.id)?.status).toBe('interrupted');
    expect(db.prepare('SELECT COUNT(*) AS n FROM interactions WHERE resolved_at IS NULL').get()).toEqual({ n: 0 });
    expect(db.prepare(`SELECT form_id, state FROM forms ORDER BY form_id`).all()).toEqual([
      { form_id: 'f-1', state: 'closed' },
      { form_id: 'f-2', state: 'closed' },
    ]);
    expect(interactions.forms(session.id)).toMatchObject([{ formId: 'f-1', state: 'closed' }]);
    expect(errors.mock.calls.flat().join('\n')).toMatch(/f-2/);
  });
});

describe('a damaged round', () => {
  it('is an error naming the round and its session, where session.open and the export read it', () => {
    const db = freshDb();
    const store = new SessionStore(db);
    const session = store.createSession('rounds', 'desktop');
    store.startRound(session.id, 'rounds');
    expect(store.rounds(session.id)).toEqual([{ idx: 0, request: 'rounds', status: 'running', result: null }]);
    db.prepare(`UPDATE rounds SET status = 'exploded' WHERE session_id = ?`).run(session.id);
    expect(() => store.rounds(session.id)).toThrow(new RegExp(`round 1 of session ${session.id} is damaged`));
  });
});
