import type { NewStep } from '../../src-main/memory/session-store';

/** A plain step as an agent hands it to the store: no action, no screenshot, no tokens. */
export function newStep(overrides: Partial<NewStep> = {}): NewStep {
  return {
    round: 0,
    agent: 'AppAgent',
    target: null,
    subtask: null,
    status: 'CONTINUE',
    observation: '',
    thought: '',
    plan: [],
    comment: '',
    action: null,
    actionText: 'No action',
    result: null,
    error: null,
    modelReply: null,
    promptText: null,
    screenshot: null,
    annotated: null,
    startedAt: 1,
    durationMs: 1,
    phaseMs: {},
    tokens: { prompt: 0, completion: 0 },
    costUsd: null,
    approvedBy: null,
    notRun: null,
    ...overrides,
  };
}
