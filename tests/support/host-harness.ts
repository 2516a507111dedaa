import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DeskhandConfig } from '../../src-main/host/config';
import { createHost, type Host } from '../../src-main/host/create-host';
import type { HostEvent } from '../../src-main/protocol';
import { deviceEnv, type DeviceLaunchSpec } from '../../src-main/device/launch';
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
  restart(): Promise<Host>;
  close(): Promise<void>;
}

export function fakeDeviceLaunch(env: Record<string, string>): DeviceLaunchSpec {
  return {
    command: process.execPath,
    args: ['--import', 'tsx', resolve('tests/support/fake-device.ts')],
    env: deviceEnv({ ...process.env, ...env }),
    cwd: process.cwd(),
  };
}

/** A host in this process with the fake device client and the scripted model server. */
export async function startHostHarness(
  scenario: Scenario,
  options: { config?: Partial<DeskhandConfig>; deviceEnv?: Record<string, string> } = {},
): Promise<HostHarness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'deskhand-test-'));
  const actionLog = join(dataDir, 'device-actions.jsonl');
  const model = await startModelServer(scenario);
  const events: HostEvent[] = [];
  const config = DeskhandConfig.parse({
    models: { host: { baseUrl: model.baseUrl, model: 'scripted', maxRetries: 0, timeoutMs: 10_000 } },
    ...options.config,
  });
  const build = (): Host => {
    const host = createHost({
      dataDir,
      config,
      env: { ...process.env, OPENAI_API_KEY: 'test-key' },
      deviceLaunch: fakeDeviceLaunch({ DESKHAND_FAKE_DEVICE_LOG: actionLog, ...options.deviceEnv }),
    });
    host.sessions.subscribe((event) => events.push(event));
    return host;
  };
  const harness: HostHarness = {
    host: build(),
    model,
    dataDir,
    events,
    deviceActions() {
      if (!existsSync(actionLog)) return [];
      return readFileSync(actionLog, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as FakeDeviceAction);
    },
    async restart() {
      await harness.host.close();
      harness.host = build();
      return harness.host;
    },
    async close() {
      await harness.host.close();
      await model.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}

/** Starts a session through the protocol endpoint and waits for its run to end. */
export async function runRequest(host: Host, request: string) {
  const reply = await host.endpoint.handle({ type: 'session.start', id: 'start-1', request });
  if (reply.type !== 'reply' || !reply.ok) throw new Error(`start refused: ${JSON.stringify(reply)}`);
  const outcome = await host.sessions.running;
  if (!outcome) throw new Error('no run started');
  const { session } = reply.result as { session: { id: string } };
  return { sessionId: session.id, outcome, steps: host.store.steps(session.id) };
}
