import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Bridge } from '../bridge';
import {
  applyHostEvent,
  applySessionDetail,
  applySessionList,
  applyStartedSession,
  currentSession,
  initialState,
  isSessionActive,
  showError,
  type DeskhandState,
} from './state';

export interface DeskhandActions {
  /** Starts a session for `text`; resolves false when it was not sent (busy, empty, or refused). */
  sendRequest(text: string): Promise<boolean>;
  stop(): Promise<void>;
  openSession(sessionId: string): Promise<void>;
  refreshSessions(): Promise<void>;
  /** Clears the screen for a new request; past sessions stay in the sidebar. */
  newSession(): void;
  dismissError(): void;
}

export type DeskhandStore = StoreApi<DeskhandState & DeskhandActions>;

export function createDeskhandStore(bridge: Bridge): DeskhandStore {
  const store = createStore<DeskhandState & DeskhandActions>()((set, get) => {
    const reportError = (error: unknown): void => {
      const message = error instanceof Error ? error.message : String(error);
      set((state) => showError(state, message));
    };

    return {
      ...initialState,

      async sendRequest(text) {
        const request = text.trim();
        if (!request) return false;
        const state = get();
        const session = currentSession(state);
        if (state.awaitingStart || (session && isSessionActive(session.status))) {
          set((current) => showError(current, 'Deskhand is busy with the current request. Stop it or wait for it to end.', 'warning'));
          return false;
        }
        set({ awaitingStart: true });
        try {
          const result = await bridge.send({ type: 'session.start', request });
          const adoptedEarly = get().currentSessionId === result.session.id;
          set((current) => applyStartedSession(current, result.session));
          // Without the `session.started` event first, steps sent before this reply went unseen: fetch them.
          if (!adoptedEarly) void get().openSession(result.session.id);
          return true;
        } catch (error) {
          set({ awaitingStart: false });
          reportError(error);
          return false;
        }
      },

      async stop() {
        const sessionId = get().currentSessionId;
        if (sessionId === null) return;
        try {
          const result = await bridge.send({ type: 'session.stop', sessionId });
          if (!result.stopped) set((state) => showError(state, 'The session had already ended.', 'warning'));
        } catch (error) {
          reportError(error);
        }
      },

      async openSession(sessionId) {
        try {
          const detail = await bridge.send({ type: 'session.open', sessionId });
          set((state) => applySessionDetail(state, detail));
        } catch (error) {
          reportError(error);
        }
      },

      async refreshSessions() {
        try {
          const result = await bridge.send({ type: 'session.list' });
          set((state) => applySessionList(state, result.sessions));
        } catch (error) {
          reportError(error);
        }
      },

      newSession() {
        set({ currentSessionId: null, steps: [], statusDetail: '' });
      },

      dismissError() {
        set({ lastError: null });
      },
    };
  });

  bridge.onEvent((event) => store.setState((state) => applyHostEvent(state, event)));
  bridge.onError((error) => store.setState((state) => showError(state, error.message)));
  bridge.onConnection((connection) => {
    store.setState({ connection });
    if (connection !== 'connected') return;
    // After a (re)connect, anything sent while we were away is only in the host's store.
    const { refreshSessions, openSession, currentSessionId } = store.getState();
    void refreshSessions();
    if (currentSessionId !== null) void openSession(currentSessionId);
  });

  return store;
}
