import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceConfig } from '../../src-main/device/config';
import { EXPECT_KEYBOARD_META, KEYBOARD_ELSEWHERE_META } from '../../src-main/device/contract';
import { screenshotPixels, startDevice, startXterm, startXvfb, textOf, type DeviceHandle, type XDisplay, type XProgram } from '../support/xvfb';

const execFileP = promisify(execFile);

/** Browser mode's per-launch mark, as its page title carries it (and the browser its window title). */
const MARK = '5e1f0a9c';

interface Protection {
  name: string;
  /** The title of the window that stands in for Deskhand's. */
  title: string;
  config(own: XProgram): Partial<DeviceConfig>;
}

const PROTECTIONS: Protection[] = [
  // The desktop app passes its main process.
  { name: 'by process (--protect-pid)', title: 'deskhand-own', config: (own) => ({ protectPid: own.pid }) },
  // Browser mode passes its mark; the xterm stands in for the browser window showing the Deskhand tab.
  { name: 'by title (--protect-title)', title: `Deskhand · ${MARK} - Chromium`, config: () => ({ protectTitle: MARK }) },
];

/**
 * Deskhand's own windows are out of the agent's reach: the device client neither lists nor focuses
 * them, and acts at no point on them. Here an xterm stands in for Deskhand's window, beside another
 * xterm the agent may use.
 */
