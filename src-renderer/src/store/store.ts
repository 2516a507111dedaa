import { createStore, type StoreApi } from 'zustand/vanilla';
import { SessionTitle, type CommandResult, type FormView, type HostEvent, type SessionMode, type SessionView, type StepDetail } from '../../../src-main/protocol';
import { HostCommandError } from '../bridge/errors';
import type { Bridge } from '../bridge/types';
import { applyDamagedSessions, applyDatabaseRepair } from './damaged';
import {
  activeSession,
  applyBlackboard,
  applyContinuedSession,
  applyHostEvent,
  applyHostEvents,
  applySessionDetail,
  applySessionList,
  applyStartedSession,
  applyWaits,
  changesSessionList,
  changesWaitsOf,
  currentSession,
  initialState,
  requestMode,
  sessionsToRecheck,
  showError,
  stopTarget,
  updatesSnapshotOf,
  upsertSession,
  type DeskhandState,
  type ShownError,
} from './state';

export interface DeskhandActions {
  /**
   * Sends `text`: a new session, or a follow-up round when the session on screen has ended.
   * Resolves false when it was not sent (busy, empty, or refused).
   */
  /** `agentMode` applies to a new session only: a follow-up goes on in its session's mode. */
  sendRequest(text: string, agentMode?: SessionMode): Promise<boolean>;
  stop(): Promise<void>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  openSession(sessionId: string): Promise<void>;
  /** Lists sessions; with `query`, only those matching it (the host searches). */
  refreshSessions(query?: string): Promise<void>;
  /** Asks the host what the sessions not on screen wait for (see `sessionsToRecheck`); for after a reconnect. */
  refreshWaits(): Promise<void>;
  /** Clears the screen for a new request; past sessions stay in the sidebar. */
  newSession(): void;
  deleteSession(sessionId: string): Promise<boolean>;
  /**
   * Gives a session a title of the user's own (checked as the host checks it). Resolves null once
   * renamed, else why not, in words for the rename field (not shown as a message: the field says it).
   */
  renameSession(sessionId: string, title: string): Promise<string | null>;
  /** The session as one JSON document, or null when the host refused (the error is shown). */
  exportSession(sessionId: string): Promise<CommandResult<'session.export'> | null>;
  stepDetail(stepId: string): Promise<StepDetail>;
  /** Fetches the blackboard of the session on screen; false when the host refused (the error is shown). */
  refreshBlackboard(): Promise<boolean>;
  answer(interactionId: string, answers: string[]): Promise<boolean>;
  decide(interactionId: string, approved: boolean, note?: string): Promise<boolean>;
  /** A value change (debounced by the caller) or a button press in an agent form (forms are told apart by session and id). */
  sendFormEvent(form: Pick<FormView, 'sessionId' | 'formId'>, path: string, value: unknown, action: string | null): Promise<boolean>;
  notify(message: string, severity?: ShownError['severity']): void;
  dismissError(): void;
}

export type DeskhandStore = StoreApi<DeskhandState & DeskhandActions>;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A host's or a schema's message ("the title is empty") as a sentence for a field ("The title is empty."). */
function sentence(message: string): string {
  const text = message.trim();
  if (!text) return text;
  return `${text[0]?.toUpperCase() ?? ''}${text.slice(1)}${/[.!?…]$/.test(text) ? '' : '.'}`;
}

/**
 * Why a request cannot be sent now. "Wait for it to end" would be wrong while the agent waits on the
 * user or is paused: waiting ends nothing.
 */
function busyMessage(running: SessionView | null, onScreen: SessionView | null): string {
  const here = !running || running.id === onScreen?.id;
  const name = running ? `“${running.title || running.request}”` : '';
  if (running?.status === 'waiting') {
    return here
      ? 'The agent is waiting for you: reply to it, or Stop it, before sending more.'
      : `${name} is waiting for you: reply to it, or Stop it, before sending a request.`;
  }
  if (running?.status === 'paused') {
    return here ? 'This session is paused: Resume or Stop it before sending more.' : `${name} is paused: Resume or Stop it before sending a request.`;
  }
  return `Deskhand is busy ${here ? 'with this session' : `with ${name}`}. Stop it, or wait for it to end.`;
}

/**
 * A lone event is applied at once (before the browser's next frame, so it shows in that frame); events
 * that follow within this many ms wait and are applied together, so a burst costs one render per frame.
 */
