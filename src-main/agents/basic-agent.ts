import { ApprovalRequiredError, TakeoverError, type ActorContext, type Authorization } from '../commands/command-gate';
import { USER_NOTE } from '../memory/blackboard';
import type { NewStep, StoredScreenshot } from '../memory/session-store';
import type { AgentStatus, ScreenshotRef, StepView } from '../protocol';
import { endsRound } from '../llm/model-client';
import { InteractionCancelled } from '../session/interaction-broker';
import { StepContext } from './processor/step-context';
import { StepDeferred } from './step-deferred';
import { MODEL_REPLY_TIMING, PHASE_TIMINGS, StrategyError } from './processor/middleware';
import type { ProcessorTemplate } from './processor/processor';
import type { AgentRuntime, ModelWithPrices } from './runtime';
import type { StateManager } from './states/agent-state';
import { K, outcomeOfResults, pendingWrites, type ActionPlan, type ModelExchange, type Observation, type StepOutcome } from './step-keys';

/** Stop was pressed: the step ends without being recorded as an error. */
export class StepAborted extends Error {
  constructor() {
    super('stopped by the user');
  }
}

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new StepAborted();
}

/** A held action: persisted as an interaction before anyone is asked, run only on approval. */
interface HeldAction {
  authorization: Authorization;
  plan: ActionPlan;
  /** What the user sees on the confirmation card: the annotated screenshot, or the plain one. */
  shown: ScreenshotRef | null;
  screenshot: StoredScreenshot | null;
  annotated: StoredScreenshot | null;
}

/** The processor phases' times, and of LLM_INTERACTION the part spent waiting for the model (MODEL_REPLY). */
function phaseTimings(phases: Record<string, number>, exchange: { waitedMs: number } | undefined): Record<string, number> {
  if (!exchange) return phases;
  const timings: Record<string, number> = {};
  for (const [phase, ms] of Object.entries(phases)) {
    timings[phase] = ms;
    if (phase === 'LLM_INTERACTION') timings[MODEL_REPLY_TIMING] = exchange.waitedMs;
  }
  return timings;
}

/** A failed step's reason, never empty: an error without a message still fails the step, and says where. */
function failureOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (message.trim()) return message;
  return error instanceof StrategyError ? `${error.strategy} (${error.phase}) failed without a message` : 'the step failed without a message';
}

function costOf(model: ModelWithPrices, usage: { prompt: number; completion: number }): number | null {
  if (!model.inputPricePerMTok && !model.outputPricePerMTok) return null;
  return (usage.prompt * model.inputPricePerMTok + usage.completion * model.outputPricePerMTok) / 1_000_000;
}

/**
 * What every agent has (the seeds' BasicAgent): a name, a status, its own step history, the shared
 * blackboard (through the runtime), a processor that makes one step, a state, and its host.
 */
export abstract class BasicAgent {
  status: AgentStatus = 'CONTINUE';
  /** This agent's committed steps, oldest first. */
  readonly history: StepView[] = [];
  subtask: string | null = null;
  /** The host's notes that came with the sub-task (its reply's Message). */
  notes: readonly string[] = [];
  /** The last words the agent had for the user (Comment), e.g. a sub-task's result. */
  lastComment = '';
  protected consecutiveErrors = 0;
  protected pendingQuestions: string[] = [];
  protected pendingForm = false;
  private held: HeldAction | null = null;

  constructor(
    readonly name: string,
    /** The agent's target when it is not a window that may change its title (see `target`). */
    private readonly fixedTarget: string | null,
    readonly states: StateManager,
    readonly host: BasicAgent | null,
  ) {}

  /** The application window an AppAgent works in (its title as now known), or null. */
  get target(): string | null {
    return this.fixedTarget;
  }

  /** Failed steps in a row, the last one included. */
  get errorsInARow(): number {
    return this.consecutiveErrors;
  }

  protected abstract processor(runtime: AgentRuntime): ProcessorTemplate;
  protected abstract model(runtime: AgentRuntime): ModelWithPrices;

  /** A hook for what an agent keeps from a successful step (the host: whom to hand over to). */
  protected afterProcessor(_ctx: StepContext): void {}

  /** A hook for after the user answered or decided: the desktop's focus may have moved to Deskhand. */
  userInteracted(): void {}

