import sharp from 'sharp';
import { PNG_COMPRESSION_LEVEL } from './png-level';

/**
 * Annotated screenshots: a copy of the screenshot the model saw with its action drawn on it, for the
 * trajectory view (each step's screenshot with the action drawn on it). Pure
 * (bytes in, bytes out; no device access), so the host can run it on any stored screenshot.
 *
 * Coordinates in `action.args` are pixels of that image, exactly as the model gave them (the device
 * contract's click/move/drag/scroll/type_text arguments). What is drawn:
 * - click: a ring and a crosshair at the point; red for left, blue for right, green for middle; a
 *   double click has two rings.
 * - move: a dashed ring.
 * - drag: a dot at the start and an arrow to the end.
 * - scroll: an arrow from the point in the scroll direction, as long as the amount, with a label.
 * - type_text: a box with the text (shortened, newlines shown as ⏎), at the click point when given.
 * - hotkey: a key label ("ctrl+s"); anything else: a label with the tool and its main argument.
 * Every mark has a dark halo so it reads on light and dark screens. Text goes into the SVG escaped, with
 * characters XML forbids removed, so no screen text or model output can break or inject markup.
 */

export interface ActionToDraw {
  /** Tool name, e.g. "click". */
  function: string;
  args: Record<string, unknown>;
}

export type AnnotatableMime = 'image/jpeg' | 'image/webp' | 'image/png';

export const BUTTON_COLOURS = { left: '#ff2d55', right: '#0a84ff', middle: '#30d158' } as const;
const DRAG_COLOUR = '#ff9f0a';
const SCROLL_COLOUR = '#bf5af2';
const TEXT_COLOUR = '#ffd60a';
const HALO = 'rgba(0,0,0,0.75)';
const FONT = "'DejaVu Sans Mono', 'Liberation Mono', monospace";
/** Longest text shown in a label before it is shortened with an ellipsis. */
export const MAX_LABEL_CHARS = 80;

/** Escapes text for SVG character data and attribute values; drops characters XML 1.0 does not allow. */
export function escapeSvgText(text: string): string {
  let clean = '';
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    const allowed =
      code === 0x9 ||
      code === 0xa ||
      code === 0xd ||
      (code >= 0x20 && code <= 0xd7ff) ||
      (code >= 0xe000 && code <= 0xfffd) ||
      (code >= 0x10000 && code <= 0x10ffff);
    if (allowed) clean += char;
  }
  return clean
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** Text as one line for a label: newlines as ⏎, tabs as →, other controls dropped, at most `max` chars. */
export function labelText(text: string, max = MAX_LABEL_CHARS): string {
  const visible = [...text.replace(/\r\n?/g, '\n')]
    .map((c) => (c === '\n' ? '⏎' : c === '\t' ? '→' : c))
    .filter((c) => (c.codePointAt(0) as number) >= 0x20 && c !== '\u007f');
  return visible.length > max ? `${visible.slice(0, max - 1).join('')}…` : visible.join('');
}

/** Rough rendered width in "character cells": East Asian wide characters count twice. */
function cells(text: string): number {
  let n = 0;
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    const wide =
      (code >= 0x1100 && code <= 0x115f) ||
      (code >= 0x2e80 && code <= 0xa4cf) ||
      (code >= 0xac00 && code <= 0xd7a3) ||
      (code >= 0xf900 && code <= 0xfaff) ||
      (code >= 0xfe30 && code <= 0xfe4f) ||
      (code >= 0xff00 && code <= 0xff60) ||
      (code >= 0xffe0 && code <= 0xffe6) ||
      (code >= 0x1f300 && code <= 0x1faff) ||
      (code >= 0x20000 && code <= 0x3fffd);
    n += wide ? 2 : 1;
  }
  return n;
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

const fmt = (n: number): string => (Math.round(n * 10) / 10).toString();

interface Canvas {
  width: number;
  height: number;
  /** Base size of marks, relative to the image. */
  unit: number;
  parts: string[];
  /** The area the marks cover (image pixels, strokes included), or null before the first mark. */
  box: { left: number; top: number; right: number; bottom: number } | null;
}

