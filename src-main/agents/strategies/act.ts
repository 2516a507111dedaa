import { ApprovalRequiredError, TakeoverError, type ActionContext, type Authorization } from '../../commands/command-gate';
import type { Command } from '../../commands/command';
import { validateAction } from '../../commands/validate-action';
import type { AppAgentReply } from '../../llm/reply-schemas';
import { isDeepStrictEqual } from 'node:util';
import { annotateScreenshot, type AnnotatableMime } from '../../device/annotate';
import { HOST_ONLY_TOOLS, POINT_ARGS, pointsOf, type ToolName } from '../../device/contract';
import { describeAction, type ActionView } from '../../protocol';
import type { Strategy } from '../processor/processor';
import type { StepContext } from '../processor/step-context';
import { K, outcomeOfResults, trackWrite, type ActionPlan, type Observation, type StepOutcome } from '../step-keys';
import { runtimeOf } from './observe';
import { logError } from '../../common/log';

/** Statuses whose action runs (or is held for approval); the others carry no action. */
const ACTING = new Set(['CONTINUE', 'CONFIRM']);

/** A model speaking 0..1000 coordinates: scale them to the screenshot it saw. */
function fromNormalized(args: Record<string, unknown>, image: Observation): Record<string, unknown> {
  const scaled = { ...args };
  for (const [xKey, yKey] of POINT_ARGS) {
    const x = scaled[xKey];
    const y = scaled[yKey];
    if (typeof x === 'number') scaled[xKey] = Math.round((x / 1000) * (image.width - 1));
    if (typeof y === 'number') scaled[yKey] = Math.round((y / 1000) * (image.height - 1));
  }
  return scaled;
}

/** Coordinates must fall on the image the model was shown; anything else is a mistake, not a click. */
function checkInsideImage(command: Command, image: Observation | null): string | null {
  if (!image) return null;
  for (const { x, y } of pointsOf(command.parameters)) {
    if (x < 0 || y < 0 || x >= image.width || y >= image.height) {
      return `${command.toolName} at (${x}, ${y}) is outside the ${image.width}x${image.height} screenshot`;
    }
  }
  return null;
}

type ActionFields = Pick<AppAgentReply, 'Function' | 'Args' | 'ControlText' | 'Actions' | 'Status'>;

/** A step says CONFIRM for all its actions; an action of a sequence can also say it for itself. */
function statusOf(stepStatus: string, actionStatus: string | undefined): string {
  return actionStatus?.trim().toUpperCase() === 'CONFIRM' ? 'CONFIRM' : stepStatus;
}

/**
 * ACTION_EXECUTION, first: turns the reply's Function/Args (or Actions) into validated commands. An
 * unknown tool, bad arguments or a point outside the screenshot fails the step before anything runs.
 */
