import type { ActionContext, Authorization } from '../commands/command-gate';
import type { Command, CommandResult } from '../commands/command';
import type { WindowInfo } from '../device/contract';
import type { ModelExchange } from '../llm/ask-model';
import type { ChatMessage } from '../llm/model-client';
import type { StoredScreenshot } from '../memory/session-store';
import type { ActionView, AgentStatus, NotRun } from '../protocol';

/** The names strategies use in the step context, in one place so needs/provides cannot drift. */
export const K = {
  screenshot: 'screenshot',
  windows: 'windows',
  messages: 'messages',
  promptText: 'promptText',
  exchange: 'exchange',
  reply: 'reply',
  plan: 'plan',
  authorization: 'authorization',
  outcome: 'outcome',
  annotated: 'annotated',
  trajectory: 'trajectory',
  savedScreenshot: 'savedScreenshot',
  writes: 'writes',
} as const;

export interface Observation {
  stored: StoredScreenshot;
  /** Settles once the screenshot file is on disk: nothing is done on the desktop before that. */
  written: Promise<void>;
  /** The encoded image as sent, for the annotated copy. */
  bytes: Buffer;
  mimeType: string;
  dataUrl: string;
  width: number;
  height: number;
  /** The window it was cropped to, if any. */
  windowId: string | null;
  /** The device's name for it (ScreenshotMeta.id): the step's actions say their points are its pixels. */
  shotId: string | null;
}

/** What the model's reply asks to do, checked: commands ready for the gate, and their description. */
export interface ActionPlan {
  commands: Command[];
  /** One per command: what the safety policy weighs besides the command (control, status, window). */
  contexts: ActionContext[];
  action: ActionView | null;
  actionText: string;
  controlText: string;
}

/** How the step ended, as it will be recorded. */
export interface StepOutcome {
  status: AgentStatus;
  result: string | null;
  error: string | null;
  approvedBy: 'user' | 'policy' | null;
  results: CommandResult[];
  /** Not run because the user had taken the mouse: an ERROR step, but not the agent's error. */
  takenOver?: true;
  /** Why its action did not run, when it was held back rather than tried (see the protocol's NotRun). */
  notRun?: NotRun;
  /** A failure no later step can mend (an unknown model): the round ends with this step. */
  endsRound?: true;
}

/**
 * The step's outcome once its commands ran (`approvedBy`: the policy, or the user for a held step): the
 * first failure, a sequence cut short by Stop (never "done"), or CONTINUE with the results' text. When
 * none of its actions ran, because the user had the mouse or Stop came first, the outcome says so
 * (notRun); one that ran in part is not marked, since something did run.
 */
export function outcomeOfResults(results: CommandResult[], approvedBy: 'user' | 'policy'): StepOutcome {
  const failed = results.find((result) => result.status === 'failure');
  const ran = results.filter((result) => result.status === 'success').length;
  if (failed) {
    const skipped = results.filter((result) => result.status === 'skipped').length;
    const error = `${failed.error ?? 'the action failed'}${skipped ? ` (${skipped} later action(s) skipped)` : ''}`;
    const takenOver = failed.takenOver ? { takenOver: true as const, ...(ran === 0 ? { notRun: 'taken-over' as const } : {}) } : {};
    return { status: 'ERROR', result: null, error, approvedBy, results, ...takenOver };
  }
  if (ran < results.length) {
    // With no failure, the skipped actions are the ones Stop cut off.
    const stopped = ran === 0 ? { notRun: 'stopped' as const } : {};
    return { status: 'ERROR', result: null, error: `stopped: ${ran} of ${results.length} action(s) ran`, approvedBy, results, ...stopped };
  }
  const text = results.map((result) => result.result).filter(Boolean).join('\n');
  return { status: 'CONTINUE', result: text || 'done', error: null, approvedBy, results };
}

export type { Authorization, ChatMessage, ModelExchange, WindowInfo };

/** Files the step is still writing (its screenshots); the step is committed only once they are written. */
export function trackWrite(ctx: { maybe<T>(key: string): T | undefined; set(key: string, value: unknown): void }, written: Promise<void>): void {
  // Handled here so a step that fails before waiting for it leaves no unhandled rejection.
  written.catch(() => undefined);
  ctx.set(K.writes, [...(ctx.maybe<Promise<void>[]>(K.writes) ?? []), written]);
}

export function pendingWrites(ctx: { maybe<T>(key: string): T | undefined }): Promise<void>[] {
  return ctx.maybe<Promise<void>[]>(K.writes) ?? [];
}
