import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Dispatcher } from '../../src-main/commands/dispatcher';
import type { DeviceConnection } from '../../src-main/commands/device-connection';
import { screenResizedResult } from '../../src-main/device/contract';
import { capturedArea } from '../../src-main/device/coords';
import { screenChange, screenChangedMessage, type TakenGeometry } from '../../src-main/device/screen-change';

const screen = { width: 1280, height: 800 };

const wholeScreen: TakenGeometry = {
  region: { x: 0, y: 0, width: 1280, height: 800 },
  imageWidth: 640,
  imageHeight: 400,
  source: { kind: 'screen' },
  screen,
};

const windowShot: TakenGeometry = {
  region: { x: 100, y: 50, width: 600, height: 400 },
  imageWidth: 600,
  imageHeight: 400,
  source: { kind: 'window', id: '0x00a0000c' },
  screen,
};

describe('screenChange', () => {
  it('lets an action through while the screen is the size the screenshot saw', () => {
    expect(screenChange(wholeScreen, { screen: { width: 1280, height: 800 }, bounds: null })).toBeNull();
  });

  it.each([
    { width: 1024, height: 768 },
    { width: 1600, height: 1000 },
    { width: 1280, height: 799 },
  ])('refuses a whole-screen screenshot once the screen is $width x $height', (now) => {
    const change = screenChange(wholeScreen, { screen: now, bounds: null });
    expect(change).toBe(`the screen changed size since the last screenshot (1280x800 then, ${now.width}x${now.height} now)`);
  });

  it('lets an action through while the window is where and as large as the screenshot saw it', () => {
    expect(screenChange(windowShot, { screen, bounds: { x: 100, y: 50, width: 600, height: 400 } })).toBeNull();
  });

  it('still maps a window screenshot when only the screen around the window changed size', () => {
    expect(screenChange(windowShot, { screen: { width: 1024, height: 768 }, bounds: { x: 100, y: 50, width: 600, height: 400 } })).toBeNull();
  });

  it.each([
    { what: 'moved', bounds: { x: 300, y: 50, width: 600, height: 400 } },
    { what: 'resized', bounds: { x: 100, y: 50, width: 800, height: 400 } },
  ])('refuses a window screenshot once the window $what', ({ bounds }) => {
    expect(screenChange(windowShot, { screen, bounds })).toBe(
      `window 0x00a0000c moved or changed size since the last screenshot (600x400 at (100, 50) then, ${bounds.width}x${bounds.height} at (${bounds.x}, 50) now)`,
    );
  });

  it('refuses a window screenshot once the screen shrank over part of the window', () => {
    const change = screenChange(windowShot, { screen: { width: 640, height: 480 }, bounds: { x: 100, y: 50, width: 600, height: 400 } });
    expect(change).toContain('the screen changed size since the last screenshot (1280x800 then, 640x480 now)');
    expect(change).toContain('window 0x00a0000c');
  });

  it('refuses once the window is gone or off screen', () => {
    expect(screenChange(windowShot, { screen, bounds: null })).toBe('window 0x00a0000c, which the last screenshot showed, is gone');
    expect(screenChange(windowShot, { screen, bounds: { x: 2000, y: 50, width: 600, height: 400 } })).toContain('off screen now');
  });

  it('checks a monitor screenshot against the monitor', () => {
    const display: TakenGeometry = { ...wholeScreen, region: { x: 1280, y: 0, width: 1280, height: 800 }, source: { kind: 'display', index: 1 }, screen: { width: 2560, height: 800 } };
    expect(screenChange(display, { screen: { width: 2560, height: 800 }, bounds: { x: 1280, y: 0, width: 1280, height: 800 } })).toBeNull();
    expect(screenChange(display, { screen: { width: 2304, height: 800 }, bounds: { x: 1280, y: 0, width: 1024, height: 768 } })).toContain('display 1');
  });

  it('says what to do in the message', () => {
    expect(screenChangedMessage('click', 'the screen changed size since the last screenshot (1280x800 then, 1024x768 now)')).toBe(
      'click not run: the screen changed size since the last screenshot (1280x800 then, 1024x768 now), so its coordinates ' +
        'no longer point at what it showed. Look at a new screenshot before acting at a point.',
    );
  });
});

describe('capturedArea', () => {
  it('is the whole screen, or the part of a window on it', () => {
    expect(capturedArea(null, screen)).toEqual({ x: 0, y: 0, width: 1280, height: 800 });
    expect(capturedArea({ x: 1000, y: -20, width: 600, height: 400 }, screen)).toEqual({ x: 1000, y: 0, width: 280, height: 380 });
    expect(capturedArea({ x: 1300, y: 0, width: 10, height: 10 }, screen)).toBeNull();
  });
});

describe('Dispatcher.screenshot after the screen changed size', () => {
  const image: CallToolResult = {
    content: [{ type: 'image', data: Buffer.from('png').toString('base64'), mimeType: 'image/png' }],
    structuredContent: { width: 1024, height: 700, mimeType: 'image/png', region: { x: 0, y: 0, width: 1024, height: 700 }, captureMs: 1, encodeMs: 1 },
  };

  it('restarts the device client, whose new process sees the new size, and asks again', async () => {
    const events: string[] = [];
    let stale = true;
    const device = {
      callTool: async (name: string) => {
        events.push(name);
        return stale ? screenResizedResult('screenshot', { seen: screen, now: { width: 1024, height: 700 } }) : image;
      },
      restart: async () => {
        events.push('restart');
        stale = false;
      },
    } as unknown as DeviceConnection;
    const shot = await new Dispatcher(device).screenshot();
    expect(events).toEqual(['screenshot', 'restart', 'screenshot']);
    expect(shot.meta.region).toEqual({ x: 0, y: 0, width: 1024, height: 700 });
  });

  it('restarts once: a second refusal fails the screenshot', async () => {
    let restarts = 0;
    const device = {
      callTool: async () => screenResizedResult('screenshot', { seen: screen, now: { width: 1024, height: 700 } }),
      restart: async () => {
        restarts++;
      },
    } as unknown as DeviceConnection;
    await expect(new Dispatcher(device).screenshot()).rejects.toThrow(/the screen changed size \(1280x800 when the device client started, 1024x700 now\)/);
    expect(restarts).toBe(1);
  });
});