/** Notes that a mark covers (x0, y0)-(x1, y1), widened by `margin` for its stroke and antialiasing. */
function cover(canvas: Canvas, x0: number, y0: number, x1: number, y1: number, margin: number): void {
  const area = { left: Math.min(x0, x1) - margin, top: Math.min(y0, y1) - margin, right: Math.max(x0, x1) + margin, bottom: Math.max(y0, y1) + margin };
  const box = canvas.box;
  canvas.box = box
    ? { left: Math.min(box.left, area.left), top: Math.min(box.top, area.top), right: Math.max(box.right, area.right), bottom: Math.max(box.bottom, area.bottom) }
    : area;
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), Math.max(min, max));
}

/** A label box with text; anchored near (x, y) and kept inside the image. */
function label(canvas: Canvas, text: string, x: number, y: number, colour: string): void {
  const shown = labelText(text);
  if (!shown) return;
  const size = Math.max(11, Math.round(canvas.unit * 0.9));
  const pad = Math.round(size * 0.4);
  const w = Math.min(canvas.width, Math.round(cells(shown) * size * 0.62) + pad * 2);
  const h = size + pad * 2;
  const left = clamp(x, 0, canvas.width - w);
  const top = clamp(y, 0, canvas.height - h);
  // The box's width is an estimate; glyphs wider than it (Devanagari, Thai, symbols) run on to the right.
  cover(canvas, left, top, canvas.width, top + h, pad + 2);
  canvas.parts.push(
    `<rect x="${fmt(left)}" y="${fmt(top)}" width="${fmt(w)}" height="${fmt(h)}" rx="${fmt(pad)}" ` +
      `fill="rgba(0,0,0,0.78)" stroke="${colour}" stroke-width="2"/>`,
    `<text x="${fmt(left + pad)}" y="${fmt(top + pad + size * 0.82)}" font-family="${escapeSvgText(FONT)}" ` +
      `font-size="${size}" fill="${colour}" xml:space="preserve">${escapeSvgText(shown)}</text>`,
  );
}

/** Draws `shape` twice: a wide dark halo, then the colour. */
function haloed(canvas: Canvas, shape: (stroke: string, width: number) => string, width: number, colour: string): void {
  canvas.parts.push(shape(HALO, width + 3), shape(colour, width));
}

function clickMark(canvas: Canvas, x: number, y: number, colour: string, double: boolean): void {
  const r = canvas.unit;
  const w = Math.max(2, canvas.unit / 6);
  const ring = (radius: number) => (stroke: string, width: number) =>
    `<circle cx="${fmt(x)}" cy="${fmt(y)}" r="${fmt(radius)}" fill="none" stroke="${stroke}" stroke-width="${fmt(width)}"/>`;
  haloed(canvas, ring(r), w, colour);
  if (double) haloed(canvas, ring(r * 1.6), w, colour);
  const arm = r * (double ? 2.1 : 1.5);
  cover(canvas, x - arm, y - arm, x + arm, y + arm, w + 4);
  const cross = (stroke: string, width: number): string =>
    `<path d="M${fmt(x - arm)} ${fmt(y)}H${fmt(x + arm)}M${fmt(x)} ${fmt(y - arm)}V${fmt(y + arm)}" ` +
    `stroke="${stroke}" stroke-width="${fmt(width)}" fill="none"/>`;
  haloed(canvas, cross, Math.max(1.5, w / 2), colour);
}

