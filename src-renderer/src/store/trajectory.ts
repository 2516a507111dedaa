import type { StepView } from '../../../src-main/protocol';

/** A round starts with a request (the session's first, or a follow-up). */
export interface RoundHeader {
  round: number;
  /** Empty when the request is not known (yet). */
  request: string;
}

/** A run of consecutive steps of one agent on one sub-task (or the host's own steps). */
export interface SubtaskHeader {
  agent: string;
  target: string | null;
  subtask: string | null;
  /** How many steps the run has so far. */
  steps: number;
}

/** What to show above a step: the headers of the groups it opens, if any. */
export interface StepGroupHeaders {
  round: RoundHeader | null;
  subtask: SubtaskHeader | null;
}

const NO_HEADERS: StepGroupHeaders = { round: null, subtask: null };

function sameGroup(a: StepView, b: StepView): boolean {
  return a.round === b.round && a.agent === b.agent && a.subtask === b.subtask && a.target === b.target;
}

/**
 * The group headers of step `index`: a round header where a round begins, and a sub-task header (with
 * the run's step count) where the agent or its sub-task changes. Headers live inside the step's row, so
 * the list keeps one row per step, and only the rows on screen need theirs. Steps that open no group
 * share one object, so memoised rows compare equal and do not re-render.
 */
export function stepGroupHeaders(steps: readonly StepView[], roundRequests: readonly string[], index: number): StepGroupHeaders {
  const step = steps[index];
  if (!step) return NO_HEADERS;
  const previous = steps[index - 1];
  if (previous && sameGroup(previous, step)) return NO_HEADERS;
  const round = !previous || previous.round !== step.round ? { round: step.round, request: roundRequests[step.round] ?? '' } : null;
  let end = index + 1;
  while (end < steps.length && sameGroup(steps[end - 1] as StepView, steps[end] as StepView)) end += 1;
  return { round, subtask: { agent: step.agent, target: step.target, subtask: step.subtask, steps: end - index } };
}

/** Two header sets that show the same thing (for memoised rows). */
export function sameHeaders(a: StepGroupHeaders, b: StepGroupHeaders): boolean {
  if (a === b) return true;
  const rounds =
    a.round === b.round || (a.round !== null && b.round !== null && a.round.round === b.round.round && a.round.request === b.round.request);
  const subtasks =
    a.subtask === b.subtask ||
    (a.subtask !== null &&
      b.subtask !== null &&
      a.subtask.agent === b.subtask.agent &&
      a.subtask.target === b.subtask.target &&
      a.subtask.subtask === b.subtask.subtask &&
      a.subtask.steps === b.subtask.steps);
  return rounds && subtasks;
}
