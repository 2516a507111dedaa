import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { annotateScreenshot, annotationOverlay, annotationSvg, BUTTON_COLOURS, escapeSvgText, labelText, type ActionToDraw } from '../../src-main/device/annotate';

const W = 400;
const H = 300;
const GREY = { r: 128, g: 128, b: 128 };

async function blank(format: 'png' | 'jpeg' | 'webp' = 'png'): Promise<Buffer> {
  const base = sharp({ create: { width: W, height: H, channels: 3, background: GREY } });
  return format === 'png' ? base.png().toBuffer() : format === 'jpeg' ? base.jpeg().toBuffer() : base.webp().toBuffer();
}

async function pixels(image: Buffer): Promise<{ at: (x: number, y: number) => [number, number, number]; width: number; height: number }> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    at: (x, y) => {
      const i = (y * info.width + x) * info.channels;
      return [data[i] as number, data[i + 1] as number, data[i + 2] as number];
    },
  };
}

function hex(colour: string): [number, number, number] {
  const n = parseInt(colour.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function distance(a: readonly number[], b: readonly number[]): number {
  return Math.hypot((a[0] ?? 0) - (b[0] ?? 0), (a[1] ?? 0) - (b[1] ?? 0), (a[2] ?? 0) - (b[2] ?? 0));
}

const isGrey = (p: readonly number[]): boolean => distance(p, [GREY.r, GREY.g, GREY.b]) < 12;

describe('annotateScreenshot', () => {
  it('marks a left click with a red crosshair at the point and leaves far pixels alone', async () => {
    const out = await annotateScreenshot(await blank(), 'image/png', { function: 'click', args: { x: 100, y: 120 } });
    const img = await pixels(out);
    expect({ width: img.width, height: img.height }).toEqual({ width: W, height: H });
    expect(distance(img.at(100, 120), hex(BUTTON_COLOURS.left))).toBeLessThan(40);
    expect(isGrey(img.at(390, 10))).toBe(true);
    expect(isGrey(img.at(10, 290))).toBe(true);
  });

  it('uses the colour of the button', async () => {
    for (const button of ['right', 'middle'] as const) {
      const out = await annotateScreenshot(await blank(), 'image/png', { function: 'click', args: { x: 200, y: 150, button } });
      expect(distance((await pixels(out)).at(200, 150), hex(BUTTON_COLOURS[button]))).toBeLessThan(40);
    }
  });

  it('draws a double click as two rings', async () => {
    const single = annotationSvg(W, H, { function: 'click', args: { x: 50, y: 50 } });
    const double = annotationSvg(W, H, { function: 'click', args: { x: 50, y: 50, double: true } });
    const rings = (svg: string): number => (svg.match(/<circle /g) ?? []).length;
    expect(rings(double)).toBe(2 * rings(single));
    // The outer ring (radius 1.6 units, unit = 300/45) is drawn in colour where a single click has none.
    const unit = Math.max(8, Math.min(W, H) / 45);
    const x = Math.round(200 + unit * 1.6 * Math.SQRT1_2);
    const y = Math.round(150 + unit * 1.6 * Math.SQRT1_2);
    const one = await pixels(await annotateScreenshot(await blank(), 'image/png', { function: 'click', args: { x: 200, y: 150 } }));
    const two = await pixels(
      await annotateScreenshot(await blank(), 'image/png', { function: 'click', args: { x: 200, y: 150, double: true } }),
    );
    expect(isGrey(one.at(x, y))).toBe(true);
    expect(isGrey(two.at(x, y))).toBe(false);
  });

  it('draws a drag path from start to end', async () => {
    const out = await pixels(
      await annotateScreenshot(await blank(), 'image/png', { function: 'drag', args: { from_x: 50, from_y: 50, to_x: 350, to_y: 50 } }),
    );
    for (const x of [50, 120, 200, 280]) expect(isGrey(out.at(x, 50)), `x=${x}`).toBe(false);
    expect(isGrey(out.at(200, 250))).toBe(true);
  });

  it('draws a scroll arrow in the scroll direction', async () => {
    const out = await pixels(
      await annotateScreenshot(await blank(), 'image/png', { function: 'scroll', args: { x: 100, y: 60, direction: 'down', amount: 5 } }),
    );
    expect(isGrey(out.at(100, 80))).toBe(false);
    expect(isGrey(out.at(100, 40))).toBe(true);
  });

  it('puts typed text in a box, escaped, with characters that would break XML', async () => {
    const text = 'a <b> & "c" \'d\' </svg><script>x</script> \u0001\u0008 ⏎\nnext 世界';
    const svg = annotationSvg(W, H, { function: 'type_text', args: { text } });
    expect(svg).not.toContain('<script>');
    expect(svg).not.toContain('</svg><');
    expect(svg).toContain('&lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;');
    expect(svg.includes('\u0001') || svg.includes('\u0008')).toBe(false);
    // sharp (librsvg) rejects malformed SVG, so rendering proves the markup holds.
    const out = await annotateScreenshot(await blank('jpeg'), 'image/jpeg', { function: 'type_text', args: { text, x: 10, y: 10 } });
    expect((await sharp(out).metadata()).format).toBe('jpeg');
  });

  it('labels hotkeys and other tools, and keeps the input format', async () => {
    const svg = annotationSvg(W, H, { function: 'hotkey', args: { keys: ['ctrl', 's'] } });
    expect(svg).toContain('>ctrl+s</text>');
    const webp = await annotateScreenshot(await blank('webp'), 'image/webp', { function: 'hotkey', args: { keys: ['alt', 'f4'] } });
    expect((await sharp(webp).metadata()).format).toBe('webp');
    const shell = annotationSvg(W, H, { function: 'execute_command', args: { command: 'ls | grep "x" && echo <done>' } });
    expect(shell).toContain('$ ls | grep &quot;x&quot; &amp;&amp; echo &lt;done&gt;');
  });

  it('ignores missing or non-numeric coordinates instead of failing', async () => {
    const out = await annotateScreenshot(await blank(), 'image/png', { function: 'click', args: { x: 'left', y: null } });
    const img = await pixels(out);
    expect(isGrey(img.at(200, 150))).toBe(true);
    // Points off the image are drawn clipped, not rejected.
    await annotateScreenshot(await blank(), 'image/png', { function: 'click', args: { x: -50, y: 5000 } });
  });
});

describe('annotationOverlay', () => {
  const actions: ActionToDraw[] = [
    { function: 'click', args: { x: 100, y: 120 } },
    { function: 'click', args: { x: 395, y: 4, double: true, button: 'right' } },
    { function: 'move', args: { x: 10, y: 290 } },
    { function: 'drag', args: { from_x: 30, from_y: 250, to_x: 380, to_y: 20 } },
    { function: 'scroll', args: { x: 200, y: 280, direction: 'down', amount: 20 } },
    { function: 'scroll', args: { x: 20, y: 150, direction: 'left', amount: 3 } },
    { function: 'type_text', args: { text: 'hello 世界\nsecond line', x: 380, y: 290 } },
    { function: 'type_text', args: { text: 'no point given' } },
    { function: 'type_text', args: { text: 'नमस्ते दुनिया ภาษาไทย ℡™⌘ ﷽', x: 40, y: 60 } },
    { function: 'hotkey', args: { keys: ['ctrl', 'shift', 't'] } },
  ];

  it.each(actions)('draws exactly what the whole-image overlay draws: $function $args', async (action) => {
    const base = await blank();
    const overlay = annotationOverlay(W, H, action);
    if (!overlay) throw new Error('nothing drawn');
    const whole = await sharp(base).composite([{ input: Buffer.from(annotationSvg(W, H, action)), top: 0, left: 0 }]).raw().toBuffer();
    const part = await sharp(base).composite([{ input: Buffer.from(overlay.svg), top: overlay.top, left: overlay.left }]).raw().toBuffer();
    let worst = 0;
    for (let i = 0; i < whole.length; i++) worst = Math.max(worst, Math.abs((whole[i] as number) - (part[i] as number)));
    expect(worst, 'largest difference of any channel').toBeLessThanOrEqual(2);
    const size = /width="(\d+)" height="(\d+)"/.exec(overlay.svg);
    expect(Number(size?.[1]) * Number(size?.[2]), 'the overlay is smaller than the image').toBeLessThan(W * H);
  });

  it('is null when there is nothing to draw, and the screenshot comes back as it was', async () => {
    const action = { function: 'click', args: { x: 'left', y: null } };
    expect(annotationOverlay(W, H, action)).toBeNull();
    const base = await blank();
    expect((await annotateScreenshot(base, 'image/png', action)).equals(base)).toBe(true);
  });
});

describe('SVG text helpers', () => {
  it('escapes the five XML specials and drops forbidden characters', () => {
    expect(escapeSvgText(`<&>"'`)).toBe('&lt;&amp;&gt;&quot;&apos;');
    expect(escapeSvgText('a\u0000b\uFFFEc\uD800d')).toBe('abcd');
    expect(escapeSvgText('emoji 😀 ok')).toBe('emoji 😀 ok');
  });

  it('shortens long labels and shows newlines', () => {
    expect(labelText('a\nb\tc')).toBe('a⏎b→c');
    const long = labelText('x'.repeat(500));
    expect([...long]).toHaveLength(80);
    expect(long.endsWith('…')).toBe(true);
  });
});