  /** A hook run right before an approved action: null when ready, else why the action cannot run. */
  protected async prepareToAct(_runtime: AgentRuntime): Promise<string | null> {
    return null;
  }

  /**
   * A hook for after an approved action ran, with the plan it came from: what the step then says (the
   * host: the application it opened, and the window it hands the sub-task to).
   */
  protected async afterApproved(_runtime: AgentRuntime, _plan: ActionPlan, outcome: StepOutcome): Promise<StepOutcome> {
    return outcome;
  }

  /**
   * The round ended (the step limit, Stop) while an action waited for a decision nobody was asked for:
   * it never runs, and the audit says so.
   */
  abandonHeld(runtime: AgentRuntime, why: string): void {
    const held = this.held;
    this.held = null;
    if (held) runtime.gate.recordRefusal(held.authorization, { sessionId: runtime.sessionId, agent: this.name, stepIdx: null }, 'rejected', why);
  }

  /** The agent the host hands over to after this step; only the host has one. */
  takeHandoff(): BasicAgent | null {
    return null;
  }

  /** Gives the agent a new sub-task (from the host), with the host's notes for it. */
  assign(subtask: string, notes: readonly string[] = []): void {
    this.subtask = subtask;
    this.notes = notes;
    this.status = 'CONTINUE';
    this.consecutiveErrors = 0;
    this.lastComment = '';
  }

  /** A new round (a follow-up, a resume): nothing of the last round's streak or questions carries over. */
  beginRound(): void {
    this.status = 'CONTINUE';
    this.consecutiveErrors = 0;
    this.lastComment = '';
    this.pendingQuestions = [];
    this.pendingForm = false;
  }

  /**
   * After a crash, before the round goes on: a step that says so, in the trajectory the agents read, so
   * that an action approved or under way when Deskhand stopped is checked, not simply done again.
   */
  async noteInterruption(runtime: AgentRuntime): Promise<void> {
    const step: NewStep = {
      round: runtime.round,
      agent: this.name,
      target: this.target,
      subtask: this.subtask,
      status: 'ERROR',
      observation: '',
      thought: '',
      plan: [],
      comment: '',
      action: null,
      actionText: 'Resumed after an interruption',
      result: null,
      error:
        'Deskhand stopped (closed or crashed) while this request was running. An action approved or under way ' +
        'then may or may not have run: check the screen or the files before doing it again.',
      modelReply: null,
      promptText: null,
      screenshot: null,
      annotated: null,
      startedAt: Date.now(),
      durationMs: 0,
      phaseMs: {},
      tokens: { prompt: 0, completion: 0 },
      costUsd: null,
      approvedBy: null,
      notRun: null,
    };
    this.history.push(await runtime.commitStep(step, { trajectory: this.trajectoryRecord(step), savedScreenshot: null }));
  }

  /** One step through the processor, committed with its blackboard records; never throws but for Stop. */
  async process(runtime: AgentRuntime): Promise<void> {
    const ctx = new StepContext({ runtime, agent: this });
    const startedAt = Date.now();
    const started = performance.now();
    let failure: string | null = null;
    let fatal = false;
    try {
      await this.processor(runtime).run(ctx);
      // A step is committed with its screenshot on disk; one that could not be written fails the step.
      await Promise.all(pendingWrites(ctx));
      this.afterProcessor(ctx);
    } catch (error) {
      if (runtime.signal.aborted || error instanceof StepAborted || error instanceof InteractionCancelled) {
        this.countUnrecordedUsage(runtime, ctx);
        throw new StepAborted();
      }
      if (error instanceof StepDeferred) return;
      failure = failureOf(error);
      fatal = endsRound(error);
    }
    // However the step ended, it is saved only once its files have settled, and never names one that is not on disk.
    await Promise.allSettled(pendingWrites(ctx));
    const screenshotSaved = (await ctx.maybe<Observation | null>(K.screenshot)?.written.then(() => true, () => false)) ?? false;
    const outcome: StepOutcome = failure !== null
      ? { status: 'ERROR', result: null, error: failure, approvedBy: null, results: [], ...(fatal ? { endsRound: true as const } : {}) }
      : ctx.get<StepOutcome>(K.outcome);
    const step = this.stepOf(runtime, ctx, outcome, startedAt, performance.now() - started, screenshotSaved);
    const saved = ctx.maybe<{ reason: string }>(K.savedScreenshot) ?? null;
    const view = await runtime.commitStep(step, {
      trajectory: ctx.maybe<Record<string, unknown>>(K.trajectory) ?? this.trajectoryRecord(step),
      savedScreenshot: saved,
    });
    this.afterStep(runtime, ctx, step, view, outcome);
  }

