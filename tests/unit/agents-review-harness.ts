import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { resolve } from 'node:path';
import type { AgentRuntime, FormService, ModelWithPrices } from '../../src-main/agents/runtime';
import type { AuditEntry } from '../../src-main/commands/audit-store';
import { CommandGate } from '../../src-main/commands/command-gate';
import type { DeviceConnection } from '../../src-main/commands/device-connection';
import { Dispatcher } from '../../src-main/commands/dispatcher';
import { SafetyPolicy } from '../../src-main/commands/safety-policy';
import type { WindowInfo } from '../../src-main/device/contract';
import { DeskhandConfig, type DeskhandConfigInput } from '../../src-main/host/config';
import type { ModelClient } from '../../src-main/llm/model-client';
import { Blackboard } from '../../src-main/memory/blackboard';
import type { NewStep } from '../../src-main/memory/session-store';
import { loadPromptLibrary } from '../../src-main/prompter/prompt-library';
import type { StepView } from '../../src-main/protocol';
import type { InteractionBroker, InteractionRequest, InteractionResponse } from '../../src-main/session/interaction-broker';

// A 1x1 PNG: the screenshot every step gets (the model's coordinates are checked against its 200x100 meta).
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

export const WINDOWS: WindowInfo[] = [
  { id: '0x100001', title: 'Terminal', app: 'xterm', bounds: { x: 0, y: 0, width: 200, height: 100 } },
  { id: '0x200002', title: 'notes.txt - Mousepad', app: 'mousepad', bounds: { x: 200, y: 0, width: 200, height: 100 } },
];

export const DEVICE_TOOLS = ['screenshot', 'list_windows', 'pointer', 'focus_window', 'click', 'move', 'drag', 'scroll', 'type_text', 'hotkey', 'wait', 'launch_app', 'execute_command'];

export interface AgentHarness {
  runtime: AgentRuntime;
  /** Actions that reached the device, in order (screenshots, window lists and pointer reads left out). */
  actions: Array<{ tool: string; args: Record<string, unknown> }>;
  audit: AuditEntry[];
  steps: NewStep[];
  asked: InteractionRequest[];
  abort: AbortController;
}

export interface HarnessOptions {
  config?: DeskhandConfigInput;
  /** The model's replies, in order (objects are sent as JSON). */
  replies: Array<string | Record<string, unknown>>;
  /** How the user answers interactions; by default every approval is rejected. */
  answer?: (request: InteractionRequest) => InteractionResponse;
  /** A device tool's answer other than success. */
  device?: (tool: string, args: Record<string, unknown>) => CallToolResult | null;
  windows?: WindowInfo[];
}

function text(value: string, structuredContent?: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: value }], ...(structuredContent ? { structuredContent } : {}) };
}

export function agentHarness(options: HarnessOptions): AgentHarness {
  const config = DeskhandConfig.parse(options.config ?? {});
  const actions: AgentHarness['actions'] = [];
  const windows = options.windows ?? WINDOWS;
  const device = {
    async callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
      if (name === 'screenshot') {
        return {
          content: [{ type: 'image', data: PIXEL.toString('base64'), mimeType: 'image/png' }],
          structuredContent: { width: 200, height: 100, mimeType: 'image/png', region: { x: 0, y: 0, width: 200, height: 100 }, captureMs: 0, encodeMs: 0 },
        };
      }
      if (name === 'list_windows') return text(JSON.stringify(windows), { windows });
      if (name === 'pointer') return text('{}');
      actions.push({ tool: name, args });
      return options.device?.(name, args) ?? text(`${name} done`);
    },
  } as unknown as DeviceConnection;
  const dispatcher = new Dispatcher(device);
  const audit: AuditEntry[] = [];
  const gate = new CommandGate(dispatcher, new SafetyPolicy(config.safety), {
    record: (entry) => audit.push(entry),
    begin: (entry) => audit.push({ ...entry, status: 'running', result: null, error: null, durationMs: 0 }) - 1,
    finish: (id, outcome) => Object.assign(audit[id] as AuditEntry, outcome),
  });
  const replies = [...options.replies];
  const client = {
    async complete() {
      const next = replies.shift();
      if (next === undefined) throw new Error('the scripted model has no more replies');
      return { text: typeof next === 'string' ? next : JSON.stringify(next), usage: { prompt: 1, completion: 1 }, durationMs: 0 };
    },
  } as unknown as ModelClient;
  const model: ModelWithPrices = { client, inputPricePerMTok: 0, outputPricePerMTok: 0 };
  const steps: NewStep[] = [];
  const asked: InteractionRequest[] = [];
  const abort = new AbortController();
  const broker = {
    headless: false,
    async ask(request: InteractionRequest): Promise<InteractionResponse> {
      asked.push(request);
      return options.answer?.(request) ?? (request.kind === 'confirm' ? { kind: 'decision', approved: false, note: null } : { kind: 'answers', answers: ['yes'] });
    },
  } as unknown as InteractionBroker;
  const forms: FormService = {
    open: () => ({}) as ReturnType<FormService['open']>,
    close: () => undefined,
    waitForAction: () => Promise.reject(new Error('no forms here')),
  };
  const runtime: AgentRuntime = {
    sessionId: 's',
    round: 0,
    request: 'do it',
    blackboard: new Blackboard(),
    signal: abort.signal,
    config,
    gate,
    dispatcher,
    broker,
    forms,
    prompts: loadPromptLibrary(resolve('prompts')),
    docs: { retrieve: () => [] },
    models: { host: model, app: model },
    subtasks: [],
    tools: { names: new Set(DEVICE_TOOLS), docs: '' },
    writeScreenshot: (image, name) => ({
      stored: { file: `${name}.png`, width: image.width, height: image.height, bytes: image.bytes.length, sha256: '' },
      written: Promise.resolve(),
    }),
    commitStep: async (step) => {
      steps.push(step);
      return { ...step, index: steps.length - 1, screenshot: null, annotated: null } as unknown as StepView;
    },
    saveAnswers: async (write) => write(),
    countUsage: () => undefined,
    nextStepIndex: () => steps.length,
    progress: () => undefined,
    setStatus: () => undefined,
    untilResumed: () => Promise.resolve(),
    isPaused: () => false,
  };
  return { runtime, actions, audit, steps, asked, abort };
}

/** An AppAgent/ShellAgent reply with the contract's fields. */
export function appReply(fields: Record<string, unknown>): Record<string, unknown> {
  return { Observation: '', Thought: 't', ControlLabel: '', ControlText: '', Function: '', Args: {}, Status: 'CONTINUE', Plan: [], Comment: '', Questions: [], ...fields };
}

/** A HostAgent reply with the contract's fields. */
export function hostReply(fields: Record<string, unknown>): Record<string, unknown> {
  return { Observation: '', Thought: 't', 'Current Sub-Task': '', Message: [], ControlLabel: '', ControlText: '', Plan: [], Status: 'CONTINUE', Comment: '', Questions: [], AppsToOpen: null, ...fields };
}