function arrow(canvas: Canvas, x1: number, y1: number, x2: number, y2: number, colour: string): void {
  const w = Math.max(2, canvas.unit / 5);
  const angle = Math.atan2(y2 - y1, x2 - x1);
  const head = canvas.unit * 1.3;
  const spread = Math.PI / 7;
  const hx1 = x2 - head * Math.cos(angle - spread);
  const hy1 = y2 - head * Math.sin(angle - spread);
  const hx2 = x2 - head * Math.cos(angle + spread);
  const hy2 = y2 - head * Math.sin(angle + spread);
  const line = (stroke: string, width: number): string =>
    `<path d="M${fmt(x1)} ${fmt(y1)}L${fmt(x2)} ${fmt(y2)}" stroke="${stroke}" stroke-width="${fmt(width)}" ` +
    `stroke-linecap="round" fill="none"/>`;
  const tip = (stroke: string, width: number): string =>
    `<path d="M${fmt(x2)} ${fmt(y2)}L${fmt(hx1)} ${fmt(hy1)}L${fmt(hx2)} ${fmt(hy2)}Z" fill="${stroke === HALO ? HALO : colour}" ` +
    `stroke="${stroke}" stroke-width="${fmt(width / 2)}" stroke-linejoin="round"/>`;
  cover(canvas, x1, y1, x2, y2, w + 4);
  cover(canvas, hx1, hy1, hx2, hy2, w + 4);
  haloed(canvas, line, w, colour);
  haloed(canvas, tip, w, colour);
}

function dot(canvas: Canvas, x: number, y: number, colour: string): void {
  const r = Math.max(3, canvas.unit / 3);
  cover(canvas, x - r, y - r, x + r, y + r, 4);
  canvas.parts.push(
    `<circle cx="${fmt(x)}" cy="${fmt(y)}" r="${fmt(r + 2)}" fill="${HALO}"/>`,
    `<circle cx="${fmt(x)}" cy="${fmt(y)}" r="${fmt(r)}" fill="${colour}"/>`,
  );
}

/** A short description of actions without a point, for their label. */
function summary(action: ActionToDraw): string {
  const a = action.args;
  switch (action.function) {
    case 'hotkey':
      return Array.isArray(a.keys) ? a.keys.map(String).join('+') : 'hotkey';
    case 'execute_command':
      return `$ ${str(a.command) ?? ''}`;
    case 'launch_app':
      return `launch ${str(a.name) ?? ''}`;
    case 'focus_window':
      return `focus ${str(a.id) ?? ''}`;
    case 'wait':
      return `wait ${num(a.seconds) ?? ''} s`;
    default:
      return action.function;
  }
}

/** The SVG overlay for an image of `width` x `height`; exported for tests and for other renderers. */
export function annotationSvg(width: number, height: number, action: ActionToDraw): string {
  return svgOf(draw(width, height, action), { left: 0, top: 0, width, height });
}

/**
 * Only the part of the overlay the marks cover, and where it goes on the image: rendering and blending
 * a small SVG instead of one the size of the screenshot. Null when nothing lands on the image.
 */
export function annotationOverlay(width: number, height: number, action: ActionToDraw): { svg: string; left: number; top: number } | null {
  const canvas = draw(width, height, action);
  if (!canvas.box) return null;
  const left = Math.max(0, Math.floor(canvas.box.left));
  const top = Math.max(0, Math.floor(canvas.box.top));
  const right = Math.min(width, Math.ceil(canvas.box.right));
  const bottom = Math.min(height, Math.ceil(canvas.box.bottom));
  if (right <= left || bottom <= top) return null;
  return { svg: svgOf(canvas, { left, top, width: right - left, height: bottom - top }), left, top };
}

/** The marks as an SVG showing `area` of the image (its coordinates stay image pixels, via the viewBox). */
function svgOf(canvas: Canvas, area: { left: number; top: number; width: number; height: number }): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${area.width}" height="${area.height}" ` +
    `viewBox="${area.left} ${area.top} ${area.width} ${area.height}">` +
    canvas.parts.join('') +
    '</svg>'
  );
}

