import {
  TERMINAL_SESSION_STATUSES,
  type BlackboardView,
  type DamagedSessionView,
  type DatabaseRepairView,
  type FormView,
  type HostEvent,
  type Interaction,
  type PauseCause,
  type SessionDetail,
  type SessionStatus,
  type SessionView,
  type StepView,
} from '../../../src-main/protocol';
import type { BridgeConnection } from '../bridge/types';

// Pure state transitions, kept free of the bridge, React and the DOM so they can be unit-tested in Node.

export type ConnectionState = BridgeConnection;

export interface ShownError {
  /** Grows with every error so that the same message twice is still shown twice. */
  serial: number;
  message: string;
  /** 'warning' is for refusals the user can act on, like sending while a session runs. */
  severity: 'error' | 'warning' | 'success';
}

export interface DeskhandState {
  connection: ConnectionState;
  /** Every session we know of, newest first (the one on screen always among them). */
  sessions: SessionView[];
  /** What the sidebar searches for; empty: every session. */
  sessionQuery: string;
  /** Ids of the sessions the host found for `sessionQuery`; null when not searching. */
  sessionResults: string[] | null;
  /** Sessions whose stored row is damaged, as the last `session.list` found them: listed to be deleted, never opened. */
  damagedSessions: DamagedSessionView[];
  /** Set when the host repaired a damaged database at its start (from `session.list`). */
  databaseRepair: DatabaseRepairView | null;
  currentSessionId: string | null;
  /** Steps of the current session, ordered by index, unique by id. */
  steps: StepView[];
  /** What is happening in the current session now, in words from the host. */
  statusDetail: string;
  /** Why the current session's run is paused, as its last `status.changed` said (read with the status). */
  statusPause: PauseCause | null;
  /** A `session.start` or `session.continue` is on its way. */
  awaitingStart: boolean;
  /**
   * The session a `session.start` on its way makes is to be put on screen (by its `session.started`
   * event or by the reply, whichever comes first). Cleared when the user goes elsewhere meanwhile (New,
   * or opens a session): the new session is then only listed, and what the user chose stays on screen.
   */
  startTakesScreen: boolean;
  /** Questions and approvals the agent waits for, any session, in the order they came. */
  interactions: Interaction[];
  /** Agent forms (open and closed), any session, in the order they were created. */
  forms: FormView[];
  /**
   * The request of each round, by session: what the trajectory's round headers say. Round 0 is the
   * session's request; follow-ups come from our own `session.continue` or the blackboard's requests.
   */
  roundRequests: Record<string, string[]>;
  /** The blackboard of the session on screen, once fetched. */
  blackboard: { sessionId: string; view: BlackboardView } | null;
  lastError: ShownError | null;
}

export const initialState: DeskhandState = {
  connection: 'connecting',
  sessions: [],
  sessionQuery: '',
  sessionResults: null,
  damagedSessions: [],
  databaseRepair: null,
  currentSessionId: null,
  steps: [],
  statusDetail: '',
  statusPause: null,
  awaitingStart: false,
  startTakesScreen: false,
  interactions: [],
  forms: [],
  roundRequests: {},
  blackboard: null,
  lastError: null,
};

export function isSessionActive(status: SessionStatus): boolean {
  return !TERMINAL_SESSION_STATUSES.has(status);
}

export function currentSession(state: DeskhandState): SessionView | null {
  if (state.currentSessionId === null) return null;
  return state.sessions.find((session) => session.id === state.currentSessionId) ?? null;
}

/**
 * What "Send" does now. `start`: a new session. `continue`: a follow-up round in the session on screen,
 * which has ended (finished, failed, stopped, error, or interrupted by a crash). `busy`: a session still
 * runs (or waits, or is paused), the one on screen or another (`running`: the host runs one at a time and
 * refuses a second), or a start is on its way: nothing can be sent.
 */
export type RequestMode = 'start' | 'continue' | 'busy';

export function requestMode(session: SessionView | null, awaitingStart: boolean, running: SessionView | null = null): RequestMode {
  if (awaitingStart || running !== null) return 'busy';
  if (!session) return 'start';
  return isSessionActive(session.status) ? 'busy' : 'continue';
}

/** The session the host runs (or holds paused, or waiting), if any, as the sessions' statuses say. */
export function activeSession(state: Pick<DeskhandState, 'sessions'>): SessionView | null {
  return state.sessions.find((session) => isSessionActive(session.status)) ?? null;
}

