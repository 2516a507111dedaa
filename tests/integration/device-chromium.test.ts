import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LaunchResult, ScreenshotMeta } from '../../src-main/device/contract';
import { startClickPage, type ClickPage, type PageEvent } from '../support/click-page';
import { eventually, processAlive, screenshotPixels, startDevice, startXvfb, type DeviceHandle, type XDisplay } from '../support/xvfb';

/**
 * Input lands where the model aims: a local page in a Chromium window (launched with launch_app)
 * reports every click, double click, right and middle click, wheel and drag to a loopback endpoint,
 * with where it landed relative to its target. The test aims only with what a model has: the device's
 * screenshot (targets found by colour) and image pixel coordinates. Two screen sizes; the second
 * screenshot is downscaled (1024x768 seen as 800x600), so the image-to-screen mapping is exercised.
 */

interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

const COLOURS: Record<string, [number, number, number]> = {
  click: [255, 0, 0],
  dbl: [0, 192, 0],
  right: [0, 0, 255],
  middle: [255, 0, 255],
  scroll: [255, 208, 0],
  pad: [0, 208, 208],
};

/** Chromium flags for a quiet, deterministic window on a test display (running as root needs no sandbox). */
function chromiumArgs(profile: string, url: string, width: number, height: number): string[] {
  return [
    '--no-sandbox',
    '--disable-gpu',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-dev-shm-usage',
    '--disable-features=Translate,MediaRouter',
    '--password-store=basic',
    '--force-device-scale-factor=1',
    '--disable-smooth-scrolling',
    '--ozone-platform=x11',
    `--user-data-dir=${profile}`,
    '--window-position=0,0',
    `--window-size=${width},${height}`,
    `--app=${url}`,
  ];
}

