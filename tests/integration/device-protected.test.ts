import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevice, startXterm, startXvfb, textOf, type DeviceHandle, type XDisplay, type XProgram } from '../support/xvfb';

/**
 * Deskhand's own windows are out of the agent's reach: the device client started with --protect-pid
 * (the desktop app passes its main process) neither lists nor focuses that process's windows. Here an
 * xterm stands in for Deskhand's window, beside another xterm the agent may use.
 */
describe('the device client keeps away from Deskhand\'s own windows (Xvfb + openbox)', () => {
  let x: XDisplay;
  let own: XProgram;
  let other: XProgram;
  let device: DeviceHandle;

  beforeAll(async () => {
    x = await startXvfb({ width: 800, height: 600 });
    own = await startXterm(x, { geometry: '40x10+0+0', title: 'deskhand-own' });
    other = await startXterm(x, { geometry: '40x10+400+300', title: 'agent-work' });
    device = await startDevice(x, { config: { protectPid: own.pid } });
  });

  afterAll(async () => {
    await device?.close();
    await own?.stop();
    await other?.stop();
    await x?.stop();
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
});
