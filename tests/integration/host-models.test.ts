import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deviceLaunchSpec, WITHHELD_ENV } from '../../src-main/device/launch';
import { DeskhandConfig, tokenVariables, type DeskhandConfigInput } from '../../src-main/host/config';
import { createHost, type Host } from '../../src-main/host/create-host';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { fakeDeviceLaunch, followUp, replies, runRequest, startHostHarness } from '../support/host-harness';

/**
 * The host's model clients and secrets: the host's API key goes only to the host's endpoint, an MCP
 * server's token variable is a secret whatever it is called, and a client lives across rounds.
 */

const KEY = 'sk-host-key-0123456789abcdef';
const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function modelServer(name: string, comment: string): Promise<ModelServer> {
  const server = await startModelServer({ name, steps: [replies.app({ Function: '', Status: 'FINISH', Comment: comment })] });
  cleanup.push(() => server.close());
  return server;
}

function host(config: DeskhandConfigInput, env: NodeJS.ProcessEnv = {}): Host {
  const dataDir = mkdtempSync(join(tmpdir(), 'deskhand-keys-'));
  const created = createHost({
    dataDir,
    config: DeskhandConfig.parse(config),
    env: { ...process.env, OPENAI_API_KEY: KEY, ...env },
    deviceLaunch: fakeDeviceLaunch({}),
  });
  cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
  cleanup.push(() => created.close());
  return created;
}

describe('API keys and tokens', () => {
  it('sends the host key to the agents\' model only when it is on the same endpoint', async () => {
    const hostModel = await modelServer('host endpoint', 'unused');
    const elsewhere = await modelServer('another endpoint', 'done elsewhere');
    const profile = (baseUrl: string, model: string) => ({ baseUrl, model, maxRetries: 0 });
    const apart = host({ models: { host: profile(hostModel.baseUrl, 'big'), app: profile(elsewhere.baseUrl, 'small') } });
    expect((await runRequest(apart, 'say hi', 'shell')).outcome).toEqual({ status: 'finished', result: 'done elsewhere' });
    expect(elsewhere.requests[0]?.headers.authorization).toBe('Bearer not-needed');

    const together = host({ models: { host: profile(hostModel.baseUrl, 'big'), app: profile(hostModel.baseUrl, 'small') } });
    expect((await runRequest(together, 'say hi', 'shell')).outcome).toEqual({ status: 'finished', result: 'unused' });
    expect(hostModel.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('treats the variable an MCP server\'s token is read from as a secret, whatever it is called', async () => {
    const token = 'mcp-token-value-0123456789';
    const config = { mcpServers: [{ name: 'gh', transport: 'http' as const, url: 'http://127.0.0.1:9/mcp', tokenSecret: 'GITHUB_MCP' }] };
    expect(tokenVariables(DeskhandConfig.parse(config))).toEqual(new Set(['GITHUB_MCP']));
    // Not handed to the device client (and so to the commands it runs) ...
    const spec = deviceLaunchSpec({ root: '/r', mode: 'built', env: { PATH: '/bin', GITHUB_MCP: token }, secretNames: tokenVariables(DeskhandConfig.parse(config)) });
    expect(spec.env).toEqual({ PATH: '/bin', [WITHHELD_ENV]: 'GITHUB_MCP' });
    // ... and scrubbed from what is stored and logged, like a key.
    const model = await modelServer('token', 'ok');
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    cleanup.push(() => logged.mockRestore());
    const deskhand = host({ ...config, models: { host: { baseUrl: model.baseUrl, model: 'scripted', maxRetries: 0 } } }, { GITHUB_MCP: token });
    const { sessionId } = await runRequest(deskhand, `use ${token} for the repository`, 'shell');
    expect(deskhand.store.getSession(sessionId)?.title ?? '').not.toContain(token);
    expect(JSON.stringify(deskhand.store.steps(sessionId))).not.toContain(token);
    expect(model.requests[0]?.text).toContain('use [redacted] for the repository');
    expect(logged.mock.calls.flat().join('\n')).not.toContain(token);
  });
});

describe('model clients', () => {
  it('keep what an endpoint refused across rounds: a model without temperature is refused once per session, not per round', async () => {
    const finish = (comment: string) => replies.app({ Function: '', Status: 'FINISH', Comment: comment });
    const harness = await startHostHarness({ name: 'no temperature', unsupportedParams: ['temperature'], steps: [finish('one'), finish('two')] });
    cleanup.push(() => harness.close());
    const { sessionId, outcome } = await runRequest(harness.host, 'first', 'shell');
    expect(outcome).toEqual({ status: 'finished', result: 'one' });
    expect((await followUp(harness.host, sessionId, 'second')).outcome).toEqual({ status: 'finished', result: 'two' });
    expect(harness.model.requests.map((request) => [request.step, 'temperature' in request.body])).toEqual([
      [null, true],
      [0, false],
      [1, false],
    ]);
  });
});
