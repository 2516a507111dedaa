// MCP between the host and a device client in a utility process, over a message port instead of stdio.
// Node's MessageChannel stands in for Electron's utility-process port; the real MCP SDK client and
// server talk over it.
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DEVICE_MARKER, UtilityProcessTransport, type ForkUtility, type UtilityChild } from '../../src-main/electron/device-process';
import { deviceFlags, parentPortEndpoint, type ParentPortLike } from '../../src-main/electron/device-utility';
import { PortTransport, type MessageEndpoint } from '../../src-main/electron/mcp-port-transport';
import { deviceEnv } from '../../src-main/device/launch';

const openPorts: MessagePort[] = [];
afterEach(() => {
  for (const port of openPorts.splice(0)) port.close();
});

function endpointOf(port: MessagePort): MessageEndpoint {
  openPorts.push(port);
  return {
    post: (message) => port.postMessage(message),
    listen: (onMessage) => {
      port.on('message', onMessage);
      return () => port.off('message', onMessage);
    },
    close: () => port.close(),
  };
}

function echoServer(): McpServer {
  const server = new McpServer({ name: 'test-device', version: '0.0.0' });
  server.registerTool('echo', { description: 'echo', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text: `echo ${text}` }],
  }));
  return server;
}

describe('MCP over a message port', () => {
  it('carries a real MCP session: list tools, call a tool', async () => {
    const { port1, port2 } = new MessageChannel();
    const server = echoServer();
    await server.connect(new PortTransport(endpointOf(port2)));
    const client = new Client({ name: 'host', version: '0.0.0' });
    await client.connect(new PortTransport(endpointOf(port1)));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo']);
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(result.content).toEqual([{ type: 'text', text: 'echo hi' }]);
    await client.close();
    await server.close();
  });

  it('reports a message that is not JSON-RPC as an error instead of passing it on', async () => {
    const { port1, port2 } = new MessageChannel();
    const transport = new PortTransport(endpointOf(port1));
    const errors: string[] = [];
    const messages: unknown[] = [];
    transport.onerror = (error) => errors.push(error.message);
    transport.onmessage = (message) => messages.push(message);
    await transport.start();
    openPorts.push(port2);
    port2.postMessage({ hello: 'world' });
    port2.postMessage({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(errors).toHaveLength(1);
    expect(messages).toEqual([{ jsonrpc: '2.0', method: 'notifications/initialized' }]);
    await transport.close();
    await expect(transport.send({ jsonrpc: '2.0', method: 'x' })).rejects.toThrow(/closed/);
  });
});

/**
 * A stand-in for `utilityProcess.fork`: the "child" runs in this process, on the other end of a
 * MessageChannel, and reaches its parent through a parentPort-like object (messages wrapped in
 * `{ data }` as Electron does).
 */
function fakeFork(options: { exitBeforeSpawn?: number } = {}) {
  const calls: Array<{ modulePath: string; args: string[]; env: Record<string, string> }> = [];
  let childSide: { parentPort: ParentPortLike; exit(code: number): void } | null = null;
  const fork: ForkUtility = (modulePath, args, forkOptions) => {
    calls.push({ modulePath, args, env: forkOptions.env });
    const { port1, port2 } = new MessageChannel();
    openPorts.push(port1, port2);
    const emitter = new EventEmitter();
    const stderr = new PassThrough();
    const child = Object.assign(emitter, {
      stdout: new PassThrough(),
      stderr,
      postMessage: (message: unknown) => port1.postMessage(message),
      kill: () => {
        setImmediate(() => emitter.emit('exit', 0));
        return true;
      },
    }) as unknown as UtilityChild;
    port1.on('message', (message) => emitter.emit('message', message));
    const parentPort = Object.assign(new EventEmitter(), { postMessage: (message: unknown) => port2.postMessage(message) });
    port2.on('message', (data) => parentPort.emit('message', { data }));
    childSide = { parentPort, exit: (code) => emitter.emit('exit', code) };
    setImmediate(() => {
      if (options.exitBeforeSpawn !== undefined) {
        stderr.write('no display\n');
        emitter.emit('exit', options.exitBeforeSpawn);
        return;
      }
      emitter.emit('spawn');
      stderr.write('[deskhand-device] ready\n');
      void echoServer().connect(new PortTransport(parentPortEndpoint(parentPort)));
    });
    return child;
  };
  return { fork, calls, child: () => childSide };
}

describe('UtilityProcessTransport', () => {
  const env = deviceEnv({ DISPLAY: ':99', PATH: '/usr/bin', OPENAI_API_KEY: 'sk-secret', GITHUB_TOKEN: 'ghp_x' });

  it('starts the entry with the device marker and speaks MCP with it', async () => {
    const fake = fakeFork();
    const transport = new UtilityProcessTransport({ fork: fake.fork, modulePath: '/app/out/main/electron.js', args: ['--quality=60'], env, cwd: '/home/u' });
    let log = '';
    transport.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const client = new Client({ name: 'host', version: '0.0.0' });
    await client.connect(transport);
    expect((await client.callTool({ name: 'echo', arguments: { text: 'x' } })).content).toEqual([{ type: 'text', text: 'echo x' }]);
    expect(fake.calls).toEqual([{ modulePath: '/app/out/main/electron.js', args: [DEVICE_MARKER, '--quality=60'], env: { DISPLAY: ':99', PATH: '/usr/bin' } }]);
    expect(log).toContain('ready');
    const closed = new Promise<void>((resolve) => (client.onclose = resolve));
    await client.close();
    await closed;
  });

  it('tells the client when the process dies, so the host can start a new one', async () => {
    const fake = fakeFork();
    const transport = new UtilityProcessTransport({ fork: fake.fork, modulePath: 'm', args: [], env, cwd: '/' });
    const client = new Client({ name: 'host', version: '0.0.0' });
    await client.connect(transport);
    const closed = new Promise<void>((resolve) => (client.onclose = resolve));
    fake.child()?.exit(134);
    await closed;
    await expect(client.listTools()).rejects.toThrow();
  });

  it('fails to start with the exit code when the process ends before it runs', async () => {
    const fake = fakeFork({ exitBeforeSpawn: 3 });
    const transport = new UtilityProcessTransport({ fork: fake.fork, modulePath: 'm', args: [], env, cwd: '/' });
    let log = '';
    transport.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    await expect(transport.start()).rejects.toThrow(/exited \(code 3\) before it started/);
    expect(log).toContain('no display');
  });

  it('finds the device flags after the marker, wherever Electron puts the module path', () => {
    expect(deviceFlags(['/electron', '/app/out/main/electron.js', DEVICE_MARKER, '--format=webp'])).toEqual(['--format=webp']);
    expect(deviceFlags([DEVICE_MARKER])).toEqual([]);
    expect(deviceFlags(['x'])).toEqual([]);
  });
});
