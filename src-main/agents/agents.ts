import { TakeoverError } from '../commands/command-gate';
import { AppAgentReply, HostAgentReply } from '../llm/reply-schemas';
import { BasicAgent, StepAborted, throwIfAborted } from './basic-agent';
import { StepDeferred } from './step-deferred';
import { errorMiddleware, loggingMiddleware, timingMiddleware } from './processor/middleware';
import { ComposedStrategy, ProcessorTemplate, type Middleware } from './processor/processor';
import type { AgentRuntime, ModelWithPrices } from './runtime';
import { agentStates } from './states/states';
import { K, type ActionPlan, type StepOutcome, type WindowInfo } from './step-keys';
import { actionPlanStrategy, annotateStrategy, executeStrategy, safetyGateStrategy } from './strategies/act';
import { modelStrategy } from './strategies/ask';
import { HANDOFF, handOffToOpened, hostHandoffStrategy, hostPlanStrategy, type HandoffTarget } from './strategies/handoff';
import { noScreenshotStrategy, screenshotStrategy, windowsStrategy } from './strategies/observe';
import { appPromptStrategy, hostPromptStrategy, shellPromptStrategy } from './strategies/prompts';
import { formStrategy, saveScreenshotStrategy } from './strategies/remember';
import type { StepContext } from './processor/step-context';
import { logError } from '../common/log';

const INPUTS = ['runtime', 'agent'];

function middleware(): Middleware[] {
  return [
    timingMiddleware,
    loggingMiddleware((line) => logError(`[agent] ${line}`)),
    errorMiddleware((error) => error instanceof StepAborted || error instanceof StepDeferred),
  ];
}

const sequencesAllowed = (ctx: StepContext): boolean => ctx.get<AgentRuntime>('runtime').config.agent.actionSequence;

/** Works inside one application window: window screenshot, input tools, reports back to the host. */
export class AppAgent extends BasicAgent {
  private readonly steps = new ProcessorTemplate(
    [
      screenshotStrategy(() => this.window.id, (runtime) => this.focusIfNeeded(runtime)),
      appPromptStrategy,
      modelStrategy(AppAgentReply, (models) => models.app),
      formStrategy,
      new ComposedStrategy('act', 'ACTION_EXECUTION', [
        actionPlanStrategy({ sequences: sequencesAllowed, target: () => ({ app: this.window.app, window: this.window.id }) }),
        safetyGateStrategy,
        annotateStrategy,
        executeStrategy,
      ]),
      saveScreenshotStrategy,
    ],
    middleware(),
    INPUTS,
  );
  private needsFocus = true;
  /** The takeover count when the window was last focused. */
  private focusedAtTakeovers = 0;
  /** The device's count of input refused for going to another application's window, at the last focus. */
  private focusedAtKeyboardRefusals = 0;

  constructor(
    public window: WindowInfo,
    host: BasicAgent | null,
  ) {
    super('AppAgent', null, agentStates('AppAgent', host === null), host);
  }

  /**
   * The window's current title: a reused agent is handed its window as last listed, and a title that
   * changed since the agent was made (a file saved under another name) is the one its prompt names.
   */
  override get target(): string {
    return this.window.title || this.window.app;
  }

  override assign(subtask: string, notes: readonly string[] = []): void {
    super.assign(subtask, notes);
    this.needsFocus = true;
  }

  protected processor(): ProcessorTemplate {
    return this.steps;
  }

  protected model(runtime: AgentRuntime): ModelWithPrices {
    return runtime.models.app;
  }

  /** Whatever the user clicked to answer or approve (Deskhand itself, say) now has the focus. */
  override userInteracted(): void {
    this.needsFocus = true;
  }

  /** An approved action goes to this window, not to the one where the user pressed Approve. */
  protected override async prepareToAct(runtime: AgentRuntime): Promise<string | null> {
    try {
      await this.focusIfNeeded(runtime);
      return null;
    } catch (error) {
      if (error instanceof StepAborted) throw error;
      return error instanceof Error ? error.message : String(error);
    }
  }

  /**
   * The first step of a sub-task brings the window to the front, so input lands in it; so does the
   * first step after the user was involved (they may have clicked elsewhere), and the first after input
   * the device refused because another application's window had the keyboard. A focus the device
   * refused because the mouse was taken defers the step, and it is tried again on resume; a focus that
   * failed otherwise fails the step: input must not go to whatever window is in front.
   */
  private async focusIfNeeded(runtime: AgentRuntime): Promise<void> {
    const takeovers = runtime.dispatcher.takeover.takeovers;
    const keyboardRefusals = runtime.dispatcher.keyboardRefusals;
    const moved = this.focusedAtTakeovers !== takeovers || this.focusedAtKeyboardRefusals !== keyboardRefusals;
    if (!runtime.tools.names.has('focus_window') || (!this.needsFocus && !moved)) return;
    const actor = { sessionId: runtime.sessionId, agent: this.name, stepIdx: runtime.nextStepIndex() };
    let result;
    try {
      result = await runtime.gate.focusWindow(this.window.id, actor, runtime.signal);
    } catch (error) {
      if (error instanceof TakeoverError) throw new StepDeferred(error.message);
      throw error;
    }
    if (runtime.dispatcher.takeover.paused) throw new StepDeferred('the user has taken the mouse');
    throwIfAborted(runtime.signal);
    if (result.status !== 'success') {
      throw new Error(`could not bring ${this.target ?? 'the window'} to the front: ${result.error ?? 'no detail'}`);
    }
    this.needsFocus = false;
    this.focusedAtTakeovers = takeovers;
    this.focusedAtKeyboardRefusals = keyboardRefusals;
  }
}

