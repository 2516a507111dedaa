import { validateAction } from '../../commands/validate-action';
import { LaunchResult } from '../../device/contract';
import type { HostAgentReply } from '../../llm/reply-schemas';
import { asData } from '../../prompter/messages';
import type { Strategy } from '../processor/processor';
import type { AgentRuntime } from '../runtime';
import { K, type ActionPlan, type StepOutcome, type WindowInfo } from '../step-keys';
import { runtimeOf } from './observe';
import { DELEGATE_AGENTS } from './prompts';

export type HandoffTarget = { kind: 'window'; window: WindowInfo } | { kind: 'agent'; name: (typeof DELEGATE_AGENTS)[number] };

const TARGET = 'target';
export const HANDOFF = 'handoff';

function same(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/**
 * The contract's rule for the host's choice: a listed window id or agent name in ControlLabel; when it is
 * empty, ControlText naming exactly one listed window (title or application) or agent. An id that is not
 * listed is an error, never a guess.
 */
export function resolveTarget(label: string, text: string, windows: readonly WindowInfo[]): HandoffTarget {
  const agentNamed = (name: string) => DELEGATE_AGENTS.find((agent) => same(agent, name));
  if (label.trim()) {
    const agent = agentNamed(label);
    if (agent) return { kind: 'agent', name: agent };
    const window = windows.find((candidate) => candidate.id === label.trim());
    if (window) return { kind: 'window', window };
    const listed = [...windows.map((candidate) => candidate.id), ...DELEGATE_AGENTS].join(', ') || '(none)';
    throw new Error(`ControlLabel '${asData(label, 80)}' is not a listed window id or agent; listed: ${listed}`);
  }
  const agent = agentNamed(text);
  const matches = windows.filter((candidate) => same(candidate.title, text) || same(candidate.app, text));
  const count = matches.length + (agent ? 1 : 0);
  if (count === 1) return agent ? { kind: 'agent', name: agent } : { kind: 'window', window: matches[0] as WindowInfo };
  if (count === 0) throw new Error(`no listed window or agent is named '${asData(text, 80)}': give a window id in ControlLabel`);
  throw new Error(`'${asData(text, 80)}' names ${count} windows or agents: give the window id in ControlLabel`);
}

type LaunchOrTarget = { kind: 'launch'; app: string } | HandoffTarget | null;

/** ACTION_EXECUTION for the host: check the target (or the application to open) before anything runs. */
export const hostPlanStrategy: Strategy = {
  name: 'host-plan',
  phase: 'ACTION_EXECUTION',
  needs: [K.reply, K.windows],
  provides: [K.plan, TARGET],
  async run(ctx) {
    const runtime = runtimeOf(ctx);
    const reply = ctx.get<HostAgentReply>(K.reply);
    const windows = ctx.get<WindowInfo[]>(K.windows);
    const plan: ActionPlan = { commands: [], contexts: [], action: null, actionText: 'No action', controlText: reply.ControlText };
    if (reply.Status !== 'CONTINUE') {
      ctx.set(K.plan, plan);
      ctx.set(TARGET, null);
      return;
    }
    const subtask = asData(reply['Current Sub-Task'], 80);
    if (reply.AppsToOpen) {
      const args = { name: reply.AppsToOpen.APP, ...(reply.AppsToOpen.file_path ? { args: [reply.AppsToOpen.file_path] } : {}) };
      const validated = validateAction('launch_app', args, runtime.tools.names);
      if (!validated.ok) throw new Error(`cannot open ${asData(reply.AppsToOpen.APP, 60)}: ${validated.error}`);
      ctx.set(K.plan, {
        commands: [validated.command],
        contexts: [{ controlText: reply.AppsToOpen.APP, modelStatus: reply.Status, targetApp: '' }],
        action: { function: 'launch_app', args },
        actionText: `Open ${asData(reply.AppsToOpen.APP, 60)}, then hand over '${subtask}'`,
        controlText: reply.AppsToOpen.APP,
      } satisfies ActionPlan);
      ctx.set(TARGET, { kind: 'launch', app: reply.AppsToOpen.APP } satisfies LaunchOrTarget);
      return;
    }
    const target = resolveTarget(reply.ControlLabel, reply.ControlText, windows);
    const name = target.kind === 'agent' ? target.name : asData(target.window.title || target.window.app, 60);
    ctx.set(K.plan, { ...plan, action: { function: 'hand_over', args: { to: name, subtask: reply['Current Sub-Task'] } }, actionText: `Hand '${subtask}' to ${name}` });
    ctx.set(TARGET, target);
  },
};

/** How long the host looks for an opened application's window. */
const WINDOW_WAIT_MS = 10_000;
/** After this long without a new window, the one listed window of the application is taken (a single-instance program). */
const REUSED_WINDOW_AFTER_MS = 2_000;

/** Whether `window`'s program or title names the application asked for. */
function namedLike(window: WindowInfo, wanted: string): boolean {
  return window.app.toLowerCase().includes(wanted) || window.title.toLowerCase().includes(wanted);
}

/**
 * The new window the device reported for launch_app, if it did. One it could not tie to the program
 * (`unverified`: no owner known, a class that does not name it) may be another program's: taken only
 * when it is named like the application, else looked for as if none was reported.
 */
function reportedWindow(outcome: StepOutcome, wanted: string): WindowInfo | null {
  const launched = LaunchResult.safeParse(outcome.results[0]?.structured);
  if (!launched.success || !launched.data.window) return null;
  const { id, title, app, bounds } = launched.data.window;
  const window = { id, title, app, bounds };
  return launched.data.window_match === 'unverified' && !namedLike(window, wanted) ? null : window;
}

/**
 * After an application was opened, the hand-off goes to its new window: the one the device reported,
 * else a window named like the application that was not listed before. An older window is taken only
 * when no new one appears and it is the only one named so; anything else is a guess, hence an error.
 */
async function findOpenedWindow(runtime: AgentRuntime, app: string, before: readonly WindowInfo[], outcome: StepOutcome): Promise<WindowInfo | null> {
  const wanted = app.toLowerCase();
  const reported = reportedWindow(outcome, wanted);
  if (reported) return reported;
  const listed = new Set(before.map((window) => window.id));
  const started = Date.now();
  while (Date.now() - started < WINDOW_WAIT_MS && !runtime.signal.aborted) {
    const windows = await runtime.dispatcher.listWindows(runtime.signal);
    const named = windows.filter((window) => namedLike(window, wanted));
    const fresh = named.find((window) => !listed.has(window.id));
    if (fresh) return fresh;
    if (named.length === 1 && Date.now() - started >= REUSED_WINDOW_AFTER_MS) return named[0] as WindowInfo;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return null;
}

/**
 * An application was opened for a hand-off (at once, or once the user approved it): whom the sub-task
 * goes to, and the step's outcome saying so.
 */
export async function handOffToOpened(
  runtime: AgentRuntime,
  app: string,
  before: readonly WindowInfo[],
  outcome: StepOutcome,
): Promise<{ handoff: HandoffTarget | null; outcome: StepOutcome }> {
  let window: WindowInfo | null;
  try {
    window = await findOpenedWindow(runtime, app, before, outcome);
  } catch (error) {
    if (!runtime.signal.aborted) {
      // The application is open: the step must say so, or the model opens it a second time.
      const why = error instanceof Error ? error.message : String(error);
      return { handoff: null, outcome: { ...outcome, status: 'ERROR', error: `opened ${asData(app, 60)}, but could not look for its window: ${why}` } };
    }
    window = null;
  }
  // Stopped while the window was awaited: the application was opened all the same, and the step says so.
  if (!window && runtime.signal.aborted) {
    return { handoff: null, outcome: { ...outcome, result: `Opened ${asData(app, 60)}; stopped before its window appeared` } };
  }
  if (!window) {
    return { handoff: null, outcome: { ...outcome, status: 'ERROR', error: `opened ${asData(app, 60)}, but no window of it appeared` } };
  }
  return { handoff: { kind: 'window', window }, outcome: { ...outcome, result: `Opened ${asData(window.title || window.app, 60)}` } };
}

/** ACTION_EXECUTION, last for the host: settles whom the sub-task goes to. */
export const hostHandoffStrategy: Strategy = {
  name: 'host-handoff',
  phase: 'ACTION_EXECUTION',
  needs: [K.outcome, TARGET],
  provides: [HANDOFF],
  async run(ctx) {
    const outcome = ctx.get<StepOutcome>(K.outcome);
    const target = ctx.get<LaunchOrTarget>(TARGET);
    ctx.set(HANDOFF, null);
    if (outcome.status !== 'CONTINUE' || !target) return;
    if (target.kind !== 'launch') {
      ctx.set(HANDOFF, target);
      ctx.set(K.outcome, { ...outcome, result: ctx.get<ActionPlan>(K.plan).actionText });
      return;
    }
    const opened = await handOffToOpened(runtimeOf(ctx), target.app, ctx.get<WindowInfo[]>(K.windows), outcome);
    ctx.set(HANDOFF, opened.handoff);
    ctx.set(K.outcome, opened.outcome);
  },
};
