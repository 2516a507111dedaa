import { PassThrough } from 'node:stream';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { describe, expect, it } from 'vitest';
import { DeviceConnection, DeviceStartError } from '../../src-main/commands/device-connection';
import type { DeviceLaunchSpec } from '../../src-main/device/launch';

const launch: DeviceLaunchSpec = { command: 'deskhand-device-not-run', args: [], env: {}, cwd: '.' };

/** A transport that never connects, with a stderr the test writes the device's log to first. */
function failingTransport(stderrChunks: Buffer[]): Transport & { stderr: PassThrough } {
  const stderr = new PassThrough();
  for (const chunk of stderrChunks) stderr.write(chunk);
  stderr.end();
  return {
    stderr,
    start: () => new Promise((_, reject) => setTimeout(() => reject(new Error('no device here')), 20)),
    send: async () => undefined,
    close: async () => undefined,
  };
}

describe('DeviceConnection', () => {
  it('logs a line the device wrote in two pieces once, whole, and a character split between chunks intact', async () => {
    const lines: string[] = [];
    const euro = Buffer.from('€');
    const device = new DeviceConnection({
      launch,
      defaultTimeoutMs: 1_000,
      onLog: (line) => lines.push(line),
      createTransport: () =>
        failingTransport([Buffer.from('ready (pid 1'), Buffer.from('2, display :9)\nprice 5'), euro.subarray(0, 1), euro.subarray(1), Buffer.from('\nlast words')]),
    });
    await expect(device.tools()).rejects.toBeInstanceOf(DeviceStartError);
    expect(lines).toEqual(['ready (pid 12, display :9)', 'price 5€', 'last words']);
  });

  it('starts no device client once closed: a late call fails and says why', async () => {
    let started = 0;
    const device = new DeviceConnection({
      launch,
      defaultTimeoutMs: 1_000,
      createTransport: () => {
        started++;
        return failingTransport([]);
      },
    });
    await device.close();
    await expect(device.callTool('click', { x: 1, y: 2 })).rejects.toThrow('the device client is closed: Deskhand is shutting down');
    await expect(device.tools()).rejects.toThrow(/closed/);
    expect(started).toBe(0);
  });

  it('tells the host each time a device client ends, so it can end the commands a killed one left', async () => {
    let exits = 0;
    const servers: InMemoryTransport[] = [];
    const device = new DeviceConnection({
      launch,
      defaultTimeoutMs: 1_000,
      onExit: () => exits++,
      createTransport: () => {
        const [client, server] = InMemoryTransport.createLinkedPair();
        void new McpServer({ name: 'stand-in', version: '1' }, { capabilities: { tools: {} } }).connect(server);
        servers.push(server);
        return client;
      },
    });
    await device.tools();
    expect(exits).toBe(0);
    // The device client dies (its end of the connection closes).
    await servers[0]?.close();
    expect(exits).toBe(1);
    expect(device.restartCount).toBe(1);
    await device.tools();
    await device.close();
    expect(exits).toBe(2);
  });
});
