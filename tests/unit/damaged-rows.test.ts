import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BlackboardStore } from '../../src-main/memory/blackboard-store';
import { openDatabase, type Db } from '../../src-main/memory/database';
import { SessionStore, type NewStep } from '../../src-main/memory/session-store';

/**
 * What a damaged row (a bad disk, a hand edit, a record of an older Deskhand whose shape has changed since)
 * does: a clear error for the one thing it belongs to, never a host that cannot start or list its sessions.
 */

function freshDb(): Db {
  return openDatabase(join(mkdtempSync(join(tmpdir(), 'deskhand-damaged-')), 'deskhand.sqlite'));
}

const step: NewStep = {
  round: 0,
  agent: 'AppAgent',
  target: null,
  subtask: null,
  status: 'CONTINUE',
  observation: 'o',
  thought: 't',
  plan: [],
  comment: '',
  action: null,
  actionText: 'No action',
  result: null,
  error: null,
  modelReply: null,
  promptText: null,
  screenshot: null,
  annotated: null,
  startedAt: 1,
  durationMs: 1,
  phaseMs: {},
  tokens: { prompt: 0, completion: 0 },
  costUsd: null,
  approvedBy: null,
};

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
});
