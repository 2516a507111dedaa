import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from '../../src-main/commands/command';
import { DeviceConnection } from '../../src-main/commands/device-connection';
import { Dispatcher } from '../../src-main/commands/dispatcher';
import { EXPECT_POINTER_META, POINTER_MOVED_META } from '../../src-main/device/contract';
import { deviceLaunchSpec } from '../../src-main/device/launch';
import { LOOK_AGAIN } from '../../src-main/device/screen-change';
import { DeskhandConfig } from '../../src-main/host/config';
import { createHost } from '../../src-main/host/create-host';
import { startModelServer } from '../fixtures/model-server';
import { clickCommand, clicksSettled, startClickRecorder, type ClickRecorder } from '../support/click-recorder';
import { replies, until } from '../support/host-harness';
import { eventually, setScreenSize, startXvfb, textOf, type XDisplay } from '../support/xvfb';

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

/** Where the X server has the pointer, as "x,y". */
async function pointerOnScreen(): Promise<string> {
  const { stdout } = await execFileP('xdotool', ['getmouselocation', '--shell'], { env: x.env });
  const at = (name: string): string => new RegExp(`^${name}=(\\d+)$`, 'm').exec(stdout)?.[1] ?? '?';
  return `${at('X')},${at('Y')}`;
}

/** A 1280x800 screen shrinking to 1024x700 while the pointer is near its bottom-right corner moves the pointer to (1023, 699). */
async function shrinkUnderThePointer(): Promise<void> {
  await setScreenSize(x, 1024, 700);
  await eventually('the X server to move the pointer into the smaller screen', 5_000, async () =>
    (await pointerOnScreen()) === '1023,699' ? true : undefined,
  );
}

let actions = 0;
const action = (toolName: string, parameters: Record<string, unknown>): Command => ({ toolName, parameters, toolType: 'action', callId: `action-${++actions}` });

/** The agent leaves the pointer near the bottom-right corner of a whole-screen screenshot of 1280x800; the screen then shrinks. */
async function agentInTheCornerThenShrink(dispatcher: Dispatcher): Promise<void> {
  await dispatcher.screenshot();
  expect((await dispatcher.run(action('move', { x: 1270, y: 790 }))).error).toBeNull();
  expect(dispatcher.takeover.lastAgentPointer).toEqual({ x: 1270, y: 790 });
  await shrinkUnderThePointer();
}

/**
 * A screen that shrinks while the pointer is outside the smaller one: the X server moves the pointer to
 * the nearest point inside. Nobody took the mouse, so neither the device nor the host may say so; an
 * action at a point is refused as any after a change of size is.
 */
