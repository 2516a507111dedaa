import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BasicAgent } from '../../src-main/agents/basic-agent';
import { errorMiddleware } from '../../src-main/agents/processor/middleware';
import { ProcessorTemplate, type Strategy } from '../../src-main/agents/processor/processor';
import { StepContext } from '../../src-main/agents/processor/step-context';
import type { AgentRuntime, ModelWithPrices } from '../../src-main/agents/runtime';
import { agentStates } from '../../src-main/agents/states/states';
import { K, type ActionPlan, type StepOutcome, type WindowInfo } from '../../src-main/agents/step-keys';
import { executeStrategy } from '../../src-main/agents/strategies/act';
import { HANDOFF, hostHandoffStrategy } from '../../src-main/agents/strategies/handoff';
import type { AuditEntry } from '../../src-main/commands/audit-store';
import type { Command } from '../../src-main/commands/command';
import { CommandGate, type ActionContext } from '../../src-main/commands/command-gate';
import type { DeviceConnection } from '../../src-main/commands/device-connection';
import { Dispatcher } from '../../src-main/commands/dispatcher';
import { SafetyPolicy } from '../../src-main/commands/safety-policy';
import { DeskhandConfig, SafetyConfig } from '../../src-main/host/config';
import type { NewStep } from '../../src-main/memory/session-store';
import type { StepView } from '../../src-main/protocol';

type DeviceCall = (name: string, args: Record<string, unknown>) => CallToolResult;

const done = (text: string, structuredContent?: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text }],
  ...(structuredContent ? { structuredContent } : {}),
});

/** A device connection answering each call with `answer`; a real Dispatcher and CommandGate on top. */
function commandLayer(answer: DeviceCall, safety: Record<string, unknown> = { confirmation: 'never' }) {
  const device = { callTool: async (name: string, args: Record<string, unknown>) => answer(name, args) } as unknown as DeviceConnection;
  const dispatcher = new Dispatcher(device);
  const audit: AuditEntry[] = [];
  const gate = new CommandGate(dispatcher, new SafetyPolicy(SafetyConfig.parse(safety)), {
    record: (entry) => audit.push(entry),
    begin: (entry) => audit.push({ ...entry, status: 'running', result: null, error: null, durationMs: 0 }) - 1,
    finish: (id, outcome) => Object.assign(audit[id] as AuditEntry, outcome),
  });
  return { dispatcher, gate, audit };
}

function fakeRuntime(parts: Partial<AgentRuntime> & { commits?: NewStep[] }): AgentRuntime {
  const commits = parts.commits ?? [];
  const model: ModelWithPrices = { client: {} as ModelWithPrices['client'], inputPricePerMTok: 0, outputPricePerMTok: 0 };
  return {
    sessionId: 's',
    round: 0,
    request: 'r',
    signal: new AbortController().signal,
    config: DeskhandConfig.parse({}),
    models: { host: model, app: model },
    tools: { names: new Set<string>(), docs: '' },
    subtasks: [],
    progress: () => undefined,
    setStatus: () => undefined,
    isPaused: () => false,
    nextStepIndex: () => commits.length,
    saveAnswers: async (write: () => void) => write(),
    commitStep: async (step: NewStep) => {
      commits.push(step);
      return { ...step, index: commits.length - 1 } as unknown as StepView;
    },
    ...parts,
  } as unknown as AgentRuntime;
}

const command = (toolName: string, parameters: Record<string, unknown>): Command => ({ toolName, parameters, toolType: 'action', callId: `${toolName}-${Math.random()}` });
const context = (): ActionContext => ({ controlText: '', modelStatus: 'CONTINUE', targetApp: 'mousepad' });

