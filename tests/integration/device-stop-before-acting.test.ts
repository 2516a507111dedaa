import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DeviceConfig } from '../../src-main/device/config';
import { startXvfb, textOf, type XDisplay } from '../support/xvfb';

/**
 * A Stop that arrives while the device checks an action (here: whether its point is on Deskhand's own
 * window, made slow on purpose) ends it before it touches the desktop.
 */

const CHECK_MS = 400;

vi.mock('../../src-main/device/windows', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src-main/device/windows')>();
  return {
    ...actual,
    windowAt: async () => {
      await new Promise((resolve) => setTimeout(resolve, CHECK_MS));
      return null;
    },
  };
});

describe('an action stopped during its checks (Xvfb)', () => {
  let x: XDisplay;
  let client: Client;

  beforeAll(async () => {
    x = await startXvfb({ width: 800, height: 600, windowManager: false });
    process.env.DISPLAY = x.display;
    const { createDeviceServer } = await import('../../src-main/device/server');
    const server = createDeviceServer({ config: DeviceConfig.parse({ protectTitle: 'deskhand-stop-test' }) });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name: 'deskhand-test', version: '0.0.0' });
    await client.connect(clientSide);
  });

  afterAll(async () => {
    await client?.close();
    await x?.stop();
  });

  const pointer = async (): Promise<{ x: number; y: number }> =>
    JSON.parse(textOf((await client.callTool({ name: 'pointer', arguments: {} })) as CallToolResult)).screen as { x: number; y: number };

  it('does not move the pointer for a move cancelled before it ran', async () => {
    const moved = (await client.callTool({ name: 'move', arguments: { x: 10, y: 10 } })) as CallToolResult;
    expect(moved.isError, textOf(moved)).toBeFalsy();
    expect(await pointer()).toEqual({ x: 10, y: 10 });

    const controller = new AbortController();
    const call = client.callTool({ name: 'move', arguments: { x: 500, y: 400 } }, undefined, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stopped by the test')), CHECK_MS / 4);
    await expect(call).rejects.toThrow(/stopped by the test/);
    await new Promise((resolve) => setTimeout(resolve, CHECK_MS * 2));
    expect(await pointer()).toEqual({ x: 10, y: 10 });
  });
});