describe.each(PROTECTIONS)('the device client keeps away from Deskhand\'s own windows, $name (Xvfb + openbox)', (protection) => {
  let x: XDisplay;
  let own: XProgram;
  let other: XProgram;
  let device: DeviceHandle;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'deskhand-protected-'));
    x = await startXvfb({ width: 800, height: 600 });
    own = await startXterm(x, { geometry: '40x10+0+0', title: protection.title, cwd: dir });
    other = await startXterm(x, { geometry: '40x10+400+300', title: 'agent-work' });
    device = await startDevice(x, { config: protection.config(own) });
  });

  afterAll(async () => {
    await device?.close();
    await own?.stop();
    await other?.stop();
    await x?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('lists the other windows but not its own', async () => {
    const result = await device.callOk('list_windows');
    const ids = (result.structuredContent as { windows: Array<{ id: string }> }).windows.map((window) => window.id);
    expect(ids).toContain(other.windowId);
    expect(ids).not.toContain(own.windowId);
  });

  it('refuses to focus its own window, and leaves the focus where it was', async () => {
    await device.callOk('focus_window', { id: other.windowId });
    const refused = await device.call('focus_window', { id: own.windowId });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toMatch(/is Deskhand's own: the agent does not act on it/);
    // The window the agent works in is still the active one.
    const listed = await device.callOk('list_windows');
    const windows = (listed.structuredContent as { windows: Array<{ id: string; active?: boolean }> }).windows;
    expect(windows.find((window) => window.id === other.windowId)?.active).toBe(true);
  });

  it('refuses a screenshot of its own window', async () => {
    const refused = await device.call('screenshot', { window_id: own.windowId });
    expect(textOf(refused)).toBe(`screenshot failed: window ${own.windowId} is Deskhand's own: the agent does not look at it`);
    await device.callOk('screenshot', { window_id: other.windowId });
  });

  it('refuses an action at a point on its own window before the pointer moves, and acts elsewhere', async () => {
    await device.callOk('focus_window', { id: other.windowId });
    await device.callOk('screenshot'); // coordinates: pixels of this whole-screen screenshot
    await device.callOk('move', { x: 700, y: 500 });
    const before = textOf(await device.callOk('pointer'));
    const onOwn = { x: 20, y: 20 }; // inside the 40x10 xterm at the top left
    for (const [tool, args] of [
      ['click', onOwn],
      ['type_text', { text: 'x', ...onOwn }],
      ['drag', { from_x: 700, from_y: 500, to_x: onOwn.x, to_y: onOwn.y }],
      ['scroll', { ...onOwn, direction: 'down' }],
    ] as const) {
      const refused = await device.call(tool, args);
      expect(refused.isError, tool).toBe(true);
      expect(textOf(refused), tool).toBe(`${tool} failed: (20, 20) is on Deskhand's own window: the agent does not act on it`);
    }
    expect(textOf(await device.callOk('pointer'))).toBe(before);
    const listed = await device.callOk('list_windows');
    const windows = (listed.structuredContent as { windows: Array<{ id: string; active?: boolean }> }).windows;
    expect(windows.find((window) => window.id === other.windowId)?.active).toBe(true);
    // The agent's own window takes the click.
    await device.callOk('click', { x: 600, y: 400 });
  });

  it('refuses keyboard input bound for its application when its window has the keyboard, and names no window', async () => {
    // Raised by the user, say: then only its being Deskhand's refuses the input.
    await execFileP('xdotool', ['windowactivate', '--sync', String(parseInt(own.windowId, 16))], { env: x.env });
    const refused = await device.call('type_text', { text: 'touch into-deskhand\n' }, { meta: { [EXPECT_KEYBOARD_META]: { app: 'xterm' } } });
    expect(refused.isError).toBe(true);
    expect(refused._meta?.[KEYBOARD_ELSEWHERE_META]).toEqual({ expected: 'xterm', window: null, typed: 0 });
    expect(textOf(refused)).toMatch(/no window the agent may use/);
    await new Promise((done) => setTimeout(done, 500));
    expect(existsSync(join(dir, 'into-deskhand'))).toBe(false);
  });

  it('paints what shows of its own window grey in screenshots, and nothing else', async () => {
    const grey = [0x80, 0x80, 0x80];
    const inOwn = { x: 20, y: 40 }; // inside the 40x10 xterm at the top left, below its title bar
    const whole = await screenshotPixels(await device.callOk('screenshot'));
    expect(whole.at(inOwn.x, inOwn.y)).toEqual(grey);
    expect(whole.at(600, 400), "the agent's window").not.toEqual(grey);

    // The agent's window raised over part of Deskhand's: the part it covers shows it, the rest stays grey.
    const otherId = String(parseInt(other.windowId, 16));
    await execFileP('xdotool', ['windowmove', '--sync', otherId, '100', '60'], { env: x.env });
    await execFileP('xdotool', ['windowactivate', '--sync', otherId], { env: x.env });
    const covered = await screenshotPixels(await device.callOk('screenshot'));
    expect(covered.at(inOwn.x, inOwn.y)).toEqual(grey);
    const onTop = covered.at(150, 100);
    expect(onTop, "the agent's window over Deskhand's").not.toEqual(grey);
    // The same pixel in a screenshot of that window alone.
    const window = await device.callOk('screenshot', { window_id: other.windowId });
    const region = (window.structuredContent as { region: { x: number; y: number } }).region;
    expect((await screenshotPixels(window)).at(150 - region.x, 100 - region.y)).toEqual(onTop);
  });
});

/**
 * Browser mode: the browser window is Deskhand's only while its title carries the mark, i.e. while the
 * Deskhand tab is the one on screen (the suite above covers that case).
 */
describe('the browser window showing the Deskhand tab, by its title mark (Xvfb + openbox)', () => {
  let x: XDisplay;
  let browser: XProgram;
  let device: DeviceHandle;
  let dir: string;
  const setTitle = (title: string) => execFileP('xdotool', ['set_window', '--name', title, String(parseInt(browser.windowId, 16))], { env: x.env });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'deskhand-protect-title-'));
    x = await startXvfb({ width: 800, height: 600 });
    browser = await startXterm(x, { geometry: '40x10+0+0', title: `(1) Deskhand: waiting for you · ${MARK} - Chromium`, name: 'chromium', cwd: dir });
    device = await startDevice(x, { config: { protectTitle: MARK } });
  });

  afterAll(async () => {
    await device?.close();
    await browser?.stop();
    await x?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('treats the window as any other once another tab is on screen', async () => {
    await setTitle('Example Domain - Chromium');
    const listed = await device.callOk('list_windows');
    const ids = (listed.structuredContent as { windows: Array<{ id: string }> }).windows.map((window) => window.id);
    expect(ids).toContain(browser.windowId);
    await device.callOk('type_text', { text: 'touch into-other-tab\n' }, { meta: { [EXPECT_KEYBOARD_META]: { app: 'chromium' } } });
    await expect.poll(() => existsSync(join(dir, 'into-other-tab')), { timeout: 5_000 }).toBe(true);
    // Back on the Deskhand tab: out of reach again.
    await setTitle(`Deskhand · ${MARK} - Chromium`);
    const again = await device.callOk('list_windows');
    expect((again.structuredContent as { windows: Array<{ id: string }> }).windows.map((window) => window.id)).not.toContain(browser.windowId);
  });
});
