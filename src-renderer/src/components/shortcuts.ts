import { MOD_KEY } from './labels';

export interface Shortcut {
  keys: string;
  what: string;
}

export interface ShortcutGroup {
  title: string;
  shortcuts: Shortcut[];
}

/** Every keyboard shortcut, as the "Keyboard shortcuts" dialog lists them. */
export const SHORTCUT_GROUPS: ShortcutGroup[] = [
  {
    title: 'Anywhere',
    shortcuts: [
      { keys: '?', what: 'Show these shortcuts' },
      { keys: '/', what: 'Type a request' },
      { keys: `${MOD_KEY}+K`, what: 'Search sessions' },
      { keys: 'T', what: 'Go to the trajectory' },
      { keys: 'B', what: 'Open or close the blackboard' },
      { keys: `${MOD_KEY}+,`, what: 'Settings' },
      { keys: `${MOD_KEY}+.`, what: 'Stop the running session, even if another is on screen' },
      { keys: 'Tab / Shift+Tab', what: 'Move between controls' },
    ],
  },
  {
    title: 'Request box',
    shortcuts: [
      { keys: 'Enter', what: 'Send (a follow-up when the session has ended)' },
      { keys: 'Shift+Enter', what: 'New line' },
    ],
  },
  {
    title: 'Approval of a held step',
    shortcuts: [
      { keys: `${MOD_KEY}+Enter`, what: 'Approve (the request box too)' },
      { keys: 'Esc', what: 'Reject (outside text fields; first closes a message or dialog, and not just after)' },
    ],
  },
  {
    title: 'Trajectory',
    shortcuts: [
      { keys: '↑ / ↓', what: 'Previous / next step' },
      { keys: 'Page Up / Page Down', what: 'A screen up / down' },
      { keys: 'Home / End', what: 'First / newest step' },
      { keys: 'Enter', what: 'Open the step detail' },
    ],
  },
  {
    title: 'Step detail',
    shortcuts: [
      { keys: 'Alt+← / Alt+→', what: 'Previous / next step' },
      { keys: 'A', what: 'Clean or annotated screenshot' },
      { keys: '+ / −', what: 'Zoom in / out' },
      { keys: '0 / 1', what: 'Fit / 100%' },
      { keys: 'Esc', what: 'Close' },
    ],
  },
];