const EVENT_BATCH_MS = 16;

export function createDeskhandStore(bridge: Bridge): DeskhandStore {
  /**
   * The user's last choice of what to show: a `session.open` still on its way (`sessionId`), or none.
   * A new object per choice, so an older open's reply can tell it was overtaken and is dropped.
   */
  let screenRequest: { sessionId: string | null } = { sessionId: null };
  const requestScreen = (sessionId: string | null): { sessionId: string | null } => {
    screenRequest = { sessionId };
    return screenRequest;
  };
  /**
   * The events received while a reply that carries a snapshot travels (`session.open`, `session.list`,
   * and the session view of `session.start`, `session.continue`, `session.resume`), one log per request.
   * The host takes a snapshot before its reply leaves, and events sent meanwhile can arrive first: they
   * are applied again on top of the snapshot, or a step would be lost and an ended run shown as running.
   */
  const eventLogs = new Set<HostEvent[]>();
  const withEventsSince = async <T>(reply: Promise<T>): Promise<{ result: T; since: HostEvent[] }> => {
    const since: HostEvent[] = [];
    eventLogs.add(since);
    try {
      return { result: await reply, since };
    } finally {
      eventLogs.delete(since);
    }
  };
  let queued: HostEvent[] = [];
  let flushTimer: ReturnType<typeof setTimeout> | null = null;
  let flushScheduled = false;
  let lastFlush = -Infinity;
  /** Applies the events that wait for the next batch; called before any reply is applied, to keep the order. */
  const flushEvents = (): void => {
    if (flushTimer !== null) clearTimeout(flushTimer);
    flushTimer = null;
    flushScheduled = false;
    if (queued.length === 0) return;
    lastFlush = performance.now();
    const events = queued;
    queued = [];
    store.setState((state) => applyHostEvents(state, events));
  };

  const store = createStore<DeskhandState & DeskhandActions>()((rawSet, get) => {
    type Change = Partial<DeskhandState> | ((state: DeskhandState & DeskhandActions) => Partial<DeskhandState>);
    const set = (change: Change): void => {
      flushEvents();
      rawSet(change);
    };
    const reportError = (error: unknown): void => {
      set((state) => showError(state, messageOf(error)));
    };
    /**
     * Applies a reply's snapshot, then again the events of `since` (see `withEventsSince`) that
     * `mayBeNewer` selects: only those about what the snapshot holds, as each must change nothing when
     * applied twice (a step of a session not on screen, replayed, would be counted twice).
     */
    const setFromSnapshot = (
      since: readonly HostEvent[],
      mayBeNewer: (event: HostEvent) => boolean,
      applySnapshot: (state: DeskhandState) => DeskhandState,
    ): void => {
      set((state) => applyHostEvents(applySnapshot(state), since.filter(mayBeNewer)));
    };

    /** The user chose another screen while a start is on its way: its session is to be listed, not shown. */
    const leaveStartOffScreen = (): void => {
      if (get().startTakesScreen) set({ startTakesScreen: false });
    };

    /** Runs a command for the session on screen; false when there is none or the host refused. */
    const forCurrent = async (run: (sessionId: string) => Promise<unknown>): Promise<boolean> => {
      const sessionId = get().currentSessionId;
      if (sessionId === null) return false;
      try {
        await run(sessionId);
        return true;
      } catch (error) {
        reportError(error);
        return false;
      }
    };

    /** Stop, Pause and Resume: the running session, even when another one (or none: "New") is on screen. */
    const forRunTarget = async (run: (sessionId: string) => Promise<void>): Promise<void> => {
      const sessionId = stopTarget(get())?.id;
      if (sessionId === undefined) return;
      try {
        await run(sessionId);
      } catch (error) {
        reportError(error);
      }
    };

    /** Runs a command for the session an interaction belongs to (not necessarily the one on screen). */
    const forInteraction = async (interactionId: string, run: (sessionId: string) => Promise<unknown>): Promise<boolean> => {
      const interaction = get().interactions.find((candidate) => candidate.id === interactionId);
      if (!interaction) return forCurrent(run);
      try {
        await run(interaction.sessionId);
        return true;
      } catch (error) {
        reportError(error);
        return false;
      }
    };

    return {
      ...initialState,

      async sendRequest(text, agentMode = 'desktop') {
        const request = text.trim();
        if (!request) return false;
        const state = get();
        const session = currentSession(state);
        const running = activeSession(state);
        const mode = requestMode(session, state.awaitingStart, running);
        if (mode === 'busy') {
          set((current) => showError(current, busyMessage(running, session), 'warning'));
          return false;
        }
        // What is sent is what the user wants on screen, not a session still loading.
        requestScreen(null);
        set({ awaitingStart: true, startTakesScreen: mode === 'start' });
        try {
          if (mode === 'continue' && session) {
            const { result, since } = await withEventsSince(bridge.send({ type: 'session.continue', sessionId: session.id, request }));
            setFromSnapshot(since, updatesSnapshotOf(session.id), (current) => applyContinuedSession(current, result.session, request));
            return true;
          }
          const { result, since } = await withEventsSince(bridge.send({ type: 'session.start', request, mode: agentMode }));
          // Every event of the new session came after this request: replayed, they are all its steps so far.
          setFromSnapshot(since, updatesSnapshotOf(result.session.id), (current) => applyStartedSession(current, result.session));
          return true;
        } catch (error) {
          set({ awaitingStart: false, startTakesScreen: false });
          reportError(error);
          return false;
        }
      },

      async stop() {
        await forRunTarget(async (sessionId) => {
          const result = await bridge.send({ type: 'session.stop', sessionId });
          if (result.stopped) return;
          // A Stop from another window came first: its "stopping" arrived before this reply (set applies
          // the events that wait for their batch before it reads the state).
          set((state) => {
            const stopping = state.sessions.some((session) => session.id === sessionId && session.status === 'stopping');
            return showError(state, stopping ? 'It is already stopping.' : 'The session had already ended.', 'warning');
          });
        });
      },

      async pause() {
        await forRunTarget(async (sessionId) => {
          const result = await bridge.send({ type: 'session.pause', sessionId });
          if (!result.paused) set((state) => showError(state, 'The session was not running, so there was nothing to pause.', 'warning'));
        });
      },

      async resume() {
        await forRunTarget(async (sessionId) => {
          const { result, since } = await withEventsSince(bridge.send({ type: 'session.resume', sessionId }));
          setFromSnapshot(since, updatesSnapshotOf(sessionId), (state) => ({ ...state, sessions: upsertSession(state.sessions, result.session) }));
        });
      },

      async openSession(sessionId) {
        const request = requestScreen(sessionId);
        leaveStartOffScreen();
        try {
          const { result: detail, since } = await withEventsSince(bridge.send({ type: 'session.open', sessionId }));
          // The user may have opened another session (or "New") while this one loaded: the last wins.
          if (request !== screenRequest) return;
          screenRequest = { sessionId: null };
          setFromSnapshot(since, updatesSnapshotOf(sessionId), (state) => applySessionDetail(state, detail));
        } catch (error) {
          if (request !== screenRequest) return;
          screenRequest = { sessionId: null };
          reportError(error);
        }
      },

      async refreshSessions(query = get().sessionQuery) {
        const trimmed = query.trim();
        set({ sessionQuery: trimmed });
        try {
          const { result, since } = await withEventsSince(bridge.send(trimmed ? { type: 'session.list', query: trimmed } : { type: 'session.list' }));
          // A slower answer to an older search must not replace a newer one.
          if (get().sessionQuery !== trimmed) return;
          setFromSnapshot(since, changesSessionList, (state) =>
            applyDatabaseRepair(applyDamagedSessions(applySessionList(state, result.sessions, trimmed), result.damaged), result.repair),
          );
        } catch (error) {
          reportError(error);
        }
      },

      async refreshWaits() {
        // The sidebar may show a search's matches only: which sessions wait is asked of all of them.
        let sessions = get().sessions;
        if (get().sessionQuery) {
          try {
            sessions = (await bridge.send({ type: 'session.list' })).sessions;
          } catch {
            return; // the connection dropped again: the next connect asks again
          }
        }
        await Promise.all(
          sessionsToRecheck({ ...get(), sessions }).map(async (sessionId) => {
            try {
              const { result: detail, since } = await withEventsSince(bridge.send({ type: 'session.open', sessionId }));
              setFromSnapshot(since, changesWaitsOf(sessionId), (state) => applyWaits(state, sessionId, detail.interactions, detail.forms));
            } catch (error) {
              // Deleted while we were away: it waits for nothing. Otherwise (the connection dropped
              // again) what we had stays, and the next connect asks again.
              if (error instanceof HostCommandError && error.code === 'not_found') {
                set((state) => applyWaits(state, sessionId, [], []));
              }
            }
          }),
        );
      },

      newSession() {
        requestScreen(null);
        set({ currentSessionId: null, steps: [], statusDetail: '', blackboard: null, startTakesScreen: false });
      },

      async deleteSession(sessionId) {
        try {
          await bridge.send({ type: 'session.delete', sessionId });
          // The `session.deleted` event does the same; applying it here too covers a host that only replies.
          set((state) => applyHostEvent(state, { kind: 'session.deleted', sessionId }));
          return true;
        } catch (error) {
          reportError(error);
          return false;
        }
      },

      async renameSession(sessionId, title) {
        const checked = SessionTitle.safeParse(title);
        if (!checked.success) return sentence(checked.error.issues[0]?.message ?? 'the title cannot be used');
        try {
          const { result, since } = await withEventsSince(bridge.send({ type: 'session.rename', sessionId, title: checked.data }));
          // The `session.updated` event says the same; the reply covers a host that only replies.
          setFromSnapshot(since, updatesSnapshotOf(sessionId), (state) =>
            state.sessions.some((session) => session.id === sessionId) ? { ...state, sessions: upsertSession(state.sessions, result.session) } : state,
          );
          return null;
        } catch (error) {
          return sentence(messageOf(error).replace(/^invalid command: title: /, ''));
        }
      },

      async exportSession(sessionId) {
        try {
          return await bridge.send({ type: 'session.export', sessionId });
        } catch (error) {
          reportError(error);
          return null;
        }
      },

      async stepDetail(stepId) {
        const sessionId = get().currentSessionId;
        if (sessionId === null) throw new Error('No session is open.');
        return bridge.send({ type: 'step.detail', sessionId, stepId });
      },

      async refreshBlackboard() {
        const sessionId = get().currentSessionId;
        if (sessionId === null) return true;
        try {
          const view = await bridge.send({ type: 'blackboard.get', sessionId });
          if (get().currentSessionId === sessionId) set((state) => applyBlackboard(state, sessionId, view));
          return true;
        } catch (error) {
          reportError(error);
          return false;
        }
      },

      async answer(interactionId, answers) {
        return forInteraction(interactionId, (sessionId) => bridge.send({ type: 'interaction.answer', sessionId, interactionId, answers }));
      },

      async decide(interactionId, approved, note) {
        const trimmed = note?.trim();
        return forInteraction(interactionId, (sessionId) =>
          bridge.send({ type: 'interaction.decide', sessionId, interactionId, approved, ...(trimmed ? { note: trimmed } : {}) }),
        );
      },

      async sendFormEvent({ sessionId, formId }, path, value, action) {
        if (!get().forms.some((form) => form.sessionId === sessionId && form.formId === formId)) return false;
        try {
          await bridge.send({ type: 'form.event', sessionId, formId, path, value, action });
          return true;
        } catch (error) {
          reportError(error);
          return false;
        }
      },

      notify(message, severity = 'success') {
        set((state) => showError(state, message, severity));
      },

      dismissError() {
        set({ lastError: null });
      },
    };
  });

  // A microtask or a timer, not requestAnimationFrame: frames stop in a hidden window, and a held step
  // must still be noticed there (title, notification).
  bridge.onEvent((event) => {
    for (const log of eventLogs) log.push(event);
    queued.push(event);
    if (flushScheduled) return;
    flushScheduled = true;
    const wait = lastFlush + EVENT_BATCH_MS - performance.now();
    if (wait <= 0) queueMicrotask(flushEvents);
    else flushTimer = setTimeout(flushEvents, wait);
  });
  bridge.onError((error) => store.setState((state) => showError(state, error.message)));
  bridge.onConnection((connection) => {
    store.setState({ connection });
    if (connection !== 'connected') return;
    // After a (re)connect, anything sent while we were away is only in the host's store. A session
    // the user asked for whose reply did not come yet is the one to show, not the one it replaces.
    // Other sessions' waits are asked for once the list has said which sessions wait now.
    const { refreshSessions, openSession, currentSessionId } = store.getState();
    void refreshSessions().then(() => store.getState().refreshWaits());
    const wanted = screenRequest.sessionId ?? currentSessionId;
    if (wanted !== null) void openSession(wanted);
  });

  return store;
}