function draw(width: number, height: number, action: ActionToDraw): Canvas {
  const canvas: Canvas = { width, height, unit: Math.max(8, Math.min(width, height) / 45), parts: [], box: null };
  const a = action.args ?? {};
  const x = num(a.x);
  const y = num(a.y);
  const near = (px: number, py: number): [number, number] => [px + canvas.unit * 1.8, py + canvas.unit * 1.2];

  switch (action.function) {
    case 'click': {
      if (x === null || y === null) break;
      const button = str(a.button) ?? 'left';
      const colour = BUTTON_COLOURS[button as keyof typeof BUTTON_COLOURS] ?? BUTTON_COLOURS.left;
      const double = a.double === true;
      clickMark(canvas, x, y, colour, double);
      const name = `${double ? 'double ' : ''}${button === 'left' ? '' : `${button} `}click`;
      label(canvas, name, ...near(x, y), colour);
      break;
    }
    case 'move': {
      if (x === null || y === null) break;
      const w = Math.max(2, canvas.unit / 6);
      cover(canvas, x - canvas.unit, y - canvas.unit, x + canvas.unit, y + canvas.unit, w + 4);
      haloed(
        canvas,
        (stroke, width) =>
          `<circle cx="${fmt(x)}" cy="${fmt(y)}" r="${fmt(canvas.unit)}" fill="none" stroke="${stroke}" ` +
          `stroke-width="${fmt(width)}" stroke-dasharray="${fmt(canvas.unit / 2)}"/>`,
        w,
        TEXT_COLOUR,
      );
      label(canvas, 'move', ...near(x, y), TEXT_COLOUR);
      break;
    }
    case 'drag': {
      const [fx, fy, tx, ty] = [num(a.from_x), num(a.from_y), num(a.to_x), num(a.to_y)];
      if (fx === null || fy === null || tx === null || ty === null) break;
      dot(canvas, fx, fy, DRAG_COLOUR);
      arrow(canvas, fx, fy, tx, ty, DRAG_COLOUR);
      label(canvas, 'drag', ...near(tx, ty), DRAG_COLOUR);
      break;
    }
    case 'scroll': {
      if (x === null || y === null) break;
      const direction = str(a.direction) ?? 'down';
      const amount = num(a.amount) ?? 5;
      const length = canvas.unit * (2 + Math.min(amount, 20) * 0.5);
      const [dx, dy] = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] }[direction] ?? [0, 1];
      dot(canvas, x, y, SCROLL_COLOUR);
      arrow(canvas, x, y, x + (dx as number) * length, y + (dy as number) * length, SCROLL_COLOUR);
      label(canvas, `scroll ${direction} ×${amount}`, ...near(x, y), SCROLL_COLOUR);
      break;
    }
    case 'type_text': {
      const text = str(a.text) ?? '';
      if (x !== null && y !== null) {
        clickMark(canvas, x, y, BUTTON_COLOURS.left, false);
        label(canvas, `⌨ ${text}`, ...near(x, y), TEXT_COLOUR);
      } else {
        label(canvas, `⌨ ${text}`, canvas.unit, height - canvas.unit * 4, TEXT_COLOUR);
      }
      break;
    }
    default:
      label(canvas, summary(action), canvas.unit, canvas.unit, TEXT_COLOUR);
  }
  return canvas;
}

/**
 * Draws `action` on a copy of `image` and returns it encoded like the input (JPEG, WebP or PNG); the
 * image itself when no mark lands on it. Throws when the image cannot be decoded.
 */
export async function annotateScreenshot(image: Buffer, mime: string, action: ActionToDraw): Promise<Buffer> {
  const meta = await sharp(image).metadata();
  const width = meta.width;
  const height = meta.height;
  if (!width || !height) throw new Error('annotateScreenshot: the image has no size');
  const overlay = annotationOverlay(width, height, action);
  if (!overlay) return image;
  const pipeline = sharp(image).composite([{ input: Buffer.from(overlay.svg), top: overlay.top, left: overlay.left }]);
  switch (mime) {
    case 'image/png':
      return pipeline.png({ compressionLevel: PNG_COMPRESSION_LEVEL }).toBuffer();
    case 'image/webp':
      return pipeline.webp({ quality: 80 }).toBuffer();
    default:
      return pipeline.jpeg({ quality: 80, optimiseCoding: false }).toBuffer();
  }
}
