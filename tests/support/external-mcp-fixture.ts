import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { Server as LowLevelServer } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/**
 * A tiny MCP server standing in for a user's own server in tests: over stdio when run as a program
 * (`node --import tsx tests/support/external-mcp-fixture.ts --stdio`), or over Streamable HTTP on
 * 127.0.0.1 with a bearer token (startHttpFixture). Tools: echo, add, slow, big, pid, env_names, crash.
 * Servers with odd tool lists: createEndlessToolsServer, createChangingToolsServer.
 */

export function createFixtureServer(label: string): McpServer {
  const server = new McpServer({ name: `fixture-${label}`, version: '0.0.0' });
  server.registerTool(
    'echo',
    { description: 'Returns the text.', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text: `${label}: ${text}` }] }),
  );
  server.registerTool(
    'add',
    { description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() }, annotations: { readOnlyHint: true } },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
  );
  server.registerTool(
    'slow',
    { description: 'Waits ms milliseconds.', inputSchema: { ms: z.number() } },
    async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { content: [{ type: 'text', text: `waited ${ms}` }] };
    },
  );
  server.registerTool(
    'big',
    { description: 'Returns chars characters, then the text after (if any).', inputSchema: { chars: z.number(), after: z.string().optional() } },
    async ({ chars, after }) => ({ content: [{ type: 'text', text: `${'x'.repeat(chars)}${after ?? ''}` }] }),
  );
  server.registerTool('picture', { description: 'Returns a picture and a link, no text.' }, async () => ({
    content: [
      { type: 'image', data: Buffer.from('not really a png').toString('base64'), mimeType: 'image/png' },
      { type: 'resource_link', uri: 'file:///tmp/chart.png', name: 'chart.png' },
    ],
  }));
  server.registerTool('pid', { description: 'The server process id.' }, async () => ({
    content: [{ type: 'text', text: String(process.pid) }],
  }));
  server.registerTool('env_names', { description: 'Names of the environment variables.' }, async () => ({
    content: [{ type: 'text', text: Object.keys(process.env).sort().join('\n') }],
  }));
  server.registerTool('fail', { description: 'Always fails.' }, async () => ({
    content: [{ type: 'text', text: 'it failed on purpose' }],
    isError: true,
  }));
  server.registerTool('crash', { description: 'Exits the process without answering.' }, async () => {
    setImmediate(() => process.exit(1));
    return new Promise(() => undefined);
  });
  return server;
}

export interface HttpFixture {
  url: string;
  /** Requests refused for a missing or wrong token. */
  refused: () => number;
  /** Every request that reached the server, refused or not. */
  received: () => number;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (data += chunk));
    req.on('end', () => {
      try {
        resolve(data ? JSON.parse(data) : undefined);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    req.on('error', reject);
  });
}

/** A stateless Streamable HTTP MCP server on 127.0.0.1 that requires `Authorization: Bearer <token>`. */
export async function startHttpFixture(token: string, port = 0): Promise<HttpFixture> {
  let refused = 0;
  let received = 0;
  const httpServer: Server = createServer((req, res) => {
    received++;
    void (async () => {
      if (req.headers.authorization !== `Bearer ${token}`) {
        refused++;
        res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }).end('{"error":"unauthorized"}');
        return;
      }
      if (req.method !== 'POST') {
        res.writeHead(405, { allow: 'POST' }).end();
        return;
      }
      const server = createFixtureServer('http');
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, await readBody(req));
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, '127.0.0.1', resolve);
  });
  const bound = (httpServer.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    refused: () => refused,
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(() => resolve());
      }),
  };
}

/**
 * A server whose tool list never ends: every page (sent after `delayMs`) holds `perPage` tools and
 * points to a next one. It writes "page <n> sent" to stderr for each.
 */
export function createEndlessToolsServer(delayMs: number, perPage = 1): LowLevelServer {
  const server = new LowLevelServer({ name: 'fixture-endless', version: '0.0.0' }, { capabilities: { tools: {} } });
  let page = 0;
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    page++;
    process.stderr.write(`page ${page} sent\n`);
    const tools = Array.from({ length: perPage }, (_, i) => ({ name: `tool${page}_${i}`, inputSchema: { type: 'object' as const } }));
    return { tools, nextCursor: `page${page}` };
  });
  return server;
}

const ChangeArgsSchema = z.object({
  count: z.number().int().nonnegative(),
  pageDelayMs: z.number().int().nonnegative().default(0),
  failFromPage: z.number().int().positive().optional(),
});

interface ChangingList extends z.infer<typeof ChangeArgsSchema> {
  version: number;
}

