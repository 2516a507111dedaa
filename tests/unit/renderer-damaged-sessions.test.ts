import { describe, expect, it } from 'vitest';
import { DamagedSessionView, SessionView } from '../../src-main/protocol';
import { applyDamagedSessions, applyDatabaseRepair, damagedSessionName, repairSummary, sessionListEntries } from '../../src-renderer/src/store/damaged';
import { applyHostEvent, initialState } from '../../src-renderer/src/store/state';

function session(id: string, createdAt: number): SessionView {
  return SessionView.parse({ id, title: id, request: id, mode: 'desktop', status: 'finished', createdAt, updatedAt: createdAt, stepCount: 1, result: null });
}

function damaged(id: string, createdAt: number | null, request: string | null = `request of ${id}`): DamagedSessionView {
  return DamagedSessionView.parse({ id, createdAt, request, problem: 'status: Invalid option' });
}

describe('damaged sessions in the renderer store', () => {
  it('are listed among the sessions by start time, those without one last', () => {
    const entries = sessionListEntries([session('new', 3), session('old', 1)], [damaged('unknown-time', null), damaged('middle', 2)]);
    expect(entries.map((entry) => (entry.kind === 'session' ? entry.session.id : `damaged:${entry.damaged.id}`))).toEqual([
      'new',
      'damaged:middle',
      'old',
      'damaged:unknown-time',
    ]);
  });

  it('are replaced by each list the host sends, and go with `session.deleted` like any session', () => {
    const listed = applyDamagedSessions(initialState, [damaged('a', 1), damaged('b', 2)]);
    expect(listed.damagedSessions.map((entry) => entry.id)).toEqual(['a', 'b']);
    expect(applyDamagedSessions(initialState, [])).toBe(initialState);
    const deleted = applyHostEvent(listed, { kind: 'session.deleted', sessionId: 'a' });
    expect(deleted.damagedSessions.map((entry) => entry.id)).toEqual(['b']);
  });

  it('are named by their request, or by their id when it cannot be read', () => {
    expect(damagedSessionName(damaged('a', 1, '  rename\n the files '))).toBe('rename the files');
    expect(damagedSessionName(damaged('a', 1, null))).toBe('Session a');
  });
});

describe('the database repair notice', () => {
  const repair = { damagedFile: '/data/deskhand.sqlite.damaged-x', reason: 'file is not a database', sessions: 1, steps: 1, rebuiltSessions: 0, partsLost: false };

  it('says what was read back, in the singular and plural, and whether anything is missing', () => {
    expect(repairSummary(repair)).toBe(
      'Deskhand found its database damaged at start-up and set it aside. 1 session and 1 step were read back into a new one. Nothing was lost.',
    );
    expect(repairSummary({ ...repair, sessions: 1_204, steps: 30_001, rebuiltSessions: 1, partsLost: true })).toBe(
      'Deskhand found its database damaged at start-up and set it aside. 1,204 sessions and 30,001 steps were read back into a new one ' +
        '(1 session rebuilt from its steps). Parts of it could not be read, and what was on them is missing.',
    );
  });

  it('is taken from a list reply once, and cleared by a host that repaired nothing', () => {
    const repaired = applyDatabaseRepair(initialState, repair);
    expect(repaired.databaseRepair).toEqual(repair);
    expect(applyDatabaseRepair(repaired, { ...repair })).toBe(repaired);
    expect(applyDatabaseRepair(repaired, null).databaseRepair).toBeNull();
  });
});