describe('executeStrategy: an action sequence cut short by Stop', () => {
  it('is not reported as done when later actions never ran', async () => {
    const controller = new AbortController();
    // Stop is pressed while the first action runs: it completes, the second never starts.
    const { gate, dispatcher } = commandLayer((name) => {
      controller.abort();
      return done(`${name} done`);
    });
    const commands = [command('wait', { seconds: 0 }), command('hotkey', { keys: ['ctrl', 's'] })];
    const plan: ActionPlan = { commands, contexts: [context(), context()], action: null, actionText: 'wait\nsave', controlText: '' };
    const runtime = fakeRuntime({ gate, dispatcher, signal: controller.signal });
    const ctx = new StepContext({ runtime, agent: { name: 'AppAgent' } });
    ctx.set(K.plan, plan);
    ctx.set(K.reply, { Status: 'CONTINUE' });
    ctx.set(K.screenshot, null);
    ctx.set(K.authorization, gate.authorize(plan.commands, plan.contexts));
    await executeStrategy.run(ctx);
    const outcome = ctx.get<StepOutcome>(K.outcome);
    expect(outcome.results.map((result) => result.status)).toEqual(['success', 'skipped']);
    expect(outcome.status).toBe('ERROR');
    expect(outcome.error).toMatch(/stopped: 1 of 2 action\(s\) ran/);
  });
});

/** An agent whose processor is the given strategies (runtime and agent are its inputs). */
class ScriptedAgent extends BasicAgent {
  private readonly steps: ProcessorTemplate;

  constructor(strategies: Strategy[]) {
    super('AppAgent', null, agentStates('AppAgent', true), null);
    this.steps = new ProcessorTemplate(strategies, [errorMiddleware(() => false)], ['runtime', 'agent']);
  }

  protected processor(): ProcessorTemplate {
    return this.steps;
  }

  protected model(runtime: AgentRuntime): ModelWithPrices {
    return runtime.models.app;
  }
}

describe('BasicAgent.process: a strategy that fails without a message', () => {
  it('still records an ERROR step with a reason, and never the outcome of a step that failed', async () => {
    const commits: NewStep[] = [];
    const runtime = fakeRuntime({ commits });
    for (const thrown of [new Error(''), '']) {
      const failing: Strategy = {
        name: 'act',
        phase: 'ACTION_EXECUTION',
        needs: [],
        provides: [K.outcome],
        async run(ctx) {
          // What an earlier part of the step had settled before the failure.
          ctx.set(K.outcome, { status: 'CONTINUE', result: 'done', error: null, approvedBy: 'policy', results: [] } satisfies StepOutcome);
          throw thrown;
        },
      };
      const agent = new ScriptedAgent([failing]);
      await agent.process(runtime);
      const step = commits.at(-1);
      expect(step?.status, JSON.stringify(thrown)).toBe('ERROR');
      expect(step?.error, JSON.stringify(thrown)).toMatch(/act \(ACTION_EXECUTION\) failed/);
    }
  });
});