/** Runs shell commands: alone in shell mode, or as the host's delegate. */
export class ShellAgent extends BasicAgent {
  private readonly steps = new ProcessorTemplate(
    [
      noScreenshotStrategy,
      shellPromptStrategy,
      modelStrategy(AppAgentReply, (models) => models.app),
      formStrategy,
      new ComposedStrategy('act', 'ACTION_EXECUTION', [actionPlanStrategy({ sequences: () => false, tools: ['execute_command'] }), safetyGateStrategy, executeStrategy]),
    ],
    middleware(),
    INPUTS,
  );

  constructor(host: BasicAgent | null) {
    super('ShellAgent', null, agentStates('ShellAgent', host === null), host);
  }

  protected processor(): ProcessorTemplate {
    return this.steps;
  }

  protected model(runtime: AgentRuntime): ModelWithPrices {
    return runtime.models.app;
  }
}

/** Creates the host's delegates: one AppAgent per application window (reused while it stays open), one ShellAgent. */
export class AgentRegistry {
  private readonly apps = new Map<string, AppAgent>();
  private shellAgent: ShellAgent | null = null;

  constructor(private readonly host: BasicAgent) {}

  forTarget(target: HandoffTarget): BasicAgent {
    if (target.kind === 'agent') return (this.shellAgent ??= new ShellAgent(this.host));
    const key = `${target.window.app}\u0000${target.window.id}`;
    let agent = this.apps.get(key);
    if (!agent) {
      agent = new AppAgent(target.window, this.host);
      this.apps.set(key, agent);
    }
    agent.window = target.window;
    return agent;
  }

  /** Forgets the agents of windows that are gone. */
  keepOnly(openWindowIds: ReadonlySet<string>): void {
    for (const [key, agent] of this.apps) if (!openWindowIds.has(agent.window.id)) this.apps.delete(key);
  }

  get size(): number {
    return this.apps.size + (this.shellAgent ? 1 : 0);
  }
}

/** Splits the request into sub-tasks and hands each to an AppAgent or the ShellAgent; asks; finishes. */
export class HostAgent extends BasicAgent {
  readonly registry = new AgentRegistry(this);
  private handoff: HandoffTarget | null = null;
  private readonly steps = new ProcessorTemplate(
    [
      screenshotStrategy(() => null),
      windowsStrategy,
      hostPromptStrategy,
      modelStrategy(HostAgentReply, (models) => models.host),
      new ComposedStrategy('hand-over', 'ACTION_EXECUTION', [hostPlanStrategy, safetyGateStrategy, executeStrategy, hostHandoffStrategy]),
    ],
    middleware(),
    INPUTS,
  );
  private pendingSubtask = '';
  private pendingNotes: readonly string[] = [];
  /** The windows listed in the last step, for telling an opened application's window from those before. */
  private windowsSeen: readonly WindowInfo[] = [];

  constructor() {
    super('HostAgent', null, agentStates('HostAgent', true), null);
  }

  protected processor(): ProcessorTemplate {
    return this.steps;
  }

  protected model(runtime: AgentRuntime): ModelWithPrices {
    return runtime.models.host;
  }

  protected override afterProcessor(ctx: StepContext): void {
    this.handoff = ctx.maybe<HandoffTarget | null>(HANDOFF) ?? null;
    const reply = ctx.maybe<HostAgentReply>(K.reply);
    this.pendingSubtask = reply?.['Current Sub-Task'] ?? '';
    this.pendingNotes = reply?.Message ?? [];
    const windows = ctx.maybe<WindowInfo[]>(K.windows);
    this.windowsSeen = windows ?? [];
    if (windows) this.registry.keepOnly(new Set(windows.map((window) => window.id)));
  }

  /** An application opened once the user approved it: the held sub-task goes to its window, as it would have at once. */
  protected override async afterApproved(runtime: AgentRuntime, plan: ActionPlan, outcome: StepOutcome): Promise<StepOutcome> {
    if (outcome.status !== 'CONTINUE' || plan.action?.function !== 'launch_app') return outcome;
    const opened = await handOffToOpened(runtime, plan.controlText, this.windowsSeen, outcome);
    this.handoff = opened.handoff;
    return opened.outcome;
  }

  override takeHandoff(): BasicAgent | null {
    const target = this.handoff;
    this.handoff = null;
    if (!target || this.status !== 'CONTINUE') return null;
    const agent = this.registry.forTarget(target);
    agent.assign(this.pendingSubtask, this.pendingNotes);
    return agent;
  }
}