export function actionPlanStrategy(options: {
  sequences: (ctx: StepContext) => boolean;
  /** Limits the agent to some tools (the ShellAgent: execute_command); all the device offers by default. */
  tools?: readonly string[];
  /** The window the actions go to (an AppAgent's): its application for the safety policy, its id for the device's keyboard check. */
  target?: () => { app: string; window: string };
}): Strategy {
  return {
    name: 'plan-action',
    phase: 'ACTION_EXECUTION',
    needs: [K.reply, K.screenshot],
    provides: [K.plan],
    async run(ctx) {
      const runtime = runtimeOf(ctx);
      const reply = ctx.get<ActionFields>(K.reply);
      const image = ctx.get<Observation | null>(K.screenshot);
      const empty: ActionPlan = { commands: [], contexts: [], action: null, actionText: 'No action', controlText: reply.ControlText };
      if (!ACTING.has(reply.Status)) {
        ctx.set(K.plan, empty);
        return;
      }
      const sequence = (reply.Actions ?? []).map((step) => ({
        fn: step.Function,
        args: step.Args,
        control: step.ControlText || reply.ControlText,
        status: statusOf(reply.Status, step.Status),
      }));
      // Both given: the Function may only repeat the first action, else running either drops the other.
      const opening = sequence[0];
      if (reply.Function && opening && (opening.fn !== reply.Function || !isDeepStrictEqual(opening.args, reply.Args))) {
        throw new Error(
          `the reply gives both Function (${reply.Function}) and Actions (first: ${opening.fn || 'none'}): give one action in Function and Args, or the actions in Actions`,
        );
      }
      // Sequences off: one action in Actions with Function left empty is still that one action.
      const wanted =
        sequence.length && (options.sequences(ctx) || (!reply.Function && sequence.length === 1))
          ? sequence
          : [{ fn: reply.Function, args: reply.Args, control: reply.ControlText, status: reply.Status }];
      if (!wanted[0]?.fn) {
        const why = sequence.length > 1 ? ' (action sequences are off: give one action in Function and Args)' : '';
        throw new Error(`Status ${reply.Status} needs an action, but Function is empty${why}`);
      }
      const offered = [...runtime.tools.names].filter((name) => !HOST_ONLY_TOOLS.has(name as ToolName));
      const available = new Set(options.tools ? offered.filter((name) => options.tools?.includes(name)) : offered);
      const commands: Command[] = [];
      const contexts: ActionContext[] = [];
      const target = options.target?.() ?? { app: '', window: '' };
      const words: string[] = [];
      for (const [index, step] of wanted.entries()) {
        const args = runtime.config.agent.normalizedCoordinates && image ? fromNormalized(step.args, image) : step.args;
        const validated = validateAction(step.fn, args, available);
        const where = wanted.length > 1 ? `action ${index + 1}: ` : '';
        if (!validated.ok) throw new Error(`${where}${validated.error}`);
        const outside = checkInsideImage(validated.command, image);
        if (outside) throw new Error(`${where}${outside}`);
        commands.push(image?.shotId ? { ...validated.command, screenshotId: image.shotId } : validated.command);
        contexts.push({ controlText: step.control, modelStatus: step.status, targetApp: target.app, ...(target.window ? { targetWindow: target.window } : {}) });
        words.push(describeAction({ function: step.fn, args }, step.control || undefined));
      }
      const first = commands[0] as Command;
      const action: ActionView = { function: first.toolName, args: first.parameters };
      ctx.set(K.plan, { commands, contexts, action, actionText: words.join('\n'), controlText: reply.ControlText } satisfies ActionPlan);
    },
  };
}

/** ACTION_EXECUTION, second: the command layer's safety policy decides, whatever status the model gave. */
export const safetyGateStrategy: Strategy = {
  name: 'safety-gate',
  phase: 'ACTION_EXECUTION',
  needs: [K.plan],
  provides: [K.authorization],
  async run(ctx) {
    const runtime = runtimeOf(ctx);
    const plan = ctx.get<ActionPlan>(K.plan);
    ctx.set(K.authorization, runtime.gate.authorize(plan.commands, plan.contexts));
  },
};

/** What a step whose reply came while the run was paused says: its action did not run. */
export const PAUSED_BEFORE_ACTING = 'Not run: the run was paused before this action; after Resume the agent looks at the screen again';

/**
 * ACTION_EXECUTION, last: runs allowed commands; holds those that need approval (status CONFIRM, run
 * later only if approved); refuses denied ones. Non-acting statuses pass through.
 */
