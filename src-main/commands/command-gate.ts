import { randomUUID } from 'node:crypto';
import { isDiskFull } from '../common/storage-errors';
import { logError } from '../common/log';
import { isToolName, sendsInput, type ExpectKeyboard } from '../device/contract';
import type { AuditDecision, AuditEntry, AuditOutcome } from './audit-store';
import type { Command, CommandResult } from './command';
import { isTerminalApp, normaliseKey, type SafetyDecision, type SafetyInput, type SafetyVerdict } from './safety-policy';
import type { Dispatcher } from './dispatcher';

/** A command not run because its audit row could not be written first. */
const NOT_AUDITED: CommandResult = {
  status: 'failure',
  result: '',
  error: "not run: the disk that holds Deskhand's data is full, so the command's audit record could not be written first",
  durationMs: 0,
};

export interface SafetyEvaluator {
  evaluate(input: SafetyInput): SafetyVerdict;
}

export interface AuditSink {
  record(entry: AuditEntry): unknown;
  /** A row for a command about to run ('running'), completed by `finish`: a crash in between still shows. */
  begin(entry: Omit<AuditEntry, 'status' | 'result' | 'error' | 'durationMs'>): number;
  finish(id: number, outcome: AuditOutcome): void;
}

/** Who is acting, for the audit trail. */
export interface ActorContext {
  sessionId: string;
  agent: string;
  /** The index the step will get; known before it is committed. */
  stepIdx: number | null;
}

/** What the policy weighs for one command besides its tool and arguments. */
export interface ActionContext {
  /** The model's ControlText for this action ('' when none). */
  controlText: string;
  /** The model's Status for it: the step's, or within a sequence the action's own when it says more. */
  modelStatus: string;
  /** The application of the window the action goes to ('' when none or unknown). */
  targetApp: string;
  /** That window's id (as list_windows gives it), when there is one: the device recognises its program by it. */
  targetWindow?: string;
}

/**
 * The policy's verdict on a group of commands (one step's action or action sequence). Only an
 * Authorization from this gate can be executed, and one that needs approval only with the user's.
 * Its commands are frozen copies: what runs is what was judged and shown.
 */
export interface Authorization {
  readonly commands: readonly Command[];
  readonly contexts: readonly ActionContext[];
  readonly decision: SafetyDecision;
  readonly reasons: readonly string[];
  /**
   * Per command, the application its input was judged for, when the verdict depends on it: the device
   * refuses the input if it would reach another application's window (EXPECT_KEYBOARD_META).
   */
  readonly keyboard: readonly (ExpectKeyboard | null)[];
}

interface Judgement {
  decision: SafetyDecision;
  reasons: string[];
  keyboard: (ExpectKeyboard | null)[];
}

const RANK: Record<SafetyDecision, number> = { allow: 0, confirm: 1, deny: 2 };

const issued = new WeakSet<Authorization>();

export class ApprovalRequiredError extends Error {
  constructor(
    message: string,
    /** Refused by the safety policy's never-run rule (not merely waiting for an approval). */
    readonly refused = false,
  ) {
    super(message);
  }
}

/** The user has the mouse: nothing runs until they resume. */
export class TakeoverError extends Error {}

/**
 * The trusted layer between agents and the device: every command is checked against the safety policy
 * here, whatever status the model gave, and every one is audited, including those that never ran.
 */
export class CommandGate {
  constructor(
    private readonly dispatcher: Dispatcher,
    private policy: SafetyEvaluator,
    private readonly audit: AuditSink,
    private readonly isTrusted: (toolName: string) => boolean = () => true,
  ) {}

  /** New settings: later authorisations follow the new policy. */
  setPolicy(policy: SafetyEvaluator): void {
    this.policy = policy;
  }

  /** One context per command, in the same order. */
  authorize(commands: readonly Command[], contexts: readonly ActionContext[]): Authorization {
    if (contexts.length !== commands.length) throw new Error(`${commands.length} command(s) but ${contexts.length} context(s) to judge them by`);
    const frozen = commands.map((command) => deepFreeze({ ...command, parameters: structuredClone(command.parameters) }));
    const verdict = this.judge(frozen, contexts);
    const authorization: Authorization = Object.freeze({
      commands: Object.freeze(frozen),
      contexts: Object.freeze([...contexts]),
      decision: verdict.decision,
      reasons: Object.freeze(verdict.reasons),
      keyboard: Object.freeze(verdict.keyboard.map((expected) => expected && Object.freeze(expected))),
    });
    issued.add(authorization);
    return authorization;
  }