/** Paused runs go on from where they stopped; interrupted ones (the app was killed) from their last committed step. */
export function canResume(session: SessionView | null): boolean {
  return session?.status === 'paused' || session?.status === 'interrupted';
}

export function canPause(session: SessionView | null): boolean {
  return session?.status === 'running' || session?.status === 'waiting';
}

export function canStop(session: SessionView | null): boolean {
  return session?.status === 'running' || session?.status === 'waiting' || session?.status === 'paused';
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

/**
 * Adds many steps at once (a burst of events, a snapshot): one copy of the array instead of one per
 * step. Same rules as `insertStep`: index order, duplicates (same id) ignored, ties after what is there.
 */
export function insertSteps(steps: StepView[], added: readonly StepView[]): StepView[] {
  if (added.length === 0) return steps;
  if (added.length === 1) return insertStep(steps, added[0] as StepView);
  const known = new Set(steps.map((step) => step.id));
  const fresh: StepView[] = [];
  for (const step of added) {
    if (known.has(step.id)) continue;
    known.add(step.id);
    fresh.push(step);
  }
  if (fresh.length === 0) return steps;
  fresh.sort((a, b) => a.index - b.index);
  const last = steps[steps.length - 1];
  if (!last || (fresh[0] as StepView).index >= last.index) return steps.concat(fresh);
  const merged: StepView[] = [];
  let i = 0;
  let j = 0;
  while (i < steps.length || j < fresh.length) {
    const mine = steps[i];
    const theirs = fresh[j];
    if (theirs === undefined || (mine !== undefined && mine.index <= theirs.index)) {
      merged.push(mine as StepView);
      i += 1;
    } else {
      merged.push(theirs);
      j += 1;
    }
  }
  return merged;
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

/** Round 0's request is the session's own; later rounds keep what we already know. */
function withFirstRequest(roundRequests: Record<string, string[]>, session: SessionView): Record<string, string[]> {
  const known = roundRequests[session.id];
  if (known?.[0] !== undefined) return roundRequests;
  const rest = known?.slice(1) ?? [];
  return { ...roundRequests, [session.id]: [session.request, ...rest] };
}

/** Records the request of one round (our own follow-up, or what the blackboard says). */
export function setRoundRequest(state: DeskhandState, sessionId: string, round: number, request: string): DeskhandState {
  const known = state.roundRequests[sessionId] ?? [];
  if (known[round] === request) return state;
  const next = [...known];
  while (next.length < round) next.push('');
  next[round] = request;
  return { ...state, roundRequests: { ...state.roundRequests, [sessionId]: next } };
}

function withoutSession(state: DeskhandState, sessionId: string): DeskhandState {
  const { [sessionId]: _dropped, ...roundRequests } = state.roundRequests;
  const isCurrent = state.currentSessionId === sessionId;
  return {
    ...state,
    sessions: state.sessions.filter((session) => session.id !== sessionId),
    sessionResults: state.sessionResults?.filter((id) => id !== sessionId) ?? null,
    damagedSessions: state.damagedSessions.filter((damaged) => damaged.id !== sessionId),
    interactions: state.interactions.filter((interaction) => interaction.sessionId !== sessionId),
    forms: state.forms.filter((form) => form.sessionId !== sessionId),
    roundRequests,
    ...(isCurrent ? { currentSessionId: null, steps: [], statusDetail: '', blackboard: null } : {}),
  };
}

export function upsertForm(forms: FormView[], form: FormView): FormView[] {
  const at = forms.findIndex((existing) => existing.formId === form.formId && existing.sessionId === form.sessionId);
  if (at === -1) return [...forms, form];
  const next = [...forms];
  next[at] = form;
  return next;
}

/** The session an event is about. */
export function eventSessionId(event: HostEvent): string {
  switch (event.kind) {
    case 'session.started':
    case 'session.updated':
      return event.session.id;
    case 'step.added':
      return event.step.sessionId;
    case 'interaction.requested':
      return event.interaction.sessionId;
    case 'form.updated':
      return event.form.sessionId;
    default:
      return event.sessionId;
  }
}

/** Events that change what the session list holds (statuses, counts, sessions gone). */
export function changesSessionList(event: HostEvent): boolean {
  return event.kind === 'session.started' || event.kind === 'session.updated' || event.kind === 'session.ended' || event.kind === 'session.deleted' || event.kind === 'status.changed';
}

/**
 * Events that can be newer than a snapshot of one session: its `session.open`, or the session view a
 * start, follow-up or resume replies with. Not its `session.started`: the host announces a session
 * before anything else of it, so every snapshot of it is newer.
 */
export function updatesSnapshotOf(sessionId: string): (event: HostEvent) => boolean {
  return (event) => event.kind !== 'session.started' && eventSessionId(event) === sessionId;
}

/** Events that change what one session waits for (its questions, approvals and forms). */
export function changesWaitsOf(sessionId: string): (event: HostEvent) => boolean {
  return (event) =>
    (event.kind === 'interaction.requested' ||
      event.kind === 'interaction.resolved' ||
      event.kind === 'form.updated' ||
      event.kind === 'session.ended' ||
      event.kind === 'session.deleted') &&
    eventSessionId(event) === sessionId;
}

export function applyHostEvent(state: DeskhandState, event: HostEvent): DeskhandState {
  switch (event.kind) {
    case 'session.started': {
      const sessions = upsertSession(state.sessions, event.session);
      const roundRequests = withFirstRequest(state.roundRequests, event.session);
      // The event can overtake the reply to our `session.start`; adopting here keeps the first steps.
      if (state.startTakesScreen && state.currentSessionId === null) {
        return {
          ...state,
          sessions,
          roundRequests,
          currentSessionId: event.session.id,
          steps: [],
          statusDetail: '',
          blackboard: null,
          awaitingStart: false,
          startTakesScreen: false,
        };
      }
      return { ...state, sessions, roundRequests };
    }
    case 'session.updated': {
      return {
        ...state,
        sessions: upsertSession(state.sessions, event.session),
        roundRequests: withFirstRequest(state.roundRequests, event.session),
      };
    }
    case 'session.ended': {
      const sessions = updateSession(state.sessions, event.sessionId, (session) => ({
        ...session,
        status: event.status,
        result: event.result,
      }));
      // An ended session waits for nothing: questions or approvals it left are moot.
      const interactions = state.interactions.filter((interaction) => interaction.sessionId !== event.sessionId);
      if (event.sessionId !== state.currentSessionId) return { ...state, sessions, interactions };
      // What the session was doing no longer holds once it ended; only its result, if any, does.
      return { ...state, sessions, interactions, statusDetail: event.result ?? '' };
    }
    case 'session.deleted':
      return withoutSession(state, event.sessionId);
    case 'status.changed': {
      const sessions = updateSession(state.sessions, event.sessionId, (session) => ({ ...session, status: event.status }));
      if (event.sessionId !== state.currentSessionId) return { ...state, sessions };
      return { ...state, sessions, statusDetail: event.detail, statusPause: event.pause ?? null };
    }
    case 'step.added':
      return applyStep(state, event.step);
    case 'interaction.requested': {
      if (state.interactions.some((interaction) => interaction.id === event.interaction.id)) return state;
      return { ...state, interactions: [...state.interactions, event.interaction] };
    }
    case 'interaction.resolved': {
      const interactions = state.interactions.filter((interaction) => interaction.id !== event.interactionId);
      return interactions.length === state.interactions.length ? state : { ...state, interactions };
    }
    case 'form.updated':
      return { ...state, forms: upsertForm(state.forms, event.form) };
  }
}

/**
 * Applies a burst of events in order, in one state change: steps of the session on screen that come
 * one after another are inserted together, which keeps thousands of step events cheap.
 */
export function applyHostEvents(state: DeskhandState, events: readonly HostEvent[]): DeskhandState {
  let next = state;
  let steps: StepView[] = [];
  const addSteps = (): void => {
    if (steps.length > 0) next = applyCurrentSteps(next, steps);
    steps = [];
  };
  for (const event of events) {
    if (event.kind === 'step.added' && event.step.sessionId === next.currentSessionId) {
      steps.push(event.step);
      continue;
    }
    addSteps();
    next = applyHostEvent(next, event);
  }
  addSteps();
  return next;
}

function applyCurrentSteps(state: DeskhandState, added: StepView[]): DeskhandState {
  const steps = insertSteps(state.steps, added);
  if (steps === state.steps) return state;
  const sessions = updateSession(state.sessions, state.currentSessionId ?? '', (session) => ({
    ...session,
    stepCount: Math.max(session.stepCount, steps.length),
  }));
  return { ...state, steps, sessions };
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

/**
 * The host's answer to `session.list`. Without a query it is every session (plus the one on screen,
 * which may be too new to be listed). With one, the sessions are merged in and only their ids make
 * the search results: the session on screen stays known either way, so Send and the status bar never
 * lose it to a search.
 */
export function applySessionList(state: DeskhandState, sessions: SessionView[], query = state.sessionQuery): DeskhandState {
  let roundRequests = state.roundRequests;
  for (const session of sessions) roundRequests = withFirstRequest(roundRequests, session);
  if (query === '') {
    const current = currentSession(state);
    const listed = current && !sessions.some((session) => session.id === current.id) ? [...sessions, current] : sessions;
    return { ...state, sessions: sortNewestFirst(listed), sessionResults: null, roundRequests };
  }
  const merged = sessions.reduce(upsertSession, state.sessions);
  return { ...state, sessions: merged, sessionResults: sessions.map((session) => session.id), roundRequests };
}

/** What the sidebar lists: the search results, or every session. */
export function listedSessions(state: DeskhandState): SessionView[] {
  const results = state.sessionResults;
  if (results === null) return state.sessions;
  const found = new Set(results);
  return state.sessions.filter((session) => found.has(session.id));
}

/** A session opened from the host's store replaces what is on screen. */
export function applySessionDetail(state: DeskhandState, detail: SessionDetail): DeskhandState {
  const sessionId = detail.session.id;
  const steps = insertSteps([], detail.steps);
  const sameSession = state.currentSessionId === sessionId;
  // Reopened (after a reconnect): what it was doing still holds only if it still does the same. A run
  // that ended (or paused) meanwhile shows its result, as `session.ended` would have.
  const before = state.sessions.find((session) => session.id === sessionId);
  const keepDetail = sameSession && isSessionActive(detail.session.status) && before?.status === detail.session.status;
  // The snapshot is the truth for this session's waiting questions and its forms.
  const interactions = [
    ...state.interactions.filter((interaction) => interaction.sessionId !== sessionId),
    ...detail.interactions,
  ];
  const forms = [...state.forms.filter((form) => form.sessionId !== sessionId), ...detail.forms];
  return {
    ...state,
    sessions: upsertSession(state.sessions, detail.session),
    roundRequests: detail.rounds.length
      ? { ...state.roundRequests, [sessionId]: detail.rounds.map((round) => round.request) }
      : withFirstRequest(state.roundRequests, detail.session),
    currentSessionId: sessionId,
    interactions,
    forms,
    // Steps that arrived live while the snapshot travelled are kept.
    steps: sameSession ? insertSteps(steps, state.steps) : steps,
    // A paused run's reason comes with it: nothing else would say it until the run goes on.
    ...(detail.pause
      ? { statusDetail: detail.pause.detail, statusPause: detail.pause.cause }
      : { statusDetail: keepDetail ? state.statusDetail : (detail.session.result ?? '') }),
    blackboard: sameSession ? state.blackboard : null,
  };
}

/**
 * The reply to our `session.start`: that session is now the one on screen, unless the user went
 * elsewhere since Send (see `startTakesScreen`); then it is only listed, for the user to open.
 */
export function applyStartedSession(state: DeskhandState, session: SessionView): DeskhandState {
  // Our own new session shows in the sidebar even while a search is on.
  const sessionResults = state.sessionResults && !state.sessionResults.includes(session.id) ? [session.id, ...state.sessionResults] : state.sessionResults;
  const listed: DeskhandState = {
    ...state,
    sessions: upsertSession(state.sessions, session),
    sessionResults,
    roundRequests: withFirstRequest(state.roundRequests, session),
    awaitingStart: false,
    startTakesScreen: false,
  };
  if (!state.startTakesScreen || state.currentSessionId === session.id) return listed;
  return { ...listed, currentSessionId: session.id, steps: [], statusDetail: '', blackboard: null };
}

/** The reply to our `session.continue`: a new round of the same session, asked with `request`. */
export function applyContinuedSession(state: DeskhandState, session: SessionView, request: string): DeskhandState {
  const withRequest = setRoundRequest(state, session.id, Math.max(0, session.roundCount - 1), request);
  return { ...withRequest, sessions: upsertSession(withRequest.sessions, session), awaitingStart: false };
}

/** The blackboard's requests are the rounds' requests, in order. */
export function applyBlackboard(state: DeskhandState, sessionId: string, view: BlackboardView): DeskhandState {
  let next: DeskhandState = { ...state, blackboard: { sessionId, view } };
  view.requests.forEach((request, round) => {
    if (request) next = setRoundRequest(next, sessionId, round, request);
  });
  return next;
}

export function showError(
  state: DeskhandState,
  message: string,
  severity: ShownError['severity'] = 'error',
): DeskhandState {
  return { ...state, lastError: { serial: (state.lastError?.serial ?? 0) + 1, message, severity } };
}

/** What waits for the user in the session on screen, oldest first. */
export function pendingInteractions(state: DeskhandState): Interaction[] {
  return state.interactions.filter((interaction) => interaction.sessionId === state.currentSessionId);
}

/**
 * Sessions other than the one on screen that wait for the user, by session, oldest first: those with
 * questions or approvals, then those listed as waiting without any, with an open form (the agent waits on it).
 */
export interface WaitingSession {
  sessionId: string;
  /** The session's title, when we know the session. */
  title: string | null;
  /** Its questions and approvals; 0 when it waits on a form alone. */
  count: number;
}

export function waitingElsewhere(state: Pick<DeskhandState, 'interactions' | 'sessions' | 'currentSessionId' | 'forms'>): WaitingSession[] {
  const bySession = new Map<string, WaitingSession>();
  for (const interaction of state.interactions) {
    if (interaction.sessionId === state.currentSessionId) continue;
    const known = bySession.get(interaction.sessionId);
    if (known) {
      known.count += 1;
      continue;
    }
    const title = state.sessions.find((session) => session.id === interaction.sessionId)?.title ?? null;
    bySession.set(interaction.sessionId, { sessionId: interaction.sessionId, title, count: 1 });
  }
  for (const session of waitingOnFormAlone(state)) {
    if (session.id === state.currentSessionId) continue;
    bySession.set(session.id, { sessionId: session.id, title: session.title, count: 0 });
  }
  return [...bySession.values()];
}

/** Sessions that wait for the user with no question or approval: their agent waits on an open form. */
function waitingOnFormAlone(state: Pick<DeskhandState, 'interactions' | 'sessions' | 'forms'>): SessionView[] {
  const asking = new Set(state.interactions.map((interaction) => interaction.sessionId));
  return state.sessions.filter(
    (session) =>
      session.status === 'waiting' &&
      !asking.has(session.id) &&
      state.forms.some((form) => form.sessionId === session.id && form.state === 'open'),
  );
}

/**
 * What waits for the user in every session, for the window title: each question and approval, and each
 * session whose agent waits on its form alone.
 */
export function waitingCount(state: Pick<DeskhandState, 'interactions' | 'sessions' | 'forms'>): number {
  return state.interactions.length + waitingOnFormAlone(state).length;
}

/**
 * Sessions other than the one on screen whose questions and approvals only the host knows for sure
 * after a reconnect (events sent while we were away are lost): those we have some of, and those listed
 * as waiting or paused (a run paused while it asked does not say `waiting`).
 */
export function sessionsToRecheck(state: Pick<DeskhandState, 'interactions' | 'sessions' | 'currentSessionId'>): string[] {
  const ids = new Set(state.interactions.map((interaction) => interaction.sessionId));
  for (const session of state.sessions) {
    if (session.status === 'waiting' || session.status === 'paused') ids.add(session.id);
  }
  ids.delete(state.currentSessionId ?? '');
  return [...ids];
}

/**
 * What the host says a session waits for (its `session.open` snapshot: questions, approvals and its
 * agent's forms) replaces what we had of it, without opening it. What came while the snapshot
 * travelled is newer: the store applies those events again on top (see `changesWaitsOf`).
 */
export function applyWaits(state: DeskhandState, sessionId: string, waiting: readonly Interaction[], forms: readonly FormView[]): DeskhandState {
  const others = state.interactions.filter((interaction) => interaction.sessionId !== sessionId);
  return {
    ...state,
    interactions: [...others, ...waiting],
    // A form its agent waits on alone makes the session wait too (waitingElsewhere, waitingCount).
    forms: [...state.forms.filter((form) => form.sessionId !== sessionId), ...forms],
  };
}

/**
 * The session Stop, Pause and Resume act on: the one on screen if it runs (or is paused), else the one
 * the host runs (it runs one at a time; the store learns it from the sessions' statuses), else the one
 * on screen.
 */
export function stopTarget(state: DeskhandState): SessionView | null {
  const current = currentSession(state);
  if (canStop(current)) return current;
  return state.sessions.find((session) => canStop(session)) ?? current;
}

/** The agent forms of the session on screen: open ones first, then closed ones, each in creation order. */
export function sessionForms(state: DeskhandState): FormView[] {
  const mine = state.forms.filter((form) => form.sessionId === state.currentSessionId);
  return [...mine.filter((form) => form.state === 'open'), ...mine.filter((form) => form.state === 'closed')];
}
