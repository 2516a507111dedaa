import type { CommandGate } from '../commands/command-gate';
import type { Dispatcher } from '../commands/dispatcher';
import type { DeskhandConfig } from '../host/config';
import type { ModelClient } from '../llm/model-client';
import type { Blackboard } from '../memory/blackboard';
import type { NewStep, StoredScreenshot } from '../memory/session-store';
import type { PromptLibrary } from '../prompter/prompt-library';
import type { DocsRetriever } from '../prompter/retrieved-docs';
import type { AgentStatus, FormView, SessionStatus, StepView } from '../protocol';
import type { InteractionBroker } from '../session/interaction-broker';

/** A sub-task the host handed over and how it ended, shown to the host in its next step. */
export interface SubtaskRecord {
  subtask: string;
  agent: string;
  target: string | null;
  status: AgentStatus;
  result: string;
}

/** What a step leaves on the blackboard, written in the same transaction as the step. */
export interface StepMemory {
  trajectory: Record<string, unknown> | null;
  savedScreenshot: { reason: string } | null;
}

export interface ModelWithPrices {
  client: ModelClient;
  /** US dollars per million tokens; 0 = unknown. */
  inputPricePerMTok: number;
  outputPricePerMTok: number;
}

/** Agent forms (blue-style): create/update/close, and waiting for the user's button press. */
export interface FormService {
  open(agent: string, spec: { schema: Record<string, unknown>; uischema?: Record<string, unknown>; data?: Record<string, unknown> }): FormView;
  close(agent: string): void;
  /** Waits for a Button press in the agent's open form; returns the action and the form's data. */
  waitForAction(agent: string, signal: AbortSignal): Promise<FormSubmission>;
}

export interface FormSubmission {
  action: string;
  data: Record<string, unknown>;
  /** The data as it may be kept (stored, carried into later sessions): password fields marked as not kept. */
  kept: Record<string, unknown>;
}

/**
 * The services a round gives its agents. Agents never touch the database, the device or the UI
 * directly: they go through here (and the command gate, where the safety policy lives).
 */
export interface AgentRuntime {
  readonly sessionId: string;
  readonly round: number;
  readonly request: string;
  readonly blackboard: Blackboard;
  readonly signal: AbortSignal;
  readonly config: DeskhandConfig;
  readonly gate: CommandGate;
  readonly dispatcher: Dispatcher;
  readonly broker: InteractionBroker;
  readonly forms: FormService;
  readonly prompts: PromptLibrary;
  readonly docs: DocsRetriever;
  readonly models: { host: ModelWithPrices; app: ModelWithPrices };
  /** Sub-tasks of this round so far, oldest first. */
  readonly subtasks: SubtaskRecord[];
  /** Tool names the device (and trusted external servers) offer, and their prompt docs. */
  readonly tools: { names: ReadonlySet<string>; docs: string };
  /** Starts writing a screenshot file; the step's commit waits for `written` (see trackWrite). */
  writeScreenshot(image: { bytes: Buffer; mimeType: string; width: number; height: number }, name: string): { stored: StoredScreenshot; written: Promise<void> };
  /**
   * Persists a step (and its blackboard records, in one transaction) and tells the UI. On a full disk it
   * waits for the user to free space and Resume; Stop then rejects it with StepAborted.
   */
  commitStep(step: NewStep, memory: StepMemory): Promise<StepView>;
  /**
   * Writes the user's answers (blackboard records made by `write`) in one transaction. On a full disk it
   * waits for room as commitStep does: they cannot be asked for again.
   */
  saveAnswers(write: () => void): Promise<void>;
  /**
   * Adds to the session's totals what model replies cost when no step records them (Stop cut the step
   * short): the tokens were spent all the same.
   */
  countUsage(tokens: { prompt: number; completion: number }, costUsd: number | null): void;
  /** The index the next committed step will get. */
  nextStepIndex(): number;
  progress(detail: string): void;
  /** While the run is paused the session keeps saying so; the status is set on resume instead. */
  setStatus(status: Extract<SessionStatus, 'running' | 'waiting'>, detail: string): void;
  /** Resolves at once unless the run is paused; then when it is resumed or stopped. */
  untilResumed(): Promise<void>;
  /** Whether the run is paused now (by the user, a takeover or a full disk). */
  isPaused(): boolean;
}
