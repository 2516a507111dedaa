import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScreenshotMeta } from '../../src-main/device/contract';
import { startDevice, startXvfb, textOf, type DeviceHandle, type XDisplay } from '../support/xvfb';

const execFileP = promisify(execFile);

/**
 * Two monitors of different sizes side by side, as RandR reports them: A 1920x1080 at (0, 0) and B
 * 1280x1024 at (1920, 0). The screen is their bounding box, 3200x1080, and its strip under B
 * (y 1024..1079 from x 1920) is on neither. Xvfb has one screen; xrandr --setmonitor splits it.
 */
describe('actions at points between monitors (Xvfb, two RandR monitors)', () => {
  let x: XDisplay;
  let device: DeviceHandle;

  beforeAll(async () => {
    x = await startXvfb({ width: 3200, height: 1080, windowManager: false });
    const xrandr = (args: string[]): Promise<unknown> => execFileP('xrandr', args, { env: x.env, timeout: 5_000 });
    // Giving A the output replaces the automatic monitor that covers the whole screen.
    await xrandr(['--setmonitor', 'A', '1920/508x1080/286+0+0', 'screen']);
    await xrandr(['--setmonitor', 'B', '1280/338x1024/270+1920+0', 'none']);
    device = await startDevice(x);
  });

  afterAll(async () => {
    await device?.close();
    await x?.stop();
  });

  const pointer = async (): Promise<{ x: number; y: number }> =>
    (JSON.parse(textOf(await device.callOk('pointer'))) as { screen: { x: number; y: number } }).screen;
  const monitors = 'monitors: 1920x1080 at (0, 0), 1280x1024 at (1920, 0)';

  // No screenshot yet: pixels of the "last screenshot" are screen pixels.
  const gap = { x: 2000, y: 1050 };
  const refusals: Array<{ tool: string; args: Record<string, unknown>; where: string }> = [
    { tool: 'move', args: gap, where: '(2000, 1050)' },
    { tool: 'click', args: gap, where: '(2000, 1050)' },
    { tool: 'scroll', args: { ...gap, direction: 'down' }, where: '(2000, 1050)' },
    { tool: 'type_text', args: { ...gap, text: 'typed' }, where: '(2000, 1050)' },
    // A drag from a monitor into the gap, or out of it: not even its press happens.
    { tool: 'drag', args: { from_x: 500, from_y: 500, to_x: 3199, to_y: 1024 }, where: '(3199, 1024)' },
    { tool: 'drag', args: { from_x: 1920, from_y: 1079, to_x: 500, to_y: 500 }, where: '(1920, 1079)' },
  ];

  it.each(refusals)('refuses $tool at $where, on no monitor, before the pointer moves', async ({ tool, args, where }) => {
    await device.callOk('move', { x: 100, y: 100 });
    const refused = await device.call(tool, args);
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe(`${tool} failed: ${where} is on no monitor: no monitor shows that part of the screen (${monitors}); nothing was done`);
    expect(await pointer()).toEqual({ x: 100, y: 100 });
  });

  it('acts at points on either monitor, up to their last pixels', async () => {
    for (const point of [
      { x: 0, y: 0 },
      { x: 1919, y: 1079 }, // A's last pixel, beside the gap
      { x: 1920, y: 0 }, // B's first
      { x: 1920, y: 1023 }, // B's last row, above the gap
      { x: 3199, y: 1023 },
    ]) {
      await device.callOk('move', point);
      expect(await pointer()).toEqual(point);
    }
  });

  it('maps a whole-screen screenshot\'s pixels to the screen before judging them', async () => {
    await device.callOk('move', { x: 100, y: 100 });
    const meta = ScreenshotMeta.parse((await device.callOk('screenshot')).structuredContent);
    const toImage = (p: { x: number; y: number }): { x: number; y: number } => ({
      x: Math.round((p.x * meta.width) / 3200),
      y: Math.round((p.y * meta.height) / 1080),
    });
    const inGap = toImage({ x: 2600, y: 1070 });
    const refused = await device.call('click', inGap);
    expect(textOf(refused)).toMatch(new RegExp(`^click failed: \\(${inGap.x}, ${inGap.y}\\) \\(screen point \\(\\d+, 10[2-7]\\d\\)\\) is on no monitor`));
    expect(await pointer()).toEqual({ x: 100, y: 100 });
    // Just above the gap is B.
    await device.callOk('move', toImage({ x: 2600, y: 1000 }));
    expect((await pointer()).x).toBeGreaterThan(1920);
  });
});
