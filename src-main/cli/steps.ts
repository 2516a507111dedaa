import type { HostEvent, NotRun } from '../protocol';

/**
 * Why a step's action did not run, in the CLI's words (the UI tags it the same way). Without
 * `--approve` the CLI rejects every held step, so a rejection says how to approve.
 */
export const CLI_NOT_RUN: Record<NotRun, string> = {
  rejected: 'rejected (steps held for approval are rejected unless --approve is given)',
  paused: 'the run was paused before it',
  refused: "refused by the safety policy's never-run rule",
  'taken-over': 'you had taken the mouse',
  stopped: 'the run was stopped before it ran',
};

/**
 * The notice for stderr about a step whose action did not run ("deskhand: step 2 not run: rejected …"),
 * naming the step's action by its first line; null for every other event and step. Its step.added line
 * on stdout carries the same reason as `notRun`.
 */
export function notRunNotice(event: HostEvent): string | null {
  if (event.kind !== 'step.added') return null;
  const { step } = event;
  if (step.notRun === null) return null;
  const action = step.actionText.split('\n')[0] ?? '';
  return `deskhand: step ${step.index + 1} not run: ${CLI_NOT_RUN[step.notRun]}${action ? ` [${action}]` : ''}\n`;
}