describe('hostHandoffStrategy: the window of an application just opened', () => {
  const xterm: WindowInfo = { id: '0x100001', title: 'Terminal', app: 'xterm', bounds: { x: 0, y: 0, width: 10, height: 10 } };
  const second: WindowInfo = { ...xterm, id: '0x300001', title: 'Terminal 2' };
  const mousepad: WindowInfo = { id: '0x200002', title: 'Untitled 1 - Mousepad', app: 'mousepad', bounds: { x: 0, y: 0, width: 10, height: 10 } };

  afterEach(() => {
    vi.useRealTimers();
  });

  function handoffContext(app: string, before: WindowInfo[], listings: Array<WindowInfo[] | Error>, launchData?: Record<string, unknown>) {
    let calls = 0;
    const dispatcher = {
      async listWindows() {
        const listing = listings[Math.min(calls, listings.length - 1)] ?? [];
        if (listing instanceof Error) throw listing;
        calls++;
        return listing;
      },
    };
    const runtime = fakeRuntime({ dispatcher: dispatcher as unknown as Dispatcher });
    const ctx = new StepContext({ runtime, agent: { name: 'HostAgent' } });
    ctx.set(K.windows, before);
    ctx.set('target', { kind: 'launch', app });
    ctx.set(K.plan, { commands: [], contexts: [], action: null, actionText: `Open ${app}`, controlText: app } satisfies ActionPlan);
    const result = { status: 'success' as const, result: `started ${app}`, error: null, durationMs: 1, ...(launchData ? { structured: launchData } : {}) };
    ctx.set(K.outcome, { status: 'CONTINUE', result: null, error: null, approvedBy: 'policy', results: [result] } satisfies StepOutcome);
    return ctx;
  }

  it('is the new window, not an older window of the same application listed before it appeared', async () => {
    const ctx = handoffContext('xterm', [xterm], [[xterm], [xterm, second]]);
    await hostHandoffStrategy.run(ctx);
    expect(ctx.get(HANDOFF)).toEqual({ kind: 'window', window: second });
  });

  it('is the window the device reported for the launch, even when the name asked for was a menu name', async () => {
    const ctx = handoffContext('Text Editor', [xterm], [[xterm, mousepad]], { pid: 42, command: ['mousepad'], window: mousepad });
    await hostHandoffStrategy.run(ctx);
    expect(ctx.get(HANDOFF)).toEqual({ kind: 'window', window: mousepad });
    expect(ctx.get<StepOutcome>(K.outcome)).toMatchObject({ status: 'CONTINUE', result: 'Opened Untitled 1 - Mousepad' });
  });

  it('is not a window the device could not tie to the program unless it is named like the application', async () => {
    vi.useFakeTimers();
    // A notification that came while Mousepad started, neither owner nor class known: not handed the sub-task.
    const popup: WindowInfo = { id: '0x500005', title: 'Update available', app: '', bounds: { x: 0, y: 0, width: 10, height: 10 } };
    const ctx = handoffContext('mousepad', [xterm], [[xterm, popup]], { pid: 42, command: ['mousepad'], window: popup, window_match: 'unverified' });
    const running = hostHandoffStrategy.run(ctx);
    await vi.advanceTimersByTimeAsync(11_000);
    await running;
    expect(ctx.get(HANDOFF)).toBeNull();
    expect(ctx.get<StepOutcome>(K.outcome)).toMatchObject({ status: 'ERROR', error: 'opened mousepad, but no window of it appeared' });

    // Named like it, it is taken; and a window of the program named otherwise comes from the listing.
    const named = handoffContext('mousepad', [xterm], [[xterm, mousepad]], { pid: 42, command: ['mousepad'], window: mousepad, window_match: 'unverified' });
    await hostHandoffStrategy.run(named);
    expect(named.get(HANDOFF)).toEqual({ kind: 'window', window: mousepad });
    const listed = handoffContext('mousepad', [xterm], [[xterm, popup, mousepad]], { pid: 42, command: ['mousepad'], window: popup, window_match: 'unverified' });
    await hostHandoffStrategy.run(listed);
    expect(listed.get(HANDOFF)).toEqual({ kind: 'window', window: mousepad });
  });

  it('is never a guess among several older windows: no new one is an error', async () => {
    vi.useFakeTimers();
    const ctx = handoffContext('xterm', [xterm, second], [[xterm, second]]);
    const running = hostHandoffStrategy.run(ctx);
    await vi.advanceTimersByTimeAsync(11_000);
    await running;
    expect(ctx.get(HANDOFF)).toBeNull();
    expect(ctx.get<StepOutcome>(K.outcome)).toMatchObject({ status: 'ERROR', error: expect.stringMatching(/no window of it appeared|2 windows/) });
  });

  it('is the one window of an application that opened no new window (a single-instance program)', async () => {
    vi.useFakeTimers();
    const ctx = handoffContext('xterm', [xterm, mousepad], [[xterm, mousepad]]);
    const running = hostHandoffStrategy.run(ctx);
    await vi.advanceTimersByTimeAsync(11_000);
    await running;
    expect(ctx.get(HANDOFF)).toEqual({ kind: 'window', window: xterm });
  });

  it('says the application was opened when its window cannot be looked for', async () => {
    const ctx = handoffContext('xterm', [], [new Error('list_windows failed: the X server went away')]);
    await hostHandoffStrategy.run(ctx);
    expect(ctx.get(HANDOFF)).toBeNull();
    expect(ctx.get<StepOutcome>(K.outcome)).toMatchObject({
      status: 'ERROR',
      error: 'opened xterm, but could not look for its window: list_windows failed: the X server went away',
    });
  });
});