  /**
   * Brings an agent's window to the front before it looks and acts. This is the agent's own
   * preparation, not an action the model chose, so no mode holds it for approval; it is audited, and
   * the takeover check applies to it as to any action.
   */
  async focusWindow(windowId: string, actor: ActorContext, signal?: AbortSignal): Promise<CommandResult> {
    const command: Command = { toolName: 'focus_window', parameters: { id: windowId }, toolType: 'action', callId: `focus-${randomUUID()}` };
    const authorization: Authorization = Object.freeze({
      commands: Object.freeze([deepFreeze(command)]),
      contexts: Object.freeze([{ controlText: '', modelStatus: 'CONTINUE', targetApp: '' }]),
      decision: 'allow' as const,
      reasons: Object.freeze(['the agent brings its window to the front before acting']),
      keyboard: Object.freeze([null]),
    });
    issued.add(authorization);
    const [result] = await this.execute(authorization, actor, false, signal, { recheck: false });
    return result as CommandResult;
  }

  private judge(commands: readonly Command[], contexts: readonly ActionContext[]): Judgement {
    let decision: SafetyDecision = 'allow';
    const reasons: string[] = [];
    const keyboard: (ExpectKeyboard | null)[] = [];
    let keyboardMayHaveMoved = false;
    commands.forEach((command, index) => {
      const context = contexts[index] as ActionContext;
      const { verdict, expected } = this.judgeOne(command, context, keyboardMayHaveMoved);
      keyboard.push(expected);
      // After this, the keyboard may be in another window than the agent's: a new one, or a run dialog.
      if (mayMoveKeyboard(command)) keyboardMayHaveMoved = true;
      for (const reason of verdict.reasons) if (!reasons.includes(reason)) reasons.push(reason);
      if (RANK[verdict.decision] > RANK[decision]) decision = verdict.decision;
    });
    return { decision, reasons, keyboard };
  }

  /**
   * One command's verdict. Input judged for a window that is not a terminal would be judged more
   * strictly in one (a line typed there runs): then the device is asked to check, right before the
   * input, that it goes to that window's application, or the input is judged as if it could go
   * anywhere when there is no application to check against.
   */
  private judgeOne(
    command: Command,
    context: ActionContext,
    keyboardTargetUnknown: boolean,
  ): { verdict: SafetyVerdict; expected: ExpectKeyboard | null } {
    const input: SafetyInput = {
      toolName: command.toolName,
      args: command.parameters,
      controlText: context.controlText,
      modelStatus: context.modelStatus,
      targetApp: context.targetApp,
      keyboardTargetUnknown,
      trustedTool: this.isTrusted(command.toolName),
    };
    const verdict = this.policy.evaluate(input);
    if (keyboardTargetUnknown || !sendsInput(command.toolName, command.parameters) || isTerminalApp(context.targetApp)) {
      return { verdict, expected: null };
    }
    const anywhere = this.policy.evaluate({ ...input, keyboardTargetUnknown: true });
    const stricter = RANK[anywhere.decision] > RANK[verdict.decision] || anywhere.reasons.some((reason) => !verdict.reasons.includes(reason));
    if (!stricter) return { verdict, expected: null };
    const app = context.targetApp.trim();
    if (!app) return { verdict: anywhere, expected: null };
    return { verdict, expected: context.targetWindow ? { app, window: context.targetWindow } : { app } };
  }

