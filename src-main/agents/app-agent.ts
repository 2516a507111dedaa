import type { CommandResult } from '../commands/command';
import type { Dispatcher } from '../commands/dispatcher';
import { validateAction } from '../commands/validate-action';
import type { ModelClient } from '../llm/model-client';
import { parseModelReply } from '../llm/parse-reply';
import { AppAgentReply } from '../llm/reply-schemas';
import type { NewStep, StoredScreenshot } from '../memory/session-store';
import type { AppPrompter } from '../prompter/app-prompter';
import { describeAction, type AgentStatus, type StepView } from '../protocol';

export interface AppStepInput {
  request: string;
  history: readonly StepView[];
  signal: AbortSignal;
  /** Stores the step's screenshot and returns its reference. */
  saveScreenshot(image: { bytes: Buffer; mimeType: string; width: number; height: number }): Promise<StoredScreenshot>;
  /** Tells the UI what the step is doing now. */
  progress(detail: string): void;
}

export interface AppAgentDeps {
  dispatcher: Dispatcher;
  model: ModelClient;
  prompter: AppPrompter;
  recentSteps: number;
}

export class StepAborted extends Error {
  constructor() {
    super('stopped by the user');
  }
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new StepAborted();
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One AppAgent step: look (screenshot), ask the model, check its reply, act. Every failure becomes an
 * ERROR step with the reason; only Stop escapes, as StepAborted.
 */
export class AppAgent {
  readonly name = 'AppAgent';

  constructor(private readonly deps: AppAgentDeps) {}

  async step(input: AppStepInput): Promise<NewStep> {
    const startedAt = Date.now();
    const started = performance.now();
    const base = {
      agent: this.name,
      observation: '',
      thought: '',
      action: null,
      actionText: 'No action',
      result: null,
      modelReply: null as string | null,
      screenshot: null as StoredScreenshot | null,
      startedAt,
      tokens: { prompt: 0, completion: 0 },
    };
    const fail = (error: string, extra: Partial<NewStep> = {}): NewStep => ({
      ...base,
      ...extra,
      status: 'ERROR',
      error,
      durationMs: performance.now() - started,
    });

    // DATA_COLLECTION
    input.progress('Taking a screenshot');
    let image: { dataUrl: string; width: number; height: number };
    try {
      const shot = await this.deps.dispatcher.screenshot(input.signal);
      base.screenshot = await input.saveScreenshot({
        bytes: shot.bytes,
        mimeType: shot.meta.mimeType,
        width: shot.meta.width,
        height: shot.meta.height,
      });
      image = {
        dataUrl: `data:${shot.meta.mimeType};base64,${shot.bytes.toString('base64')}`,
        width: shot.meta.width,
        height: shot.meta.height,
      };
    } catch (error) {
      throwIfAborted(input.signal);
      return fail(message(error));
    }

    // LLM_INTERACTION
    input.progress('Asking the model');
    const messages = this.deps.prompter.build({
      request: input.request,
      history: input.history,
      recentSteps: this.deps.recentSteps,
      screenshot: image,
    });
    let replyText: string;
    try {
      const answer = await this.deps.model.complete(messages, input.signal);
      replyText = answer.text;
      base.tokens = answer.usage;
      base.modelReply = answer.text;
    } catch (error) {
      throwIfAborted(input.signal);
      return fail(`the model request failed: ${message(error)}`);
    }
    const parsed = parseModelReply(replyText, AppAgentReply);
    if (!parsed.ok) return fail(`invalid model reply: ${parsed.error}`);
    const reply = parsed.value;
    base.observation = reply.Observation;
    base.thought = reply.Thought;

    const modelStatus: AgentStatus = reply.Status;
    if (modelStatus === 'CONFIRM') {
      // Held, never run: this build has no way yet to ask the user for approval.
      const action = { function: reply.Function, args: reply.Args };
      return {
        ...base,
        action,
        actionText: describeAction(action, reply.ControlText || undefined),
        status: 'CONFIRM',
        result: null,
        error: 'this action needs your approval, which this build cannot ask for yet: it was not run',
        durationMs: performance.now() - started,
      };
    }
    if (modelStatus !== 'CONTINUE') {
      const questions = reply.Questions.filter(Boolean);
      return {
        ...base,
        status: modelStatus,
        result: (modelStatus === 'PENDING' && questions.length ? questions.join(' ') : reply.Comment) || null,
        error: null,
        durationMs: performance.now() - started,
      };
    }

    // ACTION_EXECUTION
    const action = { function: reply.Function, args: reply.Args };
    const actionText = describeAction(action, reply.ControlText || undefined);
    const available = await this.deps.dispatcher.availableTools();
    const validated = validateAction(reply.Function, reply.Args, available);
    if (!validated.ok) return fail(validated.error, { action, actionText });
    throwIfAborted(input.signal);
    input.progress(actionText);
    const outcome: CommandResult = await this.deps.dispatcher.run(validated.command, input.signal);
    if (outcome.status !== 'success') {
      throwIfAborted(input.signal);
      return fail(outcome.error ?? 'the action failed', { action, actionText });
    }
    return {
      ...base,
      action,
      actionText,
      status: 'CONTINUE',
      result: outcome.result || 'done',
      error: null,
      durationMs: performance.now() - started,
    };
  }
}