/**
 * A server whose tool list comes in pages of `perPage` and changes on request. The list is `change`
 * (always first) and v<n>_0 … v<n>_<count - 1>, n counting the changes (v0 has `count` tools). A call
 * of `change` sets the next list's count, the wait before each of its pages and the page its reads fail
 * from (failFromPage), then sends notifications/tools/list_changed. A page comes from the list as it was
 * when asked for. `first`: the wait of v0's pages, and the page of v0 after which the server changes to
 * v1 by itself (as many tools, the same wait). It writes "v<n> list asked for" and "v<n> page <p> sent"
 * to stderr.
 */
export function createChangingToolsServer(perPage: number, count: number, first: { pageDelayMs?: number; changeAfterPage?: number } = {}): LowLevelServer {
  const server = new LowLevelServer({ name: 'fixture-changing', version: '0.0.0' }, { capabilities: { tools: { listChanged: true } } });
  let list: ChangingList = { version: 0, count, pageDelayMs: first.pageDelayMs ?? 0 };
  const change: Tool = {
    name: 'change',
    inputSchema: { type: 'object', properties: { count: { type: 'number' }, pageDelayMs: { type: 'number' }, failFromPage: { type: 'number' } }, required: ['count'] },
  };
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const asked = list;
    const offset = Number(request.params?.cursor ?? 0);
    const page = offset / perPage + 1;
    if (offset === 0) process.stderr.write(`v${asked.version} list asked for\n`);
    await new Promise((resolve) => setTimeout(resolve, asked.pageDelayMs));
    if (asked.failFromPage !== undefined && page >= asked.failFromPage) throw new McpError(ErrorCode.InternalError, `page ${page} failed on purpose`);
    const all: Tool[] = [change, ...Array.from({ length: asked.count }, (_, i) => ({ name: `v${asked.version}_${i}`, inputSchema: { type: 'object' as const } }))];
    const end = offset + perPage;
    process.stderr.write(`v${asked.version} page ${page} sent\n`);
    if (asked.version === 0 && page === first.changeAfterPage) {
      list = { ...list, version: 1 };
      await server.sendToolListChanged();
    }
    return { tools: all.slice(offset, end), ...(end < all.length ? { nextCursor: String(end) } : {}) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (request.params.name !== 'change') throw new McpError(ErrorCode.InvalidParams, `no tool ${request.params.name}`);
    list = { version: list.version + 1, ...ChangeArgsSchema.parse(request.params.arguments) };
    await server.sendToolListChanged();
    return { content: [{ type: 'text', text: `v${list.version}` }] };
  });
  return server;
}

// Run as a program: serve on stdio (`--endless-tools=<ms>[,<tools a page>]`: createEndlessToolsServer;
// `--changing-tools=<tools a page>,<tools>[,<page wait ms>,<change after page>]`: createChangingToolsServer; `--linger-on-close=<file>`:
// when its input is closed, write its pid to the file and stay until it is killed, as a slow server would;
// `--grandchild=<file>[,ignore-term]`: start `sleep 60` through sh, which writes the sleep's pid to the
// file, as `npx` starts a server through npm and sh; with ignore-term, sh and the sleep ignore SIGTERM).
if (process.argv.includes('--stdio') && import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const grandchild = process.argv.find((arg) => arg.startsWith('--grandchild='));
  if (grandchild) {
    const [file, ignoreTerm] = grandchild.slice('--grandchild='.length).split(',');
    const script = `${ignoreTerm === 'ignore-term' ? 'trap "" TERM; ' : ''}sleep 60 & echo $! > "$0"; wait`;
    spawn('sh', ['-c', script, file ?? ''], { stdio: 'ignore' });
  }
  const linger = process.argv.find((arg) => arg.startsWith('--linger-on-close='));
  if (linger) {
    process.stdin.once('end', () => {
      writeFileSync(linger.slice('--linger-on-close='.length), String(process.pid));
      setTimeout(() => undefined, 60_000);
    });
  }
  const endless = process.argv.find((arg) => arg.startsWith('--endless-tools='));
  const [delayMs, perPage] = (endless?.split('=')[1] ?? '').split(',').map(Number);
  const changing = process.argv.find((arg) => arg.startsWith('--changing-tools='));
  const [changingPerPage, changingCount, pageDelayMs, changeAfterPage] = (changing?.split('=')[1] ?? '').split(',').map(Number);
  const server = endless
    ? createEndlessToolsServer(delayMs ?? 0, perPage)
    : changing
      ? createChangingToolsServer(changingPerPage ?? 1, changingCount ?? 0, { pageDelayMs, changeAfterPage })
      : createFixtureServer('stdio');
  await server.connect(new StdioServerTransport());
}
