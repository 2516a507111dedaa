import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { Command } from '../../src-main/commands/command';
import type { DeviceConnection } from '../../src-main/commands/device-connection';
import { Dispatcher } from '../../src-main/commands/dispatcher';
import { EXPECT_SCREENSHOT_META, expectedScreenshotOf, ScreenshotMeta } from '../../src-main/device/contract';
import { otherScreenshot, otherScreenshotMessage, ShotIds } from '../../src-main/device/shot-ids';

describe('ShotIds', () => {
  it('names each screenshot once, with a prefix a restarted process does not share', () => {
    const ids = new ShotIds();
    const first = ids.next();
    const second = ids.next();
    expect(second).not.toBe(first);
    expect(ids.named(first)).toBe(true);
    const restarted = new ShotIds();
    expect(restarted.prefix).not.toBe(ids.prefix);
    expect(restarted.next()).not.toBe(first);
    expect(restarted.named(first)).toBe(false);
  });

  it('does not take a longer prefix for its own', () => {
    const ids = new ShotIds('ab');
    expect(ids.named('abc-1')).toBe(false);
    expect(ids.named('ab-1')).toBe(true);
  });
});

describe('otherScreenshot', () => {
  const ids = new ShotIds('feed');

  it('lets an action through when the named screenshot is the last', () => {
    expect(otherScreenshot(ids, 'feed-3', 'feed-3')).toBeNull();
  });

  it('says the device client was restarted when another process named the screenshot', () => {
    expect(otherScreenshot(ids, 'beef-3', null)).toMatch(/^the device client was restarted since that screenshot/);
    expect(otherScreenshot(ids, 'beef-3', 'feed-1')).toMatch(/^the device client was restarted since that screenshot/);
  });

  it('says another screenshot was taken since, when this process took it', () => {
    expect(otherScreenshot(ids, 'feed-2', 'feed-3')).toMatch(/^another screenshot was taken since that one/);
  });

  it('tells the agent to look again', () => {
    expect(otherScreenshotMessage('click', 'why')).toBe('click not run: why. Look at a new screenshot before acting at a point.');
  });
});

describe('the screenshot named in a call', () => {
  it('is read from the call metadata, and absent when there is none', () => {
    expect(expectedScreenshotOf({ [EXPECT_SCREENSHOT_META]: { id: 'feed-1' } })).toEqual({ id: 'feed-1' });
    expect(expectedScreenshotOf({})).toBeNull();
    expect(expectedScreenshotOf(undefined)).toBeNull();
  });

  it('refuses anything malformed', () => {
    expect(() => expectedScreenshotOf({ [EXPECT_SCREENSHOT_META]: { id: '' } })).toThrow(/bad deskhand\/screenshot metadata/);
    expect(() => expectedScreenshotOf({ [EXPECT_SCREENSHOT_META]: 'feed-1' })).toThrow(/bad deskhand\/screenshot metadata/);
    expect(() => expectedScreenshotOf({ [EXPECT_SCREENSHOT_META]: { id: 'feed-1', more: 1 } })).toThrow(/bad deskhand\/screenshot metadata/);
  });

  it('comes back with a screenshot, or not at all from a device that does not name them', () => {
    const meta = { width: 10, height: 10, mimeType: 'image/png', region: { x: 0, y: 0, width: 10, height: 10 }, captureMs: 0, encodeMs: 0 };
    expect(ScreenshotMeta.parse({ ...meta, id: 'feed-1' }).id).toBe('feed-1');
    expect(ScreenshotMeta.parse(meta).id).toBeUndefined();
  });
});

describe('Dispatcher.run', () => {
  const done: CallToolResult = { content: [{ type: 'text', text: 'done' }] };

  function recording(): { device: DeviceConnection; metas: Array<Record<string, unknown> | undefined> } {
    const metas: Array<Record<string, unknown> | undefined> = [];
    const device = {
      callTool: async (_name: string, _args: Record<string, unknown>, _signal?: AbortSignal, meta?: Record<string, unknown>) => {
        metas.push(meta);
        return done;
      },
    } as unknown as DeviceConnection;
    return { device, metas };
  }
  const command = (toolName: string, parameters: Record<string, unknown>, screenshotId?: string): Command => ({
    toolName,
    parameters,
    toolType: 'action',
    callId: 'c',
    ...(screenshotId ? { screenshotId } : {}),
  });

  it("passes the command's screenshot with an action at a point", async () => {
    const { device, metas } = recording();
    const dispatcher = new Dispatcher(device);
    await dispatcher.run(command('click', { x: 1, y: 2 }, 'feed-1'));
    await dispatcher.run(command('type_text', { text: 'a', x: 1, y: 2 }, 'feed-1'));
    expect(metas).toEqual([{ [EXPECT_SCREENSHOT_META]: { id: 'feed-1' } }, { [EXPECT_SCREENSHOT_META]: { id: 'feed-1' } }]);
  });

  it('passes none for an action without a point, or a command that names no screenshot', async () => {
    const { device, metas } = recording();
    const dispatcher = new Dispatcher(device);
    await dispatcher.run(command('hotkey', { keys: ['tab'] }, 'feed-1'));
    await dispatcher.run(command('type_text', { text: 'a' }, 'feed-1'));
    await dispatcher.run(command('click', { x: 1, y: 2 }));
    expect(metas).toEqual([undefined, undefined, undefined]);
  });
});