  /**
   * Runs authorised commands in order; after a failure the rest are skipped. A denied authorisation, or
   * one needing approval without the user's, never runs: that is enforced here, not by the caller.
   */
  async execute(
    authorization: Authorization,
    actor: ActorContext,
    approvedByUser: boolean,
    signal?: AbortSignal,
    options: { recheck: boolean } = { recheck: true },
  ): Promise<CommandResult[]> {
    if (!issued.has(authorization)) throw new Error('commands must be authorised by the command gate before they run');
    if (authorization.decision === 'deny') {
      this.recordRefusal(authorization, actor, 'denied');
      throw new ApprovalRequiredError(`refused by the safety policy: ${authorization.reasons.join('; ')}`, true);
    }
    if (authorization.decision === 'confirm' && !approvedByUser) {
      this.recordRefusal(authorization, actor, 'rejected', 'not run: it needs the user\'s approval');
      throw new ApprovalRequiredError('this action needs the user\'s approval');
    }
    // The settings may have changed while the action waited for approval: a rule added since still counts.
    const now = options.recheck ? this.judge(authorization.commands, authorization.contexts) : authorization;
    if (now.decision === 'deny') {
      // The rule that denies it now is not among the reasons it was judged for: the row says it.
      this.recordRefusal(authorization, actor, 'denied', `denied by the safety policy: ${now.reasons.join('; ')}`);
      throw new ApprovalRequiredError(`refused by the safety policy: ${now.reasons.join('; ')}`, true);
    }
    if (now.decision === 'confirm' && !approvedByUser) {
      this.recordRefusal(authorization, actor, 'rejected', 'not run: the safety settings changed, and it now needs the user\'s approval');
      throw new ApprovalRequiredError('this action now needs the user\'s approval (the safety settings changed)');
    }
    if (this.dispatcher.takeover.paused) {
      this.recordRefusal(authorization, actor, approvedByUser ? 'approved' : 'allowed', 'not run: the user has taken the mouse');
      throw new TakeoverError(this.dispatcher.takeover.check(null).message);
    }
    const results: CommandResult[] = [];
    let failed = false;
    for (const [index, command] of authorization.commands.entries()) {
      const row = {
        ...auditBase(command, actor, authorization),
        decision: approvedByUser ? ('approved' as const) : ('allowed' as const),
        approvedBy: approvedByUser ? 'user' : 'policy',
        requestedAt: Date.now(),
      };
      let result: CommandResult;
      const id = failed || signal?.aborted ? null : this.beginAudit(row);
      if (id === null) {
        result = failed || signal?.aborted ? this.dispatcher.skipped(!failed && Boolean(signal?.aborted)) : NOT_AUDITED;
        this.recordNotRun({ ...row, status: result.status, result: null, error: result.error, durationMs: 0 });
      } else {
        result = await this.dispatcher.run(command, signal, now.keyboard[index] ?? null);
        this.audit.finish(id, { status: result.status, result: result.result || null, error: result.error, durationMs: result.durationMs });
      }
      failed ||= result.status === 'failure';
      results.push(result);
    }
    return results;
  }

  /**
   * The audit row of a command about to run, or null when the disk is too full to write it: a command
   * is never run without its row (earlier commands of the step that ran keep their results).
   */
  private beginAudit(row: Omit<AuditEntry, 'status' | 'result' | 'error' | 'durationMs'>): number | null {
    try {
      return this.audit.begin(row);
    } catch (error) {
      if (!isDiskFull(error)) throw error;
      logError(`[deskhand] ${row.tool} was not run: its audit row could not be written (${(error as Error).message})`);
      return null;
    }
  }

  /** The row of a command that did not run; on a full disk only logged, since nothing can be written. */
  private recordNotRun(entry: AuditEntry): void {
    try {
      this.audit.record(entry);
    } catch (error) {
      if (!isDiskFull(error)) throw error;
      logError(`[deskhand] the audit row of ${entry.tool} (not run: ${entry.error ?? 'skipped'}) could not be written: ${(error as Error).message}`);
    }
  }

  /**
   * Records commands that never ran, so the audit shows them: the user rejected them, the policy denied
   * them, or (approved or allowed) something stopped them first; `why` says what.
   */
  recordRefusal(authorization: Authorization, actor: ActorContext, decision: AuditDecision, why?: string): void {
    const error = why ?? (decision === 'denied' ? 'denied by the safety policy' : 'rejected by the user');
    for (const command of authorization.commands) {
      this.recordNotRun({
        ...auditBase(command, actor, authorization),
        decision,
        approvedBy: decision === 'approved' ? 'user' : decision === 'allowed' ? 'policy' : null,
        status: 'skipped',
        result: null,
        error,
        requestedAt: Date.now(),
        durationMs: 0,
      });
    }
  }
}

/**
 * Whether an action may give another window the keyboard: opening an application, focusing a window,
 * or a chord with Alt or the Windows/Command key (Alt+Tab, Alt+F2, Win+R, Ctrl+Alt+T).
 */
function mayMoveKeyboard(command: Command): boolean {
  if (command.toolName === 'launch_app' || command.toolName === 'focus_window') return true;
  if (command.toolName !== 'hotkey' || !Array.isArray(command.parameters.keys)) return false;
  return command.parameters.keys.some((key) => typeof key === 'string' && ['alt', 'meta'].includes(normaliseKey(key)));
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Who serves a tool, for the audit: the device, or the external server its name starts with ("files.read"). */
export function serverOf(toolName: string): string {
  return isToolName(toolName) ? 'device' : (toolName.split('.')[0] ?? 'external');
}

/** What every audit row of a command says, whatever happened to it. */
function auditBase(command: Command, actor: ActorContext, authorization: Authorization) {
  return {
    callId: command.callId,
    sessionId: actor.sessionId,
    stepIdx: actor.stepIdx,
    agent: actor.agent,
    tool: command.toolName,
    toolType: command.toolType,
    server: serverOf(command.toolName),
    args: command.parameters,
    reasons: [...authorization.reasons],
  };
}
