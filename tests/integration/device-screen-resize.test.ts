import { mkdtemp, rm } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DeviceConnection } from '../../src-main/commands/device-connection';
import { Dispatcher } from '../../src-main/commands/dispatcher';
import { deviceLaunchSpec } from '../../src-main/device/launch';
import { clickCommand, clicksSettled, startClickRecorder, type ClickRecorder } from '../support/click-recorder';
import { eventually, setScreenSize, startXvfb, type XDisplay } from '../support/xvfb';

/**
 * The screen changing size (RandR, as a new monitor resolution does) or the agent's window moving
 * between the screenshot the model saw and the click it asked for: the click must not run, since its
 * pixels now point somewhere the model never saw, and the host gets an error telling the agent to look
 * again. Clicks are counted by the programs themselves: xterms with mouse reporting on write every
 * button event they receive to a file.
 */

const execFileP = promisify(execFile);
/** Xvfb's framebuffer cannot grow past its start size: start large, shrink to the size the test begins at. */
const LARGEST = { width: 1600, height: 1000 };

let x: XDisplay;
let dir: string;
let connection: DeviceConnection | null = null;

beforeAll(async () => {
  x = await startXvfb(LARGEST);
  dir = await mkdtemp(join(tmpdir(), 'deskhand-resize-'));
}, 30_000);

afterAll(async () => {
  await x?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

afterEach(async () => {
  await connection?.close();
  connection = null;
});

function hostDispatcher(): { dispatcher: Dispatcher; device: DeviceConnection } {
  const launch = deviceLaunchSpec({ root: process.cwd(), mode: 'source', env: x.env, config: {} });
  const device = new DeviceConnection({ launch, defaultTimeoutMs: 15_000 });
  connection = device;
  return { dispatcher: new Dispatcher(device), device };
}

const clickRecorder = (name: string, place: string): Promise<ClickRecorder> => startClickRecorder(x, dir, name, place);

describe('an action after the screen or the window changed since the screenshot', () => {
  it('does not click when the screen changed size, tells the agent to look again, and clicks after a new screenshot', async () => {
    await setScreenSize(x, 1280, 800);
    const recorder = await clickRecorder('whole-screen', '+0+0');
    try {
      const { dispatcher, device } = hostDispatcher();
      const first = await dispatcher.screenshot();
      expect(first.meta.region).toEqual({ x: 0, y: 0, width: 1280, height: 800 });

      await setScreenSize(x, 1024, 700);
      const refused = await dispatcher.run(clickCommand(100, 100));
      expect(refused.status).toBe('failure');
      expect(refused.error).toMatch(/^click not run: the screen changed size since the last screenshot \(1280x800 then, 1024x700 now\)/);
      expect(refused.error).toContain('Look at a new screenshot before acting at a point');
      await clicksSettled();
      expect(await recorder.clicks()).toBe(0);

      // The next step's screenshot restarts the device client, whose native code sees the new size.
      const second = await dispatcher.screenshot();
      expect(second.meta.region).toEqual({ x: 0, y: 0, width: 1024, height: 700 });
      expect(device.restartCount).toBe(1);
      const done = await dispatcher.run(clickCommand(100, 100));
      expect(done.error).toBeNull();
      await eventually('the click in the xterm', 5_000, async () => ((await recorder.clicks()) > 0 ? true : undefined));
    } finally {
      await recorder.program.stop();
    }
  }, 60_000);

  it('captures all of a screen that grew since the device client started', async () => {
    await setScreenSize(x, 1280, 800);
    const { dispatcher, device } = hostDispatcher();
    await dispatcher.screenshot();
    await setScreenSize(x, 1600, 1000);
    const shot = await dispatcher.screenshot();
    expect(shot.meta.region).toEqual({ x: 0, y: 0, width: 1600, height: 1000 });
    expect(device.restartCount).toBe(1);
  }, 60_000);

  it('does not click when the window the screenshot showed moved, and clicks after a new screenshot', async () => {
    await setScreenSize(x, 1280, 800);
    // The window under it shows where the agent's window was once that moves away.
    const below = await clickRecorder('below', '+0+0');
    const agentWindow = await clickRecorder('agent-window', '+0+0');
    try {
      const { dispatcher } = hostDispatcher();
      const shot = await dispatcher.screenshot(undefined, agentWindow.program.windowId);
      const center = { x: Math.round(shot.meta.width / 2), y: Math.round(shot.meta.height / 2) };

      await execFileP('wmctrl', ['-i', '-r', agentWindow.program.windowId, '-e', '0,600,300,-1,-1'], { env: x.env });
      await eventually('the window moved', 5_000, async () => {
        const { stdout } = await execFileP('xdotool', ['getwindowgeometry', agentWindow.program.windowId], { env: x.env });
        return /Position: 6\d\d,3\d\d/.test(stdout) ? true : undefined;
      });
      const refused = await dispatcher.run(clickCommand(center.x, center.y));
      expect(refused.status).toBe('failure');
      expect(refused.error).toMatch(new RegExp(`^click not run: window ${agentWindow.program.windowId} moved or changed size since the last screenshot`));
      await clicksSettled();
      expect(await below.clicks()).toBe(0);
      expect(await agentWindow.clicks()).toBe(0);

      await dispatcher.screenshot(undefined, agentWindow.program.windowId);
      const done = await dispatcher.run(clickCommand(center.x, center.y));
      expect(done.error).toBeNull();
      await eventually('the click in the moved window', 5_000, async () => ((await agentWindow.clicks()) > 0 ? true : undefined));
      expect(await below.clicks()).toBe(0);
    } finally {
      await agentWindow.program.stop();
      await below.program.stop();
    }
  }, 60_000);
});
