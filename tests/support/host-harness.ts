import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { deviceEnv, type DeviceLaunchSpec } from '../../src-main/device/launch';
import { DeskhandConfig, type DeskhandConfigInput } from '../../src-main/host/config';
import { createHost, type Host, type HostOptions } from '../../src-main/host/create-host';
import type { HostEvent, SessionMode } from '../../src-main/protocol';
import type { AutoResponder } from '../../src-main/session/interaction-broker';
import { startModelServer, type ModelServer, type Scenario } from '../fixtures/model-server';

export interface FakeDeviceAction {
  tool: string;
  args: Record<string, unknown>;
}

export interface HostHarness {
  host: Host;
  model: ModelServer;
  dataDir: string;
  events: HostEvent[];
  /** Actions that reached the fake device client, in order. */
  deviceActions(): FakeDeviceAction[];
  /** Closes the host and starts another on the same data folder; `meanwhile` runs while none is running. */
  restart(meanwhile?: () => void): Promise<Host>;
  close(): Promise<void>;
}

/** The actions the fake device client logged (DESKHAND_FAKE_DEVICE_LOG), in order. */
export function readDeviceActions(actionLog: string): FakeDeviceAction[] {
  if (!existsSync(actionLog)) return [];
  return readFileSync(actionLog, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as FakeDeviceAction);
}

export function fakeDeviceLaunch(env: Record<string, string>): DeviceLaunchSpec {
  return {
    command: process.execPath,
    args: ['--import', 'tsx', resolve('tests/support/fake-device.ts')],
    env: deviceEnv({ ...process.env, ...env }),
    cwd: process.cwd(),
  };
}

export interface HarnessOptions {
  config?: Omit<DeskhandConfigInput, 'models'>;
  deviceEnv?: Record<string, string>;
  autoResponder?: AutoResponder;
  /** An existing data folder (to share a database between harnesses); a new temporary one by default. */
  dataDir?: string;
  /** Model prices in US dollars per million tokens. */
  prices?: { input: number; output: number };
  /** Settings changed while running: the test calls the listener with the new configuration. */
  watchConfig?: HostOptions['watchConfig'];
  /** Answers settings.get and settings.set (a SettingsStore's handler); none by default. */
  settings?: HostOptions['settings'];
}

/** A host in this process with the fake device client and the scripted model server. */
export async function startHostHarness(scenario: Scenario, options: HarnessOptions = {}): Promise<HostHarness> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'deskhand-test-'));
  const actionLog = join(dataDir, 'device-actions.jsonl');
  const model = await startModelServer(scenario);
  const events: HostEvent[] = [];
  const config = DeskhandConfig.parse({
    ...options.config,
    models: {
      host: {
        baseUrl: model.baseUrl,
        model: 'scripted',
        maxRetries: 0,
        timeoutMs: 10_000,
        inputPricePerMTok: options.prices?.input ?? 0,
        outputPricePerMTok: options.prices?.output ?? 0,
      },
    },
  });
  const build = (): Host => {
    const host = createHost({
      dataDir,
      config,
      env: { ...process.env, OPENAI_API_KEY: 'test-key' },
      deviceLaunch: fakeDeviceLaunch({ DESKHAND_FAKE_DEVICE_LOG: actionLog, ...options.deviceEnv }),
      autoResponder: options.autoResponder,
      watchConfig: options.watchConfig,
      settings: options.settings,
    });
    host.sessions.subscribe((event) => events.push(event));
    return host;
  };
  const harness: HostHarness = {
    host: build(),
    model,
    dataDir,
    events,
    deviceActions: () => readDeviceActions(actionLog),
    async restart(meanwhile) {
      await harness.host.close();
      meanwhile?.();
      harness.host = build();
      return harness.host;
    },
    async close() {
      await harness.host.close();
      await model.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}

/** Polls `check` every 25 ms for up to 10 s; resolves with its first value that is not false, null or undefined. */
export async function until<T>(check: () => T | false | null | undefined, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const found = check();
    if (found !== false && found !== null && found !== undefined) return found;
    await new Promise((done) => setTimeout(done, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Starts a session through the protocol endpoint and waits for its round to end. */
export async function runRequest(host: Host, request: string, mode: SessionMode = 'desktop') {
  const reply = await host.endpoint.handle({ type: 'session.start', id: 'start-1', request, mode });
  if (reply.type !== 'reply' || !reply.ok) throw new Error(`start refused: ${JSON.stringify(reply)}`);
  const outcome = await host.sessions.running;
  if (!outcome) throw new Error('no run started');
  const { session } = reply.result as { session: { id: string } };
  return { sessionId: session.id, outcome, steps: host.store.steps(session.id) };
}

/** Sends a follow-up request in the same session and waits for the round. */
export async function followUp(host: Host, sessionId: string, request: string) {
  const reply = await host.endpoint.handle({ type: 'session.continue', id: 'continue-1', sessionId, request });
  if (reply.type !== 'reply' || !reply.ok) throw new Error(`follow-up refused: ${JSON.stringify(reply)}`);
  const outcome = await host.sessions.running;
  if (!outcome) throw new Error('no run started');
  return { outcome, steps: host.store.steps(sessionId) };
}

/** Scripted replies in the reply contract, with defaults for the fields a test does not care about. */
export const replies = {
  app: (fields: Record<string, unknown>) => ({
    json: { Observation: 'the window', Thought: 'next', ControlLabel: '', ControlText: '', Plan: [], Comment: '', ...fields },
  }),
  hostTo: (target: string, subtask: string, extra: Record<string, unknown> = {}) => ({
    json: {
      Observation: 'the desktop',
      Thought: 'delegate',
      'Current Sub-Task': subtask,
      Message: [],
      ControlLabel: target.startsWith('0x') || target === 'ShellAgent' ? target : '',
      ControlText: target.startsWith('0x') ? '' : target,
      Plan: [],
      Status: 'CONTINUE',
      Comment: '',
      Questions: [],
      AppsToOpen: null,
      ...extra,
    },
  }),
  host: (fields: Record<string, unknown>) => ({
    json: {
      Observation: 'the desktop',
      Thought: 'decide',
      'Current Sub-Task': '',
      Message: [],
      ControlLabel: '',
      ControlText: '',
      Plan: [],
      Comment: '',
      Questions: [],
      AppsToOpen: null,
      ...fields,
    },
  }),
};