describe.each([
  { width: 1280, height: 800, maxEdge: 1280, imageWidth: 1280 },
  { width: 1024, height: 768, maxEdge: 800, imageWidth: 800 },
])('clicks in Chromium at $width x $height (screenshots $imageWidth px wide)', ({ width, height, maxEdge, imageWidth }) => {
  let x: XDisplay;
  let device: DeviceHandle;
  let page: ClickPage;
  let profile: string;
  let chromiumPid: number | null = null;
  let meta: ScreenshotMeta;
  /** Screen pixels per image pixel. */
  let scale: number;
  const boxes = new Map<string, Box>();

  /**
   * Finds every target in a fresh screenshot by its colour (image pixels). A target is a filled block,
   * so its box spans the rows and columns holding at least MIN_LINE pixels of its colour: a few stray
   * pixels of a similar colour elsewhere (antialiased title text, scaled edges) do not stretch it.
   */
  async function locateTargets(): Promise<boolean> {
    const MIN_LINE = 10;
    const shot = await device.callOk('screenshot');
    meta = ScreenshotMeta.parse(shot.structuredContent);
    scale = meta.region.width / meta.width;
    const img = await screenshotPixels(shot);
    const targets = Object.entries(COLOURS).map(([id, colour]) => ({
      id,
      colour,
      rows: new Uint32Array(img.height),
      columns: new Uint32Array(img.width),
    }));
    for (let py = 0; py < img.height; py++) {
      for (let px = 0; px < img.width; px++) {
        const [r, g, b] = img.at(px, py);
        for (const { colour: [cr, cg, cb], rows, columns } of targets) {
          if (Math.abs(r - cr) < 50 && Math.abs(g - cg) < 50 && Math.abs(b - cb) < 50) {
            rows[py] = (rows[py] ?? 0) + 1;
            columns[px] = (columns[px] ?? 0) + 1;
          }
        }
      }
    }
    const span = (counts: Uint32Array): [number, number] => [counts.findIndex((n) => n >= MIN_LINE), counts.findLastIndex((n) => n >= MIN_LINE)];
    boxes.clear();
    for (const { id, rows, columns } of targets) {
      const [top, bottom] = span(rows);
      const [left, right] = span(columns);
      if (top >= 0 && left >= 0) boxes.set(id, { left, top, right, bottom });
    }
    return Object.keys(COLOURS).every((id) => boxes.has(id));
  }

  /** An image pixel at fractions (fx, fy) of a target, and where that is relative to the target's centre on screen. */
  function aim(id: string, fx: number, fy: number): { x: number; y: number; fromCentre: { x: number; y: number } } {
    const box = boxes.get(id);
    if (!box) throw new Error(`target ${id} not found on screen`);
    const px = Math.round(box.left + fx * (box.right - box.left));
    const py = Math.round(box.top + fy * (box.bottom - box.top));
    // Centre of the box on screen, and where the device will put the pointer (coords.ts rounds).
    const cx = ((box.left + box.right + 1) / 2) * scale;
    const cy = ((box.top + box.bottom + 1) / 2) * scale;
    return { x: px, y: py, fromCentre: { x: Math.round(px * scale) - cx, y: Math.round(py * scale) - cy } };
  }

  /** The event landed within a few screen pixels of the aimed point. */
  function expectLanded(event: PageEvent, id: string, fromCentre: { x: number; y: number }): void {
    expect(event.target).toBe(id);
    const tolerance = 3 + scale;
    const dx = (event.x ?? NaN) - (event.width ?? NaN) / 2 - fromCentre.x;
    const dy = (event.y ?? NaN) - (event.height ?? NaN) / 2 - fromCentre.y;
    expect(Math.abs(dx), `x off by ${dx.toFixed(1)} px: ${JSON.stringify(event)}`).toBeLessThanOrEqual(tolerance);
    expect(Math.abs(dy), `y off by ${dy.toFixed(1)} px: ${JSON.stringify(event)}`).toBeLessThanOrEqual(tolerance);
  }

  beforeAll(async () => {
    x = await startXvfb({ width, height });
    page = await startClickPage();
    profile = await mkdtemp(join(tmpdir(), 'deskhand-chromium-'));
    device = await startDevice(x, { config: { maxEdge } });
    const launched = await device.callOk('launch_app', { name: 'chromium', args: chromiumArgs(profile, page.url, width, height) });
    const info = LaunchResult.parse(launched.structuredContent);
    chromiumPid = info.pid;
    expect(info.window, 'launch_app reported no window').not.toBeNull();
    expect(info.command[0]).toBe('chromium');
    await page.waitFor((e) => e.type === 'ready', 30_000);
    const deadline = Date.now() + 10_000;
    while (!(await locateTargets())) {
      if (Date.now() > deadline) throw new Error(`targets not all visible: ${JSON.stringify([...boxes.keys()])}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  });

  afterAll(async () => {
    if (chromiumPid) {
      try {
        process.kill(-chromiumPid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    await device?.close();
    await page?.close();
    await x?.stop();
    // Chromium may still be writing its profile while it exits.
    if (chromiumPid) await eventually('Chromium to exit', 10_000, async () => (processAlive(chromiumPid as number) ? undefined : true));
    if (profile) await rm(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  it('sees the page at the expected size', () => {
    expect(meta.width).toBe(imageWidth);
    const click = boxes.get('click') as Box;
    // 160 CSS pixels wide on screen, whatever the screenshot's scale.
    expect(Math.abs((click.right - click.left + 1) * scale - 160)).toBeLessThanOrEqual(2 * scale + 1);
  });

  it('left-clicks where it aims', async () => {
    const from = page.events.length;
    const target = aim('click', 0.3, 0.65);
    await device.callOk('click', { x: target.x, y: target.y });
    const event = await page.waitFor((e) => e.type === 'click', 5_000, from);
    expect(event).toMatchObject({ button: 0, detail: 1 });
    expectLanded(event, 'click', target.fromCentre);
  });

  it('double-clicks where it aims', async () => {
    const from = page.events.length;
    const target = aim('dbl', 0.75, 0.35);
    await device.callOk('click', { x: target.x, y: target.y, double: true });
    expectLanded(await page.waitFor((e) => e.type === 'dblclick', 5_000, from), 'dbl', target.fromCentre);
  });

  it('right-clicks where it aims', async () => {
    const from = page.events.length;
    const target = aim('right', 0.5, 0.5);
    await device.callOk('click', { x: target.x, y: target.y, button: 'right' });
    const event = await page.waitFor((e) => e.type === 'contextmenu', 5_000, from);
    expect(event.button).toBe(2);
    expectLanded(event, 'right', target.fromCentre);
  });

  it('middle-clicks where it aims', async () => {
    const from = page.events.length;
    const target = aim('middle', 0.2, 0.8);
    await device.callOk('click', { x: target.x, y: target.y, button: 'middle' });
    expectLanded(await page.waitFor((e) => e.type === 'middleclick', 5_000, from), 'middle', target.fromCentre);
  });

  it.each([
    ['down', 'deltaY', 1],
    ['up', 'deltaY', -1],
    ['right', 'deltaX', 1],
    ['left', 'deltaX', -1],
  ] as const)('scrolls %s where it aims', async (direction, axis, sign) => {
    const from = page.events.length;
    const target = aim('scroll', 0.4, 0.6);
    await device.callOk('scroll', { x: target.x, y: target.y, direction, amount: 2 });
    const event = await page.waitFor((e) => e.type === 'wheel' && Math.sign(Number(e[axis])) === sign, 5_000, from);
    expectLanded(event, 'scroll', target.fromCentre);
  });

  it('drags from where it aims to where it aims', async () => {
    const from = page.events.length;
    const start = aim('pad', 0.1, 0.5);
    const end = aim('pad', 0.85, 0.25);
    await device.callOk('drag', { from_x: start.x, from_y: start.y, to_x: end.x, to_y: end.y });
    expectLanded(await page.waitFor((e) => e.type === 'dragstart', 5_000, from), 'pad', start.fromCentre);
    const done = await page.waitFor((e) => e.type === 'dragend', 5_000, from);
    expectLanded(done, 'pad', end.fromCentre);
    expect(done.moves).toBeGreaterThan(2);
  });

  it('reports the pointer where the last action left it', async () => {
    const target = aim('click', 0.5, 0.5);
    const moved = await device.callOk('move', { x: target.x, y: target.y });
    const pointer = (moved.structuredContent as { pointer: { screen: { x: number; y: number }; image: { x: number; y: number } } }).pointer;
    expect(pointer.screen).toEqual({ x: Math.round(target.x * scale), y: Math.round(target.y * scale) });
    expect(Math.abs(pointer.image.x - target.x)).toBeLessThanOrEqual(1);
    const now = await device.callOk('pointer');
    expect((now.structuredContent as { pointer: unknown }).pointer).toEqual(pointer);
  });
});