  /** A step Stop cut short is not recorded, but what its model replies cost still counts on the session. */
  private countUnrecordedUsage(runtime: AgentRuntime, ctx: StepContext): void {
    const usage = ctx.maybe<ModelExchange<unknown>>(K.exchange)?.usage;
    if (!usage || (usage.prompt === 0 && usage.completion === 0)) return;
    runtime.countUsage(usage, costOf(this.model(runtime), usage));
  }

  private stepOf(runtime: AgentRuntime, ctx: StepContext, outcome: StepOutcome, startedAt: number, durationMs: number, screenshotSaved: boolean): NewStep {
    const exchange = ctx.maybe<ModelExchange<{ Observation?: string; Thought?: string; Plan?: string[]; Comment?: string }>>(K.exchange);
    const reply = exchange?.reply ?? null;
    const plan = ctx.maybe<ActionPlan>(K.plan);
    const observation = ctx.maybe<Observation | null>(K.screenshot) ?? null;
    const annotated = ctx.maybe<NewStep['annotated']>(K.annotated) ?? null;
    const usage = exchange?.usage ?? { prompt: 0, completion: 0 };
    return {
      round: runtime.round,
      agent: this.name,
      target: this.target,
      subtask: this.subtask,
      status: outcome.status,
      observation: reply?.Observation ?? '',
      thought: reply?.Thought ?? '',
      plan: reply?.Plan ?? [],
      comment: reply?.Comment ?? '',
      action: plan?.action ?? null,
      actionText: plan?.actionText ?? 'No action',
      result: outcome.result,
      error: outcome.error,
      modelReply: exchange?.text ?? null,
      promptText: ctx.maybe<string>(K.promptText) ?? null,
      screenshot: screenshotSaved ? (observation?.stored ?? null) : null,
      annotated,
      startedAt,
      durationMs,
      phaseMs: phaseTimings(ctx.maybe<Record<string, number>>(PHASE_TIMINGS) ?? {}, exchange),
      tokens: usage,
      costUsd: costOf(this.model(runtime), usage),
      approvedBy: outcome.approvedBy,
      notRun: outcome.notRun ?? null,
    };
  }

  /** The blackboard record of a step (UFO's HISTORY_KEYS pick from this). */
  trajectoryRecord(step: Pick<NewStep, 'status' | 'actionText' | 'result' | 'error' | 'comment' | 'subtask'>): Record<string, unknown> {
    return {
      Step: null,
      Agent: this.target ? `${this.name} (${this.target})` : this.name,
      Subtask: step.subtask,
      Action: step.actionText,
      Status: step.status,
      Result: step.error ? `failed: ${step.error}` : step.result,
      Comment: step.comment,
    };
  }

  private afterStep(runtime: AgentRuntime, ctx: StepContext, step: NewStep, view: StepView, outcome: StepOutcome): void {
    this.history.push(view);
    if (view.comment) this.lastComment = view.comment;
    if (outcome.status === 'ERROR') {
      // The user taking the mouse pauses the run; it is no sign that the agent is stuck.
      if (!outcome.takenOver) this.consecutiveErrors++;
      this.status = outcome.endsRound || this.consecutiveErrors >= runtime.config.limits.maxConsecutiveErrors ? 'ERROR' : 'CONTINUE';
      return;
    }
    this.consecutiveErrors = 0;
    this.status = outcome.status;
    const reply = ctx.maybe<ModelExchange<{ Questions?: string[]; Form?: unknown }>>(K.exchange)?.reply;
    if (outcome.status === 'PENDING') {
      this.pendingQuestions = (reply?.Questions ?? []).filter((question) => question.trim());
      this.pendingForm = Boolean(reply?.Form);
    }
    if (outcome.status === 'CONFIRM') {
      this.held = {
        authorization: ctx.get<Authorization>(K.authorization),
        plan: ctx.get<ActionPlan>(K.plan),
        shown: view.annotated ?? view.screenshot,
        screenshot: step.screenshot,
        annotated: step.annotated,
      };
    }
  }

