import type { AgentStatus, NotRun, SessionStatus, TokenUsage } from '../../../src-main/protocol';

export const SESSION_STATUS_LABELS: Record<SessionStatus, string> = {
  running: 'Running',
  waiting: 'Waiting for you',
  paused: 'Paused',
  stopping: 'Stopping',
  finished: 'Finished',
  failed: 'Failed',
  error: 'Error',
  stopped: 'Stopped',
  interrupted: 'Interrupted',
};

export type ChipColor = 'default' | 'primary' | 'secondary' | 'error' | 'info' | 'success' | 'warning';

export const SESSION_STATUS_COLORS: Record<SessionStatus, ChipColor> = {
  running: 'primary',
  waiting: 'warning',
  paused: 'warning',
  stopping: 'default',
  finished: 'success',
  failed: 'error',
  error: 'error',
  stopped: 'default',
  interrupted: 'warning',
};

export const AGENT_STATUS_COLORS: Record<AgentStatus, ChipColor> = {
  CONTINUE: 'primary',
  SCREENSHOT: 'info',
  PENDING: 'warning',
  CONFIRM: 'warning',
  FINISH: 'success',
  FAIL: 'error',
  ERROR: 'error',
};

/** The tag of a step whose action did not run, held back rather than tried: in words, not by colour alone. */
export const NOT_RUN_LABELS: Record<NotRun, string> = {
  rejected: 'Rejected by you',
  paused: 'Not run: paused',
  refused: 'Refused by the safety rule',
  'taken-over': 'Not run: you had the mouse',
  stopped: 'Not run: stopped',
};

/** What the tag says on hover, at more length. */
export const NOT_RUN_DETAILS: Record<NotRun, string> = {
  rejected: 'You rejected this action when it waited for your approval: it did not run.',
  paused: 'The run was paused before this action: it did not run, and after Resume the agent looked again.',
  refused: "The safety policy's never-run rule refused this action: it did not run.",
  'taken-over': 'You had taken the mouse, so this action did not run; the run was paused until you resumed it.',
  stopped: 'Stop came before this action ran (after you approved it, say): it did not run.',
};

export const NOT_RUN_COLORS: Record<NotRun, ChipColor> = {
  rejected: 'warning',
  paused: 'default',
  refused: 'error',
  'taken-over': 'default',
  stopped: 'default',
};

export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** "850", "12.3k", "1.2M". */
export function formatCount(count: number): string {
  if (count < 1_000) return String(count);
  if (count < 1_000_000) return `${(count / 1_000).toFixed(count < 10_000 ? 1 : 0)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}

export function totalTokens(tokens: TokenUsage): number {
  return tokens.prompt + tokens.completion;
}

/** US dollars with enough digits to see small per-step costs. */
export function formatCost(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  if (usd < 1) return `$${usd.toFixed(3)}`;
  return `$${usd.toFixed(2)}`;
}

// Formatters are costly to build: one of each, reused (the sidebar formats on every session update).
const TIME = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const DAY = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short' });
const DATE = new Intl.DateTimeFormat(undefined, { dateStyle: 'short' });

/** Today: the time; this year: day and month; else the date. */
export function formatWhen(epochMs: number, now = Date.now()): string {
  const date = new Date(epochMs);
  const today = new Date(now);
  if (date.toDateString() === today.toDateString()) return TIME.format(date);
  if (date.getFullYear() === today.getFullYear()) return DAY.format(date);
  return DATE.format(date);
}

/** "Ctrl" on most systems, "⌘" on Apple ones, for shortcut hints. */
// Read through globalThis: these labels are also type-checked (and unit-tested) without the DOM library.
const platform = (globalThis as { navigator?: { platform?: string } }).navigator?.platform ?? '';
export const MOD_KEY = /Mac|iPhone|iPad/.test(platform) ? '⌘' : 'Ctrl';
