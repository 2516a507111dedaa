import { isToolName } from '../device/contract';
import type { AuditEntry } from './audit-store';
import type { Command, CommandResult } from './command';
import type { SafetyDecision, SafetyInput, SafetyVerdict } from './safety-policy';
import type { Dispatcher } from './dispatcher';

export interface SafetyEvaluator {
  evaluate(input: SafetyInput): SafetyVerdict;
}

export interface AuditSink {
  record(entry: AuditEntry): unknown;
}

/** Who is acting, for the audit trail. */
export interface ActorContext {
  sessionId: string;
  agent: string;
  /** The index the step will get; known before it is committed. */
  stepIdx: number | null;
}

/**
 * The policy's verdict on a group of commands (one step's action or action sequence). Only an
 * Authorization from this gate can be executed, and one that needs approval only with the user's.
 */
export interface Authorization {
  readonly commands: readonly Command[];
  readonly decision: SafetyDecision;
  readonly reasons: readonly string[];
}

const issued = new WeakSet<Authorization>();

export class ApprovalRequiredError extends Error {}

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

  authorize(commands: readonly Command[], controlText: string, modelStatus: string): Authorization {
    let decision: SafetyDecision = 'allow';
    const reasons: string[] = [];
    for (const command of commands) {
      const verdict = this.policy.evaluate({
        toolName: command.toolName,
        args: command.parameters,
        controlText,
        modelStatus,
        trustedTool: this.isTrusted(command.toolName),
      });
      for (const reason of verdict.reasons) if (!reasons.includes(reason)) reasons.push(reason);
      if (verdict.decision === 'deny') decision = 'deny';
      else if (verdict.decision === 'confirm' && decision === 'allow') decision = 'confirm';
    }
    const authorization: Authorization = Object.freeze({ commands: [...commands], decision, reasons });
    issued.add(authorization);
    return authorization;
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
  ): Promise<CommandResult[]> {
    if (!issued.has(authorization)) throw new Error('commands must be authorised by the command gate before they run');
    if (authorization.decision === 'deny') {
      this.recordRefusal(authorization, actor, 'denied');
      throw new ApprovalRequiredError(`refused by the safety policy: ${authorization.reasons.join('; ')}`);
    }
    if (authorization.decision === 'confirm' && !approvedByUser) {
      this.recordRefusal(authorization, actor, 'rejected');
      throw new ApprovalRequiredError('this action needs the user\'s approval');
    }
    if (this.dispatcher.takeover.paused) {
      this.recordRefusal(authorization, actor, 'rejected');
      throw new TakeoverError(this.dispatcher.takeover.check(null).message);
    }
    const results: CommandResult[] = [];
    let failed = false;
    for (const command of authorization.commands) {
      const requestedAt = Date.now();
      const result: CommandResult = failed || signal?.aborted ? this.dispatcher.skipped() : await this.dispatcher.run(command, signal);
      failed ||= result.status === 'failure';
      results.push(result);
      this.audit.record({
        ...auditBase(command, actor, authorization),
        decision: approvedByUser ? 'approved' : 'allowed',
        approvedBy: approvedByUser ? 'user' : 'policy',
        status: result.status,
        result: result.result || null,
        error: result.error,
        requestedAt,
        durationMs: result.durationMs,
      });
    }
    return results;
  }

  /** Records commands the user rejected (or the policy denied) so the audit shows what never ran. */
  recordRefusal(authorization: Authorization, actor: ActorContext, decision: 'rejected' | 'denied'): void {
    for (const command of authorization.commands) {
      this.audit.record({
        ...auditBase(command, actor, authorization),
        decision,
        approvedBy: null,
        status: 'skipped',
        result: null,
        error: decision === 'denied' ? 'denied by the safety policy' : 'rejected by the user',
        requestedAt: Date.now(),
        durationMs: 0,
      });
    }
  }
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
    server: isToolName(command.toolName) ? 'device' : (command.toolName.split('.')[0] ?? 'external'),
    args: command.parameters,
    reasons: [...authorization.reasons],
  };
}