describe('a screen that shrinks under the pointer (the X server moves the pointer into it)', () => {
  it('refuses an action at a point because the screen changed, not because the user took the mouse, and goes on after a new screenshot', async () => {
    await setScreenSize(x, 1280, 800);
    const recorder = await clickRecorder('shrink-under-pointer', '+0+0');
    try {
      const { dispatcher, device } = hostDispatcher();
      await agentInTheCornerThenShrink(dispatcher);

      // The device's own answer: the screen-changed refusal, not the pointer-moved one.
      const expectPointer = { [EXPECT_POINTER_META]: { x: 1270, y: 790, tolerance: dispatcher.takeover.tolerance } };
      const answer = await device.callTool('click', { x: 100, y: 100 }, undefined, expectPointer);
      expect(answer.isError).toBe(true);
      expect(answer._meta?.[POINTER_MOVED_META]).toBeUndefined();
      expect(textOf(answer)).toMatch(/^click not run: the screen changed size since the last screenshot \(1280x800 then, 1024x700 now\)/);

      const refused = await dispatcher.run(clickCommand(100, 100));
      expect(refused).toMatchObject({ status: 'failure', error: expect.stringMatching(/^click not run: the screen changed size since the last screenshot/) });
      expect(refused.error).toContain(LOOK_AGAIN);
      expect(refused.takenOver).toBeUndefined();
      await clicksSettled();
      expect(await recorder.clicks()).toBe(0);

      // The next step: no takeover before it, nor with its screenshot; the agent's point is now where the X server put the pointer.
      expect((await dispatcher.checkTakeover()).takenOver).toBe(false);
      const shot = await dispatcher.screenshot();
      expect(shot.meta.screenSize).toEqual({ width: 1024, height: 700 });
      expect(dispatcher.takeover.paused).toBe(false);
      expect(dispatcher.takeover.lastAgentPointer).toEqual({ x: 1023, y: 699 });
      const done = await dispatcher.run(clickCommand(100, 100));
      expect(done.error).toBeNull();
      await eventually('the click in the xterm', 5_000, async () => ((await recorder.clicks()) > 0 ? true : undefined));
    } finally {
      await recorder.program.stop();
    }
  }, 60_000);

  it('runs an action without a point, and the host follows the pointer to where the X server put it', async () => {
    await setScreenSize(x, 1280, 800);
    const { dispatcher } = hostDispatcher();
    await agentInTheCornerThenShrink(dispatcher);
    const waited = await dispatcher.run(action('wait', { seconds: 0 }));
    expect(waited).toMatchObject({ status: 'success', error: null });
    expect(dispatcher.takeover.paused).toBe(false);
    expect(dispatcher.takeover.lastAgentPointer).toEqual({ x: 1023, y: 699 });
  }, 60_000);

  it('still sees the user taking the mouse when the screen shrank as well', async () => {
    await setScreenSize(x, 1280, 800);
    const recorder = await clickRecorder('shrink-and-user', '+0+0');
    try {
      const { dispatcher } = hostDispatcher();
      await agentInTheCornerThenShrink(dispatcher);
      await execFileP('xdotool', ['mousemove', '300', '200'], { env: x.env });
      const refused = await dispatcher.run(clickCommand(100, 100));
      expect(refused).toMatchObject({ status: 'failure', takenOver: true });
      expect(refused.error).toMatch(/^not run: The pointer moved from \(1270, 790\), where the agent left it, to \(300, 200\): you have taken the mouse/);
      expect(dispatcher.takeover.paused).toBe(true);
      await clicksSettled();
      expect(await recorder.clicks()).toBe(0);
    } finally {
      await recorder.program.stop();
    }
  }, 60_000);

  it('does not pause a run whose screen shrank under the pointer while the model was thinking', async () => {
    await setScreenSize(x, 1280, 800);
    const recorder = await clickRecorder('agent-window', '+0+0');
    await execFileP('wmctrl', ['-i', '-r', recorder.program.windowId, '-b', 'add,maximized_vert,maximized_horz'], { env: x.env });
    await eventually('the window maximized', 5_000, async () => {
      const { stdout } = await execFileP('xdotool', ['getwindowgeometry', recorder.program.windowId], { env: x.env });
      return /Geometry: 12\d\dx7\d\d/.test(stdout) ? true : undefined;
    });
    const { app, hostTo, host } = replies;
    const model = await startModelServer({
      name: 'screen shrinks under the pointer',
      steps: [
        hostTo('agent-window', 'click in the corner, then near the top'),
        // Near the bottom-right corner of the maximized window, so of the screen.
        app({ Function: 'click', Args: { x: 1200, y: 700 }, Status: 'CONTINUE' }),
        // The screen shrinks while the model thinks about this one.
        { ...app({ Function: 'click', Args: { x: 100, y: 100 }, Status: 'CONTINUE' }), delayMs: 4_000 },
        { ...app({ Function: 'click', Args: { x: 100, y: 100 }, Status: 'CONTINUE' }), expect: { contains: ['the screen changed size since the last screenshot'] } },
        app({ Function: '', Status: 'FINISH' }),
        host({ Status: 'FINISH', Comment: 'done' }),
      ],
    });
    const config = DeskhandConfig.parse({ models: { host: { baseUrl: model.baseUrl, model: 'scripted', maxRetries: 0 } } });
    const dataDir = await mkdtemp(join(tmpdir(), 'deskhand-shrink-host-'));
    const home = join(dataDir, 'home');
    await mkdir(home);
    const deskhand = createHost({ dataDir, config, env: { ...x.env, HOME: home, OPENAI_API_KEY: 'x' } });
    const paused = new Promise<string>((resolve) =>
      deskhand.sessions.subscribe((event) => {
        if (event.kind === 'status.changed' && event.status === 'paused') resolve(`paused: ${event.detail}`);
      }),
    );
    try {
      const start = await deskhand.endpoint.handle({ type: 'session.start', id: 's', request: 'click in the corner, then near the top' });
      expect(start).toMatchObject({ ok: true });
      await until(() => model.requests.length >= 3 || undefined, 'the model asked for the step after the corner click');
      await shrinkUnderThePointer();

      expect(await Promise.race([deskhand.sessions.running, paused])).toEqual({ status: 'finished', result: 'done' });
      model.assertDone();
      const sessionId = deskhand.store.listSessions(1)[0]!.id;
      const clicks = deskhand.store.steps(sessionId).filter((step) => step.action?.function === 'click');
      expect(clicks.map((step) => step.status)).toEqual(['CONTINUE', 'ERROR', 'CONTINUE']);
      expect(clicks[1]?.error).toMatch(/^click not run: the screen changed size since the last screenshot \(1280x800 then, 1024x700 now\)/);
      expect(clicks[1]?.error).toContain(LOOK_AGAIN);
      await eventually('both clicks that ran in the window', 5_000, async () => ((await recorder.clicks()) >= 2 ? true : undefined));
    } finally {
      await deskhand.close();
      await model.close();
      await recorder.program.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
