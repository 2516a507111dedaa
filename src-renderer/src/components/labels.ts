import type { AgentStatus, SessionStatus } from '../../../src-main/protocol';

export const SESSION_STATUS_LABELS: Record<SessionStatus, string> = {
  running: 'Running',
  stopping: 'Stopping',
  finished: 'Finished',
  failed: 'Failed',
  error: 'Error',
  stopped: 'Stopped',
  interrupted: 'Interrupted',
};

export type ChipColor = 'default' | 'primary' | 'secondary' | 'error' | 'info' | 'success' | 'warning';

export const AGENT_STATUS_COLORS: Record<AgentStatus, ChipColor> = {
  CONTINUE: 'primary',
  SCREENSHOT: 'info',
  PENDING: 'warning',
  CONFIRM: 'warning',
  FINISH: 'success',
  FAIL: 'error',
  ERROR: 'error',
};

export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
