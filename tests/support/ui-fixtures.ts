import {
  SessionView,
  StepView,
  type SessionViewInput,
  type StepViewInput,
} from '../../src-main/protocol';

/** A session view with sensible defaults (parsed, so protocol defaults apply). */
export function makeSession(id: string, overrides: Partial<SessionViewInput> = {}): SessionView {
  const now = Date.now();
  return SessionView.parse({
    id,
    title: `Session ${id}`,
    request: `do the work of ${id}`,
    mode: 'desktop',
    status: 'running',
    createdAt: now,
    updatedAt: now,
    stepCount: 0,
    result: null,
    ...overrides,
  });
}

/** A step view with sensible defaults; `index` is 0-based as in the protocol. */
export function makeStep(sessionId: string, index: number, overrides: Partial<StepViewInput> = {}): StepView {
  return StepView.parse({
    id: `${sessionId}-step-${index}`,
    sessionId,
    index,
    agent: 'AppAgent',
    target: 'Text Editor',
    subtask: 'Write the report',
    status: 'CONTINUE',
    observation: `The editor shows the report draft (step ${index + 1}).`,
    thought: `Step ${index + 1}: type the next paragraph.`,
    plan: ['Type the paragraph', 'Save the file'],
    comment: '',
    action: { function: 'type_text', args: { text: `paragraph ${index + 1}`, x: 200, y: 300 } },
    actionText: `Type 'paragraph ${index + 1}' at (200, 300)`,
    result: 'typed',
    error: null,
    screenshot: null,
    annotated: null,
    startedAt: 1_700_000_000_000 + index * 1000,
    durationMs: 850,
    phaseMs: { DATA_COLLECTION: 40, LLM_INTERACTION: 700, ACTION_EXECUTION: 110 },
    tokens: { prompt: 1200, completion: 80 },
    costUsd: 0.0021,
    approvedBy: 'policy',
    ...overrides,
  });
}

/** A stored screenshot reference the fake host can serve (it draws any file name it is asked for). */
export function screenshotRef(sessionId: string, file: string) {
  return { sessionId, file, width: 1280, height: 800 };
}

/** The AppAgent's click on Send in Mail, held for the user's approval (the policy's rule on the word "Send"). */
export function heldSendApproval(sessionId: string, screenshot: ReturnType<typeof screenshotRef> | null = null) {
  return {
    kind: 'confirm' as const,
    id: 'c1',
    sessionId,
    agent: 'AppAgent' as const,
    actionText: "Click 'Send' in Mail",
    actions: [{ function: 'click', args: { x: 10, y: 20 } }],
    target: 'Mail',
    reasons: ["rule: control text matches 'Send'"],
    screenshot,
  };
}
