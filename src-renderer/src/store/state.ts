import {
  TERMINAL_SESSION_STATUSES,
  type HostEvent,
  type SessionDetail,
  type SessionStatus,
  type SessionView,
  type StepView,
} from '../../../src-main/protocol';

// Pure state transitions, kept free of the bridge, React and the DOM so they can be unit-tested in Node.

export type ConnectionState = 'connecting' | 'connected' | 'disconnected';

export interface ShownError {
  /** Grows with every error so that the same message twice is still shown twice. */
  serial: number;
  message: string;
  /** 'warning' is for refusals the user can act on, like sending while a session runs. */
  severity: 'error' | 'warning';
}

export interface DeskhandState {
  connection: ConnectionState;
  /** Newest first. */
  sessions: SessionView[];
  currentSessionId: string | null;
  /** Steps of the current session, ordered by index, unique by id. */
  steps: StepView[];
  /** What is happening in the current session now, in words from the host. */
  statusDetail: string;
  /** A `session.start` is on its way; the session it creates becomes the current one. */
  awaitingStart: boolean;
  lastError: ShownError | null;
}

export const initialState: DeskhandState = {
  connection: 'connecting',
  sessions: [],
  currentSessionId: null,
  steps: [],
  statusDetail: '',
  awaitingStart: false,
  lastError: null,
};

export function isSessionActive(status: SessionStatus): boolean {
  return !TERMINAL_SESSION_STATUSES.has(status);
}

export function currentSession(state: DeskhandState): SessionView | null {
  if (state.currentSessionId === null) return null;
  return state.sessions.find((session) => session.id === state.currentSessionId) ?? null;
}

/** Adds a step in index order; a step already present (same id) is ignored. Returns `steps` itself when unchanged. */
export function insertStep(steps: StepView[], step: StepView): StepView[] {
  // Scanning from the end: duplicates and late arrivals are nearly always recent steps.
  for (let i = steps.length - 1; i >= 0; i -= 1) {
    if (steps[i]?.id === step.id) return steps;
  }
  let position = steps.length;
  while (position > 0 && (steps[position - 1]?.index ?? -1) > step.index) position -= 1;
  if (position === steps.length) return [...steps, step];
  return [...steps.slice(0, position), step, ...steps.slice(position)];
}

/** Replaces the session with the same id or adds it, keeping newest first. */
export function upsertSession(sessions: SessionView[], session: SessionView): SessionView[] {
  const others = sessions.filter((existing) => existing.id !== session.id);
  return sortNewestFirst([session, ...others]);
}

function sortNewestFirst(sessions: SessionView[]): SessionView[] {
  return [...sessions].sort((a, b) => b.createdAt - a.createdAt);
}

function updateSession(
  sessions: SessionView[],
  sessionId: string,
  change: (session: SessionView) => SessionView,
): SessionView[] {
  let changed = false;
  const next = sessions.map((session) => {
    if (session.id !== sessionId) return session;
    changed = true;
    return change(session);
  });
  return changed ? next : sessions;
}

export function applyHostEvent(state: DeskhandState, event: HostEvent): DeskhandState {
  switch (event.kind) {
    case 'session.started': {
      const sessions = upsertSession(state.sessions, event.session);
      // The event can overtake the reply to our `session.start`; adopting here keeps the first steps.
      if (state.awaitingStart && state.currentSessionId !== event.session.id) {
        return { ...state, sessions, currentSessionId: event.session.id, steps: [], statusDetail: '', awaitingStart: false };
      }
      return { ...state, sessions };
    }
    case 'session.ended': {
      const sessions = updateSession(state.sessions, event.sessionId, (session) => ({
        ...session,
        status: event.status,
        result: event.result,
      }));
      if (event.sessionId !== state.currentSessionId) return { ...state, sessions };
      // What the session was doing no longer holds once it ended; only its result, if any, does.
      return { ...state, sessions, statusDetail: event.result ?? '' };
    }
    case 'status.changed': {
      const sessions = updateSession(state.sessions, event.sessionId, (session) => ({ ...session, status: event.status }));
      if (event.sessionId !== state.currentSessionId) return { ...state, sessions };
      return { ...state, sessions, statusDetail: event.detail };
    }
    case 'step.added':
      return applyStep(state, event.step);
  }
}

function applyStep(state: DeskhandState, step: StepView): DeskhandState {
  if (step.sessionId !== state.currentSessionId) {
    // Only the sidebar's count changes for sessions not on screen; their steps load when opened.
    const sessions = updateSession(state.sessions, step.sessionId, (session) => ({
      ...session,
      stepCount: session.stepCount + 1,
    }));
    return sessions === state.sessions ? state : { ...state, sessions };
  }
  const steps = insertStep(state.steps, step);
  if (steps === state.steps) return state;
  const sessions = updateSession(state.sessions, step.sessionId, (session) => ({
    ...session,
    stepCount: Math.max(session.stepCount, steps.length),
  }));
  return { ...state, steps, sessions };
}

export function applySessionList(state: DeskhandState, sessions: SessionView[]): DeskhandState {
  return { ...state, sessions: sortNewestFirst(sessions) };
}

/** A session opened from the host's store replaces what is on screen. */
export function applySessionDetail(state: DeskhandState, detail: SessionDetail): DeskhandState {
  const steps = detail.steps.reduce<StepView[]>(insertStep, []);
  const sameSession = state.currentSessionId === detail.session.id;
  return {
    ...state,
    sessions: upsertSession(state.sessions, detail.session),
    currentSessionId: detail.session.id,
    // Steps that arrived live while the snapshot travelled are kept.
    steps: sameSession ? state.steps.reduce(insertStep, steps) : steps,
    statusDetail: sameSession ? state.statusDetail : (detail.session.result ?? ''),
  };
}

/** The reply to our `session.start`: that session is now the one on screen. */
export function applyStartedSession(state: DeskhandState, session: SessionView): DeskhandState {
  const sessions = upsertSession(state.sessions, session);
  if (state.currentSessionId === session.id) return { ...state, sessions, awaitingStart: false };
  return { ...state, sessions, currentSessionId: session.id, steps: [], statusDetail: '', awaitingStart: false };
}

export function showError(
  state: DeskhandState,
  message: string,
  severity: ShownError['severity'] = 'error',
): DeskhandState {
  return { ...state, lastError: { serial: (state.lastError?.serial ?? 0) + 1, message, severity } };
}