  /**
   * PENDING: the agent's questions become a form for the user; the answers go on the blackboard. A step
   * with a Form waits for one of its buttons too, after its questions (if it asked any: both are shown at
   * once, and a button pressed before the questions are answered is kept for when the agent waits on it).
   */
  async askUser(runtime: AgentRuntime): Promise<void> {
    runtime.setStatus('waiting', 'Waiting for your answers');
    try {
      if (this.pendingQuestions.length || !this.pendingForm) {
        const questions = this.pendingQuestions.length ? this.pendingQuestions : ['The agent needs more information: what should it do?'];
        const response = await runtime.broker.ask(
          { kind: 'questions', sessionId: runtime.sessionId, agent: this.name, questions },
          runtime.signal,
        );
        if (response.kind !== 'answers') throw new Error('expected answers');
        await runtime.saveAnswers(() => questions.forEach((question, index) => runtime.blackboard.addQuestion(question, response.answers[index] ?? '')));
        // The answers are in: what still waits is the form, which the status now names.
        if (this.pendingForm && !runtime.broker.headless) runtime.setStatus('waiting', 'Waiting for you to fill in the form');
      }
      if (this.pendingForm && runtime.broker.headless) {
        // Waiting would be for ever: the agent is told, and decides what to do without it.
        await runtime.saveAnswers(() => runtime.blackboard.addQuestion('Your form', 'Not filled in: this run has no one to fill in forms (it runs without a UI)'));
        runtime.forms.close(this.name);
      } else if (this.pendingForm) {
        const { action, data, kept } = await runtime.forms.waitForAction(this.name, runtime.signal);
        // The agent sees what was typed; the database, exports and later sessions never get the passwords.
        await runtime.saveAnswers(() => runtime.blackboard.addQuestion(`Form submitted with '${action}'`, JSON.stringify(data), null, JSON.stringify(kept)));
      }
    } catch (error) {
      if (error instanceof InteractionCancelled) throw new StepAborted();
      throw error;
    }
    await runtime.dispatcher.rebasePointer(runtime.signal);
    this.userInteracted();
    runtime.setStatus('running', 'Going on with your answers');
    this.pendingQuestions = [];
    this.pendingForm = false;
    this.status = 'CONTINUE';
  }

