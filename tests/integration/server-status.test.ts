import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DeskhandConfig } from '../../src-main/host/config';
import { ServersStatusView, type HostMessage } from '../../src-main/protocol';
import { replies } from '../support/host-harness';
import { harnessPerTest, send } from '../support/host-per-test';

/**
 * `servers.status` and `servers.check` through the host's protocol endpoint (what Settings sends), with
 * a real stdio MCP server and HTTP servers that refuse the token.
 */

const { host } = replies;
const startHarness = harnessPerTest();
const idle = { name: 'no run', steps: [host({ Status: 'FINISH', Comment: 'done' })] };

const stdioServer = {
  name: 'notes',
  transport: 'stdio' as const,
  command: process.execPath,
  args: ['--import', 'tsx', resolve('tests/support/external-mcp-fixture.ts'), '--stdio'],
  trusted: false,
};
/** The fixture's tools: echo, add, slow, big, picture, pid, env_names, fail, crash. */
const FIXTURE_TOOL_COUNT = 9;

function statusesOf(reply: HostMessage): ServersStatusView['servers'] {
  if (reply.type !== 'reply' || !reply.ok) throw new Error(`refused: ${JSON.stringify(reply)}`);
  return ServersStatusView.parse(reply.result).servers;
}

/** An MCP server at a URL that refuses every request, repeating in its answer the token it was sent. */
async function startEchoingRefuser(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const token = (request.headers.authorization ?? '').replace(/^Bearer /, '');
    response.writeHead(401, { 'content-type': 'text/plain' }).end(`the token ${token} is not valid here`);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

const TOKEN_VARIABLE = 'DESKHAND_TEST_STATUS_TOKEN';
const TOKEN = 'status-token-value-4711';

afterEach(() => {
  delete process.env[TOKEN_VARIABLE];
});

describe('the status of the user\'s own MCP servers over the protocol', () => {
  it('refuses a malformed status command, saying what is wrong', async () => {
    const harness = await startHarness(idle);
    const extra = await send(harness, { type: 'servers.check', force: true });
    expect(extra).toMatchObject({ ok: false, id: 'c', error: { code: 'bad_message' } });
    expect(extra.type === 'reply' && !extra.ok && extra.error.message).toMatch(/^invalid command: .*force/);
    const unknown = await send(harness, { type: 'servers.ping' });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'bad_message', message: expect.stringMatching(/^invalid command: type: /) } });
  });

  it('answers an empty list when no server is configured', async () => {
    const harness = await startHarness(idle);
    expect(statusesOf(await send(harness, { type: 'servers.status' }))).toEqual([]);
    expect(statusesOf(await send(harness, { type: 'servers.check' }))).toEqual([]);
  });

  it('says a stdio server is not connected yet, and connected with its tool count once checked', { timeout: 30_000 }, async () => {
    const harness = await startHarness(idle, { config: { mcpServers: [stdioServer] } });
    expect(statusesOf(await send(harness, { type: 'servers.status' }))).toEqual([
      { name: 'notes', transport: 'stdio', trusted: false, connected: false, toolCount: 0, leftOut: [], error: null },
    ]);
    const checked = statusesOf(await send(harness, { type: 'servers.check' }));
    expect(checked).toEqual([{ name: 'notes', transport: 'stdio', trusted: false, connected: true, toolCount: FIXTURE_TOOL_COUNT, leftOut: [], error: null }]);
    // Asked again: the connection is kept, and a second check pings it rather than starting another.
    expect(statusesOf(await send(harness, { type: 'servers.status' }))).toEqual(checked);
    expect(statusesOf(await send(harness, { type: 'servers.check' }))).toEqual(checked);
  });

  it('says why an HTTP server refused the token, without the token even when the server repeats it', { timeout: 30_000 }, async () => {
    const refuser = await startEchoingRefuser();
    process.env[TOKEN_VARIABLE] = TOKEN;
    try {
      const remote = { name: 'remote', transport: 'http' as const, url: refuser.url, tokenSecret: TOKEN_VARIABLE, trusted: true };
      const harness = await startHarness(idle, { config: { mcpServers: [remote] } });
      const reply = await send(harness, { type: 'servers.check' });
      const [status] = statusesOf(reply);
      expect(status).toMatchObject({ name: 'remote', transport: 'http', trusted: true, connected: false, toolCount: 0 });
      expect(status?.error).toMatch(/^cannot connect to the MCP server remote: .*401/);
      expect(status?.error).toContain('the token [redacted] is not valid here');
      expect(JSON.stringify(reply)).not.toContain(TOKEN);
    } finally {
      await refuser.close();
    }
  });

  it('names a token variable that is not set', async () => {
    const remote = { name: 'remote', transport: 'http' as const, url: 'http://127.0.0.1:9/mcp', tokenSecret: TOKEN_VARIABLE, trusted: false };
    const harness = await startHarness(idle, { config: { mcpServers: [remote] } });
    const [status] = statusesOf(await send(harness, { type: 'servers.check' }));
    expect(status).toMatchObject({ connected: false, error: `cannot connect to the MCP server remote: the secret "${TOKEN_VARIABLE}" holding the token for remote is not set` });
  });

  it('follows the saved settings: a server added there is listed at once, not connected until checked', { timeout: 30_000 }, async () => {
    let apply: ((config: DeskhandConfig) => void) | null = null;
    const harness = await startHarness(idle, { watchConfig: (listener) => (apply = listener) });
    expect(statusesOf(await send(harness, { type: 'servers.status' }))).toEqual([]);
    apply!(DeskhandConfig.parse({ models: { host: { baseUrl: harness.model.baseUrl, model: 'scripted' } }, mcpServers: [stdioServer] }));
    expect(statusesOf(await send(harness, { type: 'servers.status' }))).toMatchObject([{ name: 'notes', connected: false, error: null }]);
    expect(statusesOf(await send(harness, { type: 'servers.check' }))).toMatchObject([{ name: 'notes', connected: true, toolCount: FIXTURE_TOOL_COUNT }]);
  });
});
