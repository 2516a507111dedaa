import type { DamagedSessionView, DatabaseRepairView, SessionView } from '../../../src-main/protocol';
import type { DeskhandState } from './state';

/** The damaged sessions a `session.list` reply found (for a search: those matching it) replace what we had. */
export function applyDamagedSessions(state: DeskhandState, damaged: DamagedSessionView[]): DeskhandState {
  if (damaged.length === 0 && state.damagedSessions.length === 0) return state;
  return { ...state, damagedSessions: damaged };
}

/** One row of the sidebar's list: a session, or a damaged one that can only be deleted. */
export type SessionListEntry = { kind: 'session'; session: SessionView } | { kind: 'damaged'; damaged: DamagedSessionView };

/** What a damaged session is called where a session shows its title: its request, or its id when that is unreadable. */
export function damagedSessionName(damaged: DamagedSessionView): string {
  return damaged.request?.replace(/\s+/g, ' ').trim() || `Session ${damaged.id}`;
}

/**
 * The listed sessions with the damaged ones among them, newest first like the sessions; a damaged one
 * whose start time cannot be read goes last.
 */
export function sessionListEntries(sessions: readonly SessionView[], damaged: readonly DamagedSessionView[]): SessionListEntry[] {
  const entries: Array<SessionListEntry & { at: number }> = [
    ...sessions.map((session) => ({ kind: 'session' as const, session, at: session.createdAt })),
    ...damaged.map((entry) => ({ kind: 'damaged' as const, damaged: entry, at: entry.createdAt ?? -Infinity })),
  ];
  if (damaged.length > 0) entries.sort((a, b) => b.at - a.at);
  return entries.map(({ at: _at, ...entry }) => entry);
}

/** What the host's start did with a damaged database, from a `session.list` reply (the same on every one). */
export function applyDatabaseRepair(state: DeskhandState, repair: DatabaseRepairView | null): DeskhandState {
  if (state.databaseRepair?.damagedFile === repair?.damagedFile) return state;
  return { ...state, databaseRepair: repair };
}

const counted = (n: number, one: string, many: string): string => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** The repair notice's words: what was read back, and whether anything is missing. */
export function repairSummary(repair: DatabaseRepairView): string {
  const rebuilt = repair.rebuiltSessions > 0 ? ` (${counted(repair.rebuiltSessions, 'session', 'sessions')} rebuilt from ${repair.rebuiltSessions === 1 ? 'its' : 'their'} steps)` : '';
  const lost = repair.partsLost ? ' Parts of it could not be read, and what was on them is missing.' : ' Nothing was lost.';
  return (
    `Deskhand found its database damaged at start-up and set it aside. ` +
    `${counted(repair.sessions, 'session', 'sessions')} and ${counted(repair.steps, 'step', 'steps')} were read back into a new one${rebuilt}.${lost}`
  );
}
