import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeviceLaunchSpec } from '../../src-main/device/launch';
import { DeskhandConfig, type DeskhandConfigInput, type ModelProfile } from '../../src-main/host/config';
import { createHost, type Host } from '../../src-main/host/create-host';
import type { HostEvent, SessionMode } from '../../src-main/protocol';
import type { RunOutcome } from '../../src-main/session/active-session';
import type { AutoResponder } from '../../src-main/session/interaction-broker';
import { startModelServer, type ModelServer, type Scenario } from '../fixtures/model-server';
import { fakeDeviceLaunch, readDeviceActions, type FakeDeviceAction } from './host-harness';

/**
 * Like tests/support/host-harness.ts, but the model profile (timeout, retries), the environment and the
 * device client are the test's to choose: the reliability suite needs small budgets, a real API key in
 * the environment, or the real device client.
 */
export interface ReliabilityHostOptions {
  config?: Omit<DeskhandConfigInput, 'models'>;
  model?: Partial<Pick<ModelProfile, 'timeoutMs' | 'maxRetries'>>;
  /** Environment of the host (the device client gets it without secrets). */
  env?: NodeJS.ProcessEnv;
  /** The device client; the stand-in (tests/support/fake-device.ts) with `fakeDeviceEnv` by default. */
  deviceLaunch?: DeviceLaunchSpec | 'real';
  fakeDeviceEnv?: Record<string, string>;
  autoResponder?: AutoResponder;
  dataDir?: string;
  /** Where the stand-in device logs its actions; in the data folder by default. */
  actionLog?: string;
}

export interface ReliabilityHost {
  host: Host;
  model: ModelServer;
  dataDir: string;
  events: HostEvent[];
  deviceActions(): FakeDeviceAction[];
  close(): Promise<void>;
}

/** Rejects questions and approvals at once, so a reply that slips through can never wait for a person. */
export const refuseEverything: AutoResponder = (interaction) =>
  interaction.kind === 'confirm'
    ? { kind: 'decision', approved: false, note: 'refused by the reliability suite' }
    : { kind: 'answers', answers: interaction.questions.map(() => 'no') };

export async function startReliabilityHost(scenario: Scenario, options: ReliabilityHostOptions = {}): Promise<ReliabilityHost> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'deskhand-reliability-'));
  const actionLog = options.actionLog ?? join(dataDir, 'device-actions.jsonl');
  const model = await startModelServer(scenario);
  const events: HostEvent[] = [];
  const config = DeskhandConfig.parse({
    ...options.config,
    models: {
      host: { baseUrl: model.baseUrl, model: 'scripted', maxRetries: options.model?.maxRetries ?? 0, timeoutMs: options.model?.timeoutMs ?? 10_000 },
    },
  });
  const env = options.env ?? { ...process.env, OPENAI_API_KEY: 'test-key' };
  const host = createHost({
    dataDir,
    config,
    env,
    deviceLaunch:
      options.deviceLaunch === 'real'
        ? undefined
        : (options.deviceLaunch ?? fakeDeviceLaunch({ DESKHAND_FAKE_DEVICE_LOG: actionLog, ...options.fakeDeviceEnv })),
    autoResponder: options.autoResponder ?? refuseEverything,
  });
  host.sessions.subscribe((event) => events.push(event));
  let closed = false;
  return {
    host,
    model,
    dataDir,
    events,
    deviceActions: () => readDeviceActions(actionLog),
    async close() {
      if (closed) return;
      closed = true;
      // A run stuck in a bug must not hold the test file open: stop it, and give up waiting after a while.
      const running = host.sessions.runningSessionId;
      if (running) await host.endpoint.handle({ type: 'session.stop', id: 'cleanup', sessionId: running });
      await settleWithin(host.close(), 3_000);
      await model.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Starts a session and returns its id (the round runs on; `host.sessions.running` settles when it ends). */
export async function startSession(host: Host, request: string, mode: SessionMode = 'shell'): Promise<string> {
  const reply = await host.endpoint.handle({ type: 'session.start', id: 'start', request, mode });
  if (reply.type !== 'reply' || !reply.ok) throw new Error(`start refused: ${JSON.stringify(reply)}`);
  return (reply.result as { session: { id: string } }).session.id;
}

/**
 * Waits for the round in progress, but no longer than `budgetMs`: a run that outlives the budget it was
 * given is a hang, and the test says so instead of timing out without a reason.
 */
export async function roundWithin(host: Host, budgetMs: number, what: string): Promise<RunOutcome> {
  const running = host.sessions.running;
  if (!running) throw new Error('no round is running');
  return withDeadline(running, budgetMs, `${what}: the round did not end within its budget of ${budgetMs} ms`);
}

export function withDeadline<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** Resolves when `promise` settles or after `ms`, whichever comes first; never rejects. */
export async function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  await withDeadline(promise, ms, 'gave up waiting').catch(() => undefined);
}

export async function waitUntil(what: string, condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * An empty home folder under `dir`, for the HOME of a host whose device client runs shell commands.
 * Commands run in a login shell, which reads the user's profile: on a developer machine that can be slow
 * or, worse, a profile step killed half way by a test (kill -9 of the host kills its commands) can leave
 * a lock behind that stalls every later login shell (pyenv's rehash lock does exactly that).
 */
export function isolatedHome(dir: string): string {
  const home = join(dir, 'home');
  mkdirSync(home, { recursive: true });
  return home;
}
