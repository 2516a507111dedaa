import { CommandOutput } from '../../device/contract';
import { asData, buildMessages, dataTail, promptTextOf, userText } from '../../prompter/messages';
import { renderDocs } from '../../prompter/retrieved-docs';
import type { StepView } from '../../protocol';
import type { Strategy } from '../processor/processor';
import type { AgentRuntime, SubtaskRecord } from '../runtime';
import { K, type ChatMessage, type Observation, type WindowInfo } from '../step-keys';
import { runtimeOf } from './observe';

/** How many identical actions in a row make the agent be told it is going round in circles. */
const REPEAT_WARNING_AFTER = 2;

export interface PromptingAgent {
  readonly name: string;
  readonly target: string | null;
  readonly subtask: string | null;
  /** The HostAgent's notes for the sub-task (its reply's Message), e.g. values found earlier. */
  readonly notes: readonly string[];
  readonly history: readonly StepView[];
}

/** Characters an older step's result shows, on one line. */
const OLDER_RESULT_CHARS = 300;
/** Characters the latest step's output shows, per stream (stdout, stderr) for a command: its tail. */
export const LATEST_OUTPUT_CHARS = 4_000;

/** A step's result (or error) that is execute_command's report, or null for any other text. */
function commandOutputOf(text: string | null): CommandOutput | null {
  if (!text?.startsWith('{')) return null;
  try {
    const parsed = CommandOutput.safeParse(JSON.parse(text) as unknown);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function exitOf(output: CommandOutput): string {
  return output.timed_out ? 'timed out' : output.exit_code === null ? 'no exit code' : `exit code ${output.exit_code}`;
}

function stepHead(step: StepView): string {
  return `Step ${step.index + 1} [${step.status}] ${asData(step.actionText, 200)} ->`;
}

function historyLine(step: StepView): string {
  const output = commandOutputOf(step.error ?? step.result);
  if (output) {
    const streams = [
      ...(output.stdout.trim() ? [`stdout: ${asData(output.stdout, 200)}`] : []),
      ...(output.stderr.trim() ? [`stderr: ${asData(output.stderr, 100)}`] : []),
    ];
    return `${stepHead(step)} ${step.error ? 'failed' : 'ok'}, ${[exitOf(output), ...streams].join('; ')}`;
  }
  const outcome = step.error ? `failed: ${asData(step.error, OLDER_RESULT_CHARS)}` : step.result ? `ok: ${asData(step.result, OLDER_RESULT_CHARS)}` : 'ok';
  return `${stepHead(step)} ${outcome}`;
}

function streamBlock(name: string, text: string): string {
  return text.trim() ? `${name}:\n${dataTail(text, LATEST_OUTPUT_CHARS)}` : `${name}: (empty)`;
}

/**
 * The latest step, whose output the next decision rests on, gets a larger budget of its own, lines
 * kept: a command's stdout and stderr each, or a long result. An error is shown by the feedback.
 */
function latestStep(step: StepView): string {
  const output = commandOutputOf(step.error ?? step.result);
  if (output) {
    return [`${stepHead(step)} ${step.error ? 'failed' : 'ok'}, ${exitOf(output)}`, streamBlock('stdout', output.stdout), streamBlock('stderr', output.stderr)].join('\n');
  }
  if (!step.error && step.result && step.result.length > OLDER_RESULT_CHARS) return `${stepHead(step)} ok:\n${dataTail(step.result, LATEST_OUTPUT_CHARS)}`;
  return historyLine(step);
}

/**
 * The last `recent` steps of an agent, with a count of those left out so the prompt stays bounded: the
 * latest in full (within LATEST_OUTPUT_CHARS), the others on one short line each.
 */
export function renderHistory(history: readonly StepView[], recent: number): string {
  const shown = recent > 0 ? history.slice(-recent) : [];
  const omitted = history.length - shown.length;
  const lines = [
    ...(omitted > 0 ? [`(${omitted} earlier step${omitted === 1 ? '' : 's'} not shown)`] : []),
    ...shown.map((step, i) => (i === shown.length - 1 ? latestStep(step) : historyLine(step))),
  ];
  return lines.length ? lines.join('\n') : '(none yet)';
}

/**
 * Feedback on the last step of this round: its error, or a warning when the same action keeps repeating.
 * A step of an earlier round is no feedback: a follow-up request starts afresh.
 */
export function renderFeedback(history: readonly StepView[], round: number): string {
  const last = history.at(-1);
  if (!last || last.round !== round) return '';
  if (last.error) {
    const output = commandOutputOf(last.error);
    // A command's output is in the history already.
    const error = output ? `the command ${exitOf(output)}` : `<data name="error">${asData(last.error, 500)}</data>`;
    return `\nYour last step failed: ${error}\nCorrect the reply or choose another action.\n`;
  }
  if (!last.action) return '';
  const key = JSON.stringify(last.action);
  // A held step ran nothing: with the decision step after it, it is one action, not two.
  const acted = history.filter((step) => step.status !== 'CONFIRM');
  let repeats = 0;
  for (let i = acted.length - 1; i >= 0 && acted[i]?.action && JSON.stringify(acted[i]?.action) === key; i--) repeats++;
  return repeats >= REPEAT_WARNING_AFTER
    ? `\nYou have done the same action ${repeats} times in a row (<data name="action">${asData(last.actionText, 120)}</data>). It is not getting closer to the goal: look at the screen again and try something different, or FAIL.\n`
    : '';
}

/**
 * The blackboard as data, without the steps the asking agent's own history already shows. Saved
 * screenshots are listed by their reason, not attached: each step sends one image, its own screenshot.
 */
function blackboardPart(runtime: AgentRuntime, agent: PromptingAgent): string {
  const ownSteps = new Set(agent.history.map((step) => step.index + 1));
  const prompt = runtime.blackboard.toPrompt({
    budgetChars: runtime.config.prompt.blackboardBudgetChars,
    historyKeys: runtime.config.prompt.historyKeys,
    maxImages: 0,
    skipTrajectory: (item) => ownSteps.has(item.get('Step') as number),
  });
  return prompt.text ? `<data name="blackboard">\n${prompt.text}\n</data>` : '';
}

/** A note, and all of a sub-task's notes together, may take this many characters. */
const NOTE_CHARS = 500;
export const NOTES_CHARS = 1_500;

/** The HostAgent's notes for the sub-task, as data, within NOTES_CHARS; '' when there are none. */
export function renderNotes(notes: readonly string[]): string {
  const given = notes.filter((note) => note.trim());
  const lines: string[] = [];
  let left = NOTES_CHARS;
  for (const note of given) {
    const line = `- ${asData(note, NOTE_CHARS)}`;
    if (line.length + 1 > left) break;
    lines.push(line);
    left -= line.length + 1;
  }
  const omitted = given.length - lines.length;
  if (omitted) lines.push(`(${omitted} more note${omitted === 1 ? '' : 's'} left out)`);
  return lines.length ? `\n## Notes from the HostAgent\n<data name="notes">\n${lines.join('\n')}\n</data>` : '';
}

function screenPart(runtime: AgentRuntime, image: Observation | null): { text: string; images: Array<{ dataUrl: string }> } {
  if (!image) return { text: 'No screenshot this step.', images: [] };
  if (!runtime.config.agent.visual) return { text: 'Visual mode is off: no screenshot is sent.', images: [] };
  return { text: `The screenshot below is ${image.width}x${image.height} pixels.`, images: [{ dataUrl: image.dataUrl }] };
}

function finish(ctx: Parameters<Strategy['run']>[0], messages: ChatMessage[]): void {
  ctx.set(K.messages, messages);
  ctx.set(K.promptText, promptTextOf(messages));
}

/** LLM_INTERACTION: the AppAgent's prompt (window screenshot, its sub-task, its steps, the blackboard). */
export const appPromptStrategy: Strategy = {
  name: 'app-prompt',
  phase: 'LLM_INTERACTION',
  needs: [K.screenshot],
  provides: [K.messages, K.promptText],
  async run(ctx) {
    const runtime = runtimeOf(ctx);
    const agent = ctx.get<PromptingAgent>('agent');
    const { app, examples } = runtime.prompts;
    const systemTemplate = !runtime.config.agent.visual ? app.system_nonvisual : runtime.config.agent.actionSequence ? app.system_as : app.system;
    const system = systemTemplate.render({ tools: runtime.tools.docs, examples: examples.app });
    const screen = screenPart(runtime, ctx.get<Observation | null>(K.screenshot));
    const user = app.user.render({
      request: userText(runtime.request),
      subtask: userText(agent.subtask ?? runtime.request),
      target: agent.target ? `You work in the window <data name="window">${asData(agent.target, 200)}</data>.` : '',
      notes: renderNotes(agent.notes),
      history: renderHistory(agent.history, runtime.config.prompt.recentSteps),
      blackboard: blackboardPart(runtime, agent),
      documents: renderDocs(runtime.docs.retrieve(agent.subtask ?? runtime.request, 2)),
      feedback: renderFeedback(agent.history, runtime.round),
      screen: screen.text,
    });
    finish(ctx, buildMessages(system, user, screen.images));
  },
};

/** LLM_INTERACTION: the ShellAgent's prompt (no screenshot; its commands and their output). */
export const shellPromptStrategy: Strategy = {
  name: 'shell-prompt',
  phase: 'LLM_INTERACTION',
  needs: [],
  provides: [K.messages, K.promptText],
  async run(ctx) {
    const runtime = runtimeOf(ctx);
    const agent = ctx.get<PromptingAgent>('agent');
    const { shell, examples } = runtime.prompts;
    const shellName = process.platform === 'win32' ? 'Commands run in PowerShell on Windows.' : `Commands run in bash on ${process.platform === 'darwin' ? 'macOS' : 'Linux'}.`;
    const system = shell.system.render({
      shell: shellName,
      tools: runtime.tools.docs.split('\n').filter((line) => line.startsWith('- execute_command(')).join('\n'),
      examples: examples.shell,
    });
    const user = shell.user.render({
      request: userText(runtime.request),
      subtask: userText(agent.subtask ?? runtime.request),
      notes: renderNotes(agent.notes),
      history: renderHistory(agent.history, runtime.config.prompt.recentSteps),
      blackboard: blackboardPart(runtime, agent),
      feedback: renderFeedback(agent.history, runtime.round),
    });
    finish(ctx, buildMessages(system, user, []));
  },
};

function windowLine(window: WindowInfo): string {
  const { x, y, width, height } = window.bounds;
  return `- id ${window.id}: ${asData(window.title || '(no title)', 120)} [app: ${asData(window.app, 60)}] at ${x},${y} ${width}x${height}`;
}

/** Characters the host's window list may take: a desktop with hundreds of windows must not grow the prompt. */
export const WINDOWS_CHARS = 8_000;

/** The open windows, one line each, in the device's order, within WINDOWS_CHARS. */
export function renderWindows(windows: readonly WindowInfo[]): string {
  if (!windows.length) return '(no windows are open)';
  const lines: string[] = [];
  let left = WINDOWS_CHARS;
  for (const window of windows) {
    const line = windowLine(window);
    if (line.length + 1 > left) break;
    lines.push(line);
    left -= line.length + 1;
  }
  const unlisted = windows.length - lines.length;
  if (unlisted) lines.push(`(${unlisted} more window${unlisted === 1 ? '' : 's'} not listed: the list is over its size limit)`);
  return lines.join('\n');
}

function subtaskLine(record: SubtaskRecord, index: number): string {
  const who = record.target ? `${record.agent} (${asData(record.target, 60)})` : record.agent;
  return `${index + 1}. ${asData(record.subtask, 200)} -> ${who}: ${record.status}${record.result ? `, ${asData(record.result, 300)}` : ''}`;
}

/** Characters the host's list of sub-tasks may take: a long round must not grow the prompt step by step. */
export const SUBTASKS_CHARS = 6_000;

/**
 * The round's sub-tasks, numbered from the first, within SUBTASKS_CHARS: the latest are kept (what the
 * host decides next depends on them most), the earliest give way to a line that counts them.
 */
export function renderSubtasks(records: readonly SubtaskRecord[]): string {
  if (!records.length) return '(none yet)';
  const lines: string[] = [];
  let left = SUBTASKS_CHARS;
  for (let index = records.length - 1; index >= 0; index--) {
    const record = records[index];
    if (!record) continue;
    const line = subtaskLine(record, index);
    if (line.length + 1 > left) break;
    lines.unshift(line);
    left -= line.length + 1;
  }
  const unlisted = records.length - lines.length;
  if (unlisted) lines.unshift(`(${unlisted} earlier sub-task${unlisted === 1 ? '' : 's'} not listed: the list is over its size limit)`);
  return lines.join('\n');
}

/** The agents the host can hand work to besides application windows. */
export const DELEGATE_AGENTS = ['ShellAgent'] as const;

/** LLM_INTERACTION: the HostAgent's prompt (desktop screenshot, windows, agents, sub-tasks, its steps, blackboard). */
export const hostPromptStrategy: Strategy = {
  name: 'host-prompt',
  phase: 'LLM_INTERACTION',
  needs: [K.screenshot, K.windows],
  provides: [K.messages, K.promptText],
  async run(ctx) {
    const runtime = runtimeOf(ctx);
    const agent = ctx.get<PromptingAgent>('agent');
    const { host, examples } = runtime.prompts;
    const system = (runtime.config.agent.visual ? host.system : host.system_nonvisual).render({ examples: examples.host });
    const windows = ctx.get<WindowInfo[]>(K.windows);
    const screen = screenPart(runtime, ctx.get<Observation | null>(K.screenshot));
    const user = host.user.render({
      request: userText(runtime.request),
      windows: renderWindows(windows),
      agents: '- ShellAgent: runs shell commands (files, programs, system information); no window needed.',
      subtasks: renderSubtasks(runtime.subtasks),
      history: renderHistory(agent.history, runtime.config.prompt.recentSteps),
      blackboard: blackboardPart(runtime, agent),
      documents: renderDocs(runtime.docs.retrieve(runtime.request, 2)),
      feedback: renderFeedback(agent.history, runtime.round),
      screen: screen.text,
    });
    finish(ctx, buildMessages(system, user, screen.images));
  },
};
