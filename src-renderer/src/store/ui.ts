import { create } from 'zustand';

/** Which panels and dialogs are open: view state only, nothing the host knows about. */
export interface UiState {
  /** The step whose detail dialog is open. */
  detailStepId: string | null;
  blackboardOpen: boolean;
  settingsOpen: boolean;
  shortcutsOpen: boolean;
  /** The sessions panel, in a window too narrow to show it beside the trajectory. */
  sessionsOpen: boolean;
  /** The damaged database file whose repair notice the user closed. */
  dismissedRepair: string | null;
  openStep(stepId: string | null): void;
  setBlackboardOpen(open: boolean): void;
  setSettingsOpen(open: boolean): void;
  setShortcutsOpen(open: boolean): void;
  setSessionsOpen(open: boolean): void;
  dismissRepair(damagedFile: string): void;
}

export const useUi = create<UiState>()((set) => ({
  detailStepId: null,
  blackboardOpen: false,
  settingsOpen: false,
  shortcutsOpen: false,
  sessionsOpen: false,
  dismissedRepair: null,
  openStep: (detailStepId) => set({ detailStepId }),
  setBlackboardOpen: (blackboardOpen) => set({ blackboardOpen }),
  setSettingsOpen: (settingsOpen) => set({ settingsOpen }),
  setShortcutsOpen: (shortcutsOpen) => set({ shortcutsOpen }),
  setSessionsOpen: (sessionsOpen) => set({ sessionsOpen }),
  dismissRepair: (dismissedRepair) => set({ dismissedRepair }),
}));

/** Ids of elements that keyboard shortcuts move the focus to. */
export const FOCUS_TARGETS = {
  request: 'deskhand-request',
  sessionSearch: 'deskhand-session-search',
  trajectory: 'deskhand-trajectory',
} as const;
