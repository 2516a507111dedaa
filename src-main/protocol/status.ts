import { z } from 'zod';

/** What an agent decided at the end of a step. */
export const AgentStatus = z.enum(['CONTINUE', 'PENDING', 'CONFIRM', 'SCREENSHOT', 'FINISH', 'FAIL', 'ERROR']);
export type AgentStatus = z.infer<typeof AgentStatus>;

/**
 * Why a step's action did not run, when it was held back rather than tried: `rejected`, the user said
 * Reject on its approval card; `paused`, the run was paused before it acted; `refused`, the safety
 * policy's never-run rule stopped it; `taken-over`, the user had taken the mouse, so none of it ran;
 * `stopped`, Stop came before any of it ran (after the user approved it, say). Null (on the step) for
 * every other step, one that ran (in part, too) or failed.
 */
export const NotRun = z.enum(['rejected', 'paused', 'refused', 'taken-over', 'stopped']);
export type NotRun = z.infer<typeof NotRun>;

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

/**
 * Why a run is paused: the Pause button (`user`), the user taking the mouse (`takeover`), or too little
 * room left on the data folder's disk (`disk`), which is the one that may come while nobody watches.
 */
export const PauseCause = z.enum(['user', 'takeover', 'disk']);
export type PauseCause = z.infer<typeof PauseCause>;

export const SessionMode = z.enum(['desktop', 'shell']);
export type SessionMode = z.infer<typeof SessionMode>;

export const TERMINAL_SESSION_STATUSES: ReadonlySet<SessionStatus> = new Set([
  'finished',
  'failed',
  'error',
  'stopped',
  'interrupted',
]);
