import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DeviceConnection } from '../../src-main/commands/device-connection';
import { Dispatcher } from '../../src-main/commands/dispatcher';
import { deviceLaunchSpec } from '../../src-main/device/launch';
import { clickCommand, clicksSettled, startClickRecorder, type ClickRecorder } from '../support/click-recorder';
import { eventually, startXvfb, type XDisplay } from '../support/xvfb';

/**
 * An action names the screenshot its coordinates are pixels of. A device client that has not taken that
 * screenshot (it was restarted, or took another since) would map them through another image, or
 * one-to-one, and click where the model never looked: it refuses, and clicks once a new screenshot was
 * taken. Clicks are counted by the programs themselves (xterms with mouse reporting write every button
 * event they get to a file).
 */


let x: XDisplay;
let dir: string;
let connection: DeviceConnection | null = null;

beforeAll(async () => {
  x = await startXvfb({ width: 1280, height: 800 });
  dir = await mkdtemp(join(tmpdir(), 'deskhand-shot-id-'));
}, 30_000);

afterAll(async () => {
  await x?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

afterEach(async () => {
  await connection?.close();
  connection = null;
});

/** Screenshots downscaled to half (1280 -> 640): a pixel of one is two of the screen. */
function hostDispatcher(): { dispatcher: Dispatcher; device: DeviceConnection } {
  const launch = deviceLaunchSpec({ root: process.cwd(), mode: 'source', env: x.env, config: { maxEdge: 640 } });
  const device = new DeviceConnection({ launch, defaultTimeoutMs: 15_000 });
  connection = device;
  return { dispatcher: new Dispatcher(device), device };
}

const clickRecorder = (name: string, place: string): Promise<ClickRecorder> => startClickRecorder(x, dir, name, place);

describe('an action whose screenshot the device client has not got', () => {
  it('does not click after the device client restarted, and clicks after a new screenshot', async () => {
    const recorder = await clickRecorder('restarted', '+0+0');
    try {
      const { dispatcher, device } = hostDispatcher();
      const first = await dispatcher.screenshot();
      expect(first.meta).toMatchObject({ width: 640, height: 400 });

      // (60, 60) of the half-size screenshot is (120, 120) on screen; a fresh process would take it as
      // (60, 60): both are on the xterm, so any click at all would show.
      await device.restart();
      const refused = await dispatcher.run(clickCommand(60, 60, first.meta.id));
      expect(refused.status).toBe('failure');
      expect(refused.error).toMatch(/^click not run: the device client was restarted since that screenshot/);
      expect(refused.error).toContain('Look at a new screenshot before acting at a point');
      await clicksSettled();
      expect(await recorder.clicks()).toBe(0);

      const second = await dispatcher.screenshot();
      expect(second.meta.id).not.toBe(first.meta.id);
      const done = await dispatcher.run(clickCommand(60, 60, second.meta.id));
      expect(done.error).toBeNull();
      expect(done.structured).toMatchObject({ screen: { x: 120, y: 120 } });
      await eventually('the click in the xterm', 5_000, async () => ((await recorder.clicks()) > 0 ? true : undefined));
    } finally {
      await recorder.program.stop();
    }
  }, 60_000);

  it("does not click in a window's screenshot after the device client died, nor after another screenshot", async () => {
    // The window under the screen's top left corner gets a window screenshot's pixels taken one-to-one.
    const corner = await clickRecorder('corner', '+0+0');
    const agentWindow = await clickRecorder('agent-window', '+600+300');
    try {
      const { dispatcher, device } = hostDispatcher();
      const shot = await dispatcher.screenshot(undefined, agentWindow.program.windowId);
      const pid = device.pid;
      expect(pid).not.toBeNull();
      process.kill(pid as number, 'SIGKILL');
      await eventually('the host noticing the dead device client', 5_000, async () => (device.pid === null ? true : undefined));

      const refused = await dispatcher.run(clickCommand(30, 30, shot.meta.id));
      expect(refused.status).toBe('failure');
      expect(refused.error).toMatch(/^click not run: the device client was restarted since that screenshot/);

      // A screenshot of the whole screen, taken by someone else: pixels of the window's are not its pixels.
      const window = await dispatcher.screenshot(undefined, agentWindow.program.windowId);
      await dispatcher.screenshot();
      const other = await dispatcher.run(clickCommand(30, 30, window.meta.id));
      expect(other.status).toBe('failure');
      expect(other.error).toMatch(/^click not run: another screenshot was taken since that one/);
      await clicksSettled();
      expect(await corner.clicks()).toBe(0);
      expect(await agentWindow.clicks()).toBe(0);

      const again = await dispatcher.screenshot(undefined, agentWindow.program.windowId);
      const done = await dispatcher.run(clickCommand(30, 30, again.meta.id));
      expect(done.error).toBeNull();
      await eventually('the click in the window', 5_000, async () => ((await agentWindow.clicks()) > 0 ? true : undefined));
      expect(await corner.clicks()).toBe(0);
    } finally {
      await agentWindow.program.stop();
      await corner.program.stop();
    }
  }, 60_000);

  it('keeps mapping through the last screenshot when the call names none', async () => {
    const recorder = await clickRecorder('unnamed', '+0+0');
    try {
      const { dispatcher } = hostDispatcher();
      await dispatcher.screenshot();
      const done = await dispatcher.run(clickCommand(60, 60, undefined));
      expect(done.error).toBeNull();
      expect(done.structured).toMatchObject({ screen: { x: 120, y: 120 } });
      await eventually('the click in the xterm', 5_000, async () => ((await recorder.clicks()) > 0 ? true : undefined));
    } finally {
      await recorder.program.stop();
    }
  }, 60_000);
});
