import { z } from 'zod';

/** What an agent decided at the end of a step. */
export const AgentStatus = z.enum(['CONTINUE', 'PENDING', 'CONFIRM', 'SCREENSHOT', 'FINISH', 'FAIL', 'ERROR']);
export type AgentStatus = z.infer<typeof AgentStatus>;

/** Where a session stands, as the UI and the CLI show it. */
/**
 * `waiting`: the agent waits for the user (questions, an approval). `paused`: the user took the mouse,
 * pressed Pause, or the data folder's disk ran short; the run goes on only when asked. `interrupted`:
 * the app was killed mid-run.
 */
export const SessionStatus = z.enum([
  'running',
  'waiting',
  'paused',
  'stopping',
  'finished',
  'failed',
  'error',
  'stopped',
  'interrupted',
]);
export type SessionStatus = z.infer<typeof SessionStatus>;

/** The `status.changed` detail of a run paused with the Pause button: the only pause with no more to say. */
export const PAUSED_BY_USER = 'Paused by you';

export const SessionMode = z.enum(['desktop', 'shell']);
export type SessionMode = z.infer<typeof SessionMode>;

export const TERMINAL_SESSION_STATUSES: ReadonlySet<SessionStatus> = new Set([
  'finished',
  'failed',
  'error',
  'stopped',
  'interrupted',
]);