export const executeStrategy: Strategy = {
  name: 'execute',
  phase: 'ACTION_EXECUTION',
  needs: [K.authorization, K.plan, K.reply, K.screenshot],
  provides: [K.outcome],
  async run(ctx) {
    const runtime = runtimeOf(ctx);
    const agent = ctx.get<{ name: string }>('agent');
    const plan = ctx.get<ActionPlan>(K.plan);
    const reply = ctx.get<{ Status: StepOutcome['status']; Comment?: string; Questions?: string[] } & Partial<ActionFields>>(K.reply);
    const authorization = ctx.get<Authorization>(K.authorization);
    const set = (outcome: StepOutcome): void => ctx.set(K.outcome, outcome);
    if (!plan.commands.length) {
      const questions = (reply.Questions ?? []).filter(Boolean);
      const said = reply.Status === 'PENDING' && questions.length ? questions.join(' ') : reply.Comment || null;
      const result = [said, notRun(reply)].filter(Boolean).join(' ') || null;
      return set({ status: reply.Status, result, error: null, approvedBy: null, results: [] });
    }
    const actor = { sessionId: runtime.sessionId, agent: agent.name, stepIdx: runtime.nextStepIndex() };
    if (authorization.decision === 'deny') {
      runtime.gate.recordRefusal(authorization, actor, 'denied');
      return set({
        status: 'ERROR',
        result: null,
        error: `refused by the safety policy: ${authorization.reasons.join('; ')}`,
        approvedBy: null,
        results: [],
        notRun: 'refused',
      });
    }
    if (authorization.decision === 'confirm') {
      return set({ status: 'CONFIRM', result: `Held for your approval: ${authorization.reasons.join('; ')}`, error: null, approvedBy: null, results: [] });
    }
    // The step's record comes first: a screenshot that cannot be written fails the step before it acts.
    await ctx.get<Observation | null>(K.screenshot)?.written;
    // Paused while the model answered: the action is not run. After Resume the agent looks again, at a
    // screen the user may have changed meanwhile, instead of acting on what it saw before.
    if (runtime.isPaused()) {
      return set({ status: 'CONTINUE', result: PAUSED_BEFORE_ACTING, error: null, approvedBy: null, results: [], notRun: 'paused' });
    }
    runtime.progress(plan.actionText.split('\n')[0] ?? 'Acting');
    let results;
    try {
      results = await runtime.gate.execute(authorization, actor, false, runtime.signal);
    } catch (error) {
      // The safety settings changed while the step was prepared: a rule now refuses it, or it now needs
      // approval; not run, and the agent's next step is judged by the settings as they are.
      if (error instanceof ApprovalRequiredError) {
        return set({ status: 'ERROR', result: null, error: `not run: ${error.message}`, approvedBy: null, results: [], ...(error.refused ? { notRun: 'refused' as const } : {}) });
      }
      if (!(error instanceof TakeoverError)) throw error;
      return set({ status: 'ERROR', result: null, error: `not run: ${error.message}`, approvedBy: null, results: [], takenOver: true, notRun: 'taken-over' });
    }
    set(outcomeOfResults(results, 'policy'));
  },
};

/**
 * What a reply that ends the sub-task (FINISH, FAIL) named as an action, which such a status never runs:
 * said in the step's result, so that "done" with an action left undone (a save, say) is not taken for done.
 */
function notRun(reply: Partial<ActionFields> & { Status: string }): string | null {
  if (reply.Status !== 'FINISH' && reply.Status !== 'FAIL') return null;
  const named = [reply.Function, ...(reply.Actions ?? []).map((action) => action.Function)].filter((name): name is string => Boolean(name));
  if (!named.length) return null;
  return `(Not run: ${[...new Set(named)].join(', ')}, given with ${reply.Status}, which takes no action.)`;
}

/** Actions whose place on the screen is worth drawing. */
function pointsAtTheScreen(action: ActionView): boolean {
  return pointsOf(action.args).length > 0;
}

/**
 * ACTION_EXECUTION, after the gate: a copy of the screenshot with the action drawn on it (click point,
 * drag path, typed text…) for actions aimed at a point, and for every action held for approval (the
 * approval card shows it). A drawing failure is logged and the step goes on: the annotation is a view,
 * never a reason not to act.
 */
export const annotateStrategy: Strategy = {
  name: 'annotate',
  phase: 'ACTION_EXECUTION',
  needs: [K.plan, K.screenshot, K.authorization],
  provides: [K.annotated],
  async run(ctx) {
    const runtime = runtimeOf(ctx);
    const plan = ctx.get<ActionPlan>(K.plan);
    const image = ctx.get<Observation | null>(K.screenshot);
    const held = ctx.get<Authorization>(K.authorization).decision === 'confirm';
    ctx.set(K.annotated, null);
    if (!image || !plan.action || !isAnnotatable(image.mimeType)) return;
    if (!held && !pointsAtTheScreen(plan.action)) return;
    try {
      const drawn = await annotateScreenshot(image.bytes, image.mimeType, plan.action);
      const name = `${image.stored.file.replace(/\.[a-z]+$/, '')}-annotated`;
      const { stored, written } = runtime.writeScreenshot({ bytes: drawn, mimeType: image.mimeType, width: image.width, height: image.height }, name);
      // A copy that cannot be written is dropped, like one that cannot be drawn; the step goes on.
      trackWrite(
        ctx,
        written.catch((error: Error) => {
          ctx.set(K.annotated, null);
          logError(`[agent] could not save the annotated screenshot: ${error.message}`);
        }),
      );
      ctx.set(K.annotated, stored);
    } catch (error) {
      logError(`[agent] could not draw the action on the screenshot: ${(error as Error).message}`);
    }
  },
};

function isAnnotatable(mime: string): mime is AnnotatableMime {
  return mime === 'image/jpeg' || mime === 'image/webp' || mime === 'image/png';
}