  /**
   * CONFIRM: the held action waits for Approve or Reject. Approved, it runs now (through the gate, which
   * checks the approval again); rejected, it never runs and the agent is told why. Either way the
   * decision is recorded as a step.
   */
  async resolveConfirmation(runtime: AgentRuntime): Promise<void> {
    // Kept until decided: if asking fails, the round's end still records the action as not run.
    const held = this.held;
    if (!held) {
      this.status = 'CONTINUE';
      return;
    }
    runtime.setStatus('waiting', `Waiting for your approval: ${held.plan.actionText}`);
    let response;
    try {
      response = await runtime.broker.ask(
        {
          kind: 'confirm',
          sessionId: runtime.sessionId,
          agent: this.name,
          actionText: held.plan.actionText,
          actions: held.authorization.commands.map((command) => ({ function: command.toolName, args: command.parameters })),
          target: held.plan.controlText || this.target,
          reasons: [...held.authorization.reasons],
          screenshot: held.shown,
        },
        runtime.signal,
      );
    } catch (error) {
      if (error instanceof InteractionCancelled) {
        this.held = null;
        const actor = { sessionId: runtime.sessionId, agent: this.name, stepIdx: null };
        runtime.gate.recordRefusal(held.authorization, actor, 'rejected', 'not run: the run was stopped before a decision');
        throw new StepAborted();
      }
      throw error;
    }
    if (response.kind !== 'decision') throw new Error('expected a decision');
    this.held = null;
    // Decided while the run was paused: the action waits for Resume like everything else.
    await runtime.untilResumed();
    // Stopped before it could run (approved while paused, say): an approved action gets its step, which
    // says it never ran; a rejected one has its decision in the audit only.
    const stoppedFirst = runtime.signal.aborted;
    if (stoppedFirst && !response.approved) {
      runtime.gate.recordRefusal(held.authorization, { sessionId: runtime.sessionId, agent: this.name, stepIdx: null }, 'rejected');
      throw new StepAborted();
    }
    if (!stoppedFirst) {
      await runtime.dispatcher.rebasePointer(runtime.signal);
      this.userInteracted();
      runtime.setStatus('running', response.approved ? `Approved: ${held.plan.actionText}` : 'Rejected');
    }
    const startedAt = Date.now();
    const started = performance.now();
    const actor = { sessionId: runtime.sessionId, agent: this.name, stepIdx: runtime.nextStepIndex() };
    let outcome: StepOutcome;
    if (stoppedFirst) {
      runtime.gate.recordRefusal(held.authorization, actor, 'approved', 'not run: the run was stopped');
      outcome = { status: 'ERROR', result: null, error: 'not run: the run was stopped', approvedBy: 'user', results: [], notRun: 'stopped' };
    } else if (!response.approved) {
      runtime.gate.recordRefusal(held.authorization, actor, 'rejected');
      const note = response.note?.trim();
      outcome = {
        status: 'CONTINUE',
        result: `Rejected by the user${note ? `: ${note}` : ''}; the action did not run`,
        error: null,
        approvedBy: null,
        results: [],
        notRun: 'rejected',
      };
    } else {
      outcome = await this.afterApproved(runtime, held.plan, await this.runApproved(runtime, held.authorization, actor));
    }
    const step: NewStep = {
      round: runtime.round,
      agent: this.name,
      target: this.target,
      subtask: this.subtask,
      status: outcome.status,
      observation: '',
      thought: response.approved ? 'You approved the held action.' : 'You rejected the held action.',
      plan: [],
      comment: response.note ?? '',
      action: held.plan.action,
      actionText: held.plan.actionText,
      result: outcome.result,
      error: outcome.error,
      modelReply: null,
      promptText: null,
      screenshot: held.screenshot,
      annotated: held.annotated,
      startedAt,
      durationMs: performance.now() - started,
      phaseMs: { ACTION_EXECUTION: performance.now() - started },
      tokens: { prompt: 0, completion: 0 },
      costUsd: null,
      approvedBy: outcome.approvedBy,
      notRun: outcome.notRun ?? null,
    };
    // Committed even when Stop came meanwhile: the action may have run, and the record must say so.
    // The note is what the user said: on the blackboard as such, for this agent too (its history shows results only).
    const note = response.note?.trim();
    const trajectory = { ...this.trajectoryRecord(step), ...(note ? { Decision: response.approved ? 'approved' : 'rejected', [USER_NOTE]: note } : {}) };
    const view = await runtime.commitStep(step, { trajectory, savedScreenshot: null });
    this.history.push(view);
    throwIfAborted(runtime.signal);
    // A failed approved action is in the history; the agent sees it and decides what to do next.
    this.status = 'CONTINUE';
  }

  private async runApproved(runtime: AgentRuntime, authorization: Authorization, actor: ActorContext): Promise<StepOutcome> {
    let notReady: string | null;
    let stopped = false;
    try {
      notReady = await this.prepareToAct(runtime);
    } catch (error) {
      if (!(error instanceof StepAborted) && !runtime.signal.aborted) throw error;
      // Stop came between the approval and the action: it never ran, and the record says so.
      notReady = 'the run was stopped';
      stopped = true;
    }
    if (notReady) {
      runtime.gate.recordRefusal(authorization, actor, 'approved', `not run: ${notReady}`);
      // Not ready because the user took the mouse while its window was brought to the front.
      const why = stopped ? { notRun: 'stopped' as const } : runtime.dispatcher.takeover.paused ? { notRun: 'taken-over' as const } : {};
      return { status: 'ERROR', result: null, error: `not run: ${notReady}`, approvedBy: 'user', results: [], ...why };
    }
    let results;
    try {
      results = await runtime.gate.execute(authorization, actor, true, runtime.signal);
    } catch (error) {
      if (!(error instanceof TakeoverError || error instanceof ApprovalRequiredError)) throw error;
      const takenOver = error instanceof TakeoverError ? { takenOver: true as const, notRun: 'taken-over' as const } : {};
      // A rule added while the action waited for its approval refuses it now.
      const refused = error instanceof ApprovalRequiredError && error.refused ? { notRun: 'refused' as const } : {};
      return { status: 'ERROR', result: null, error: `not run: ${error.message}`, approvedBy: 'user', results: [], ...takenOver, ...refused };
    }
    return outcomeOfResults(results, 'user');
  }
}
