import type { DamagedSessionView, SessionView } from '../../../src-main/protocol';
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
