import { ColorMode, screen } from '@nut-tree-fork/nut-js';
import sharp from 'sharp';
import type { ScreenshotMeta } from './contract';
import { fitLongEdge, intersect, type Rect } from './coords';

export interface EncodeOptions {
  maxEdge: number;
  format: 'jpeg' | 'webp';
  quality: number;
}

export interface Screenshot {
  data: Buffer;
  meta: ScreenshotMeta;
}

/** The parts of nut.js's Image we read. */
export interface RawImage {
  width: number;
  height: number;
  data: Buffer;
  channels: number;
  byteWidth: number;
  /** true when bytes are B,G,R(,A): what libnut returns on every platform today. */
  bgr: boolean;
}

/**
 * Copies `crop` (image pixels) out of a BGRA/BGR/RGBA image as tightly packed RGB. The alpha byte is
 * dropped: libnut fills it with 0, so anything that honours alpha shows a blank picture.
 */
export function toRgb(image: RawImage, crop: Rect = { x: 0, y: 0, width: image.width, height: image.height }): Buffer {
  const { channels, byteWidth, data } = image;
  if (channels !== 3 && channels !== 4) throw new Error(`unsupported screenshot with ${channels} channels`);
  const out = Buffer.allocUnsafe(crop.width * crop.height * 3);
  const r = image.bgr ? 2 : 0;
  const b = image.bgr ? 0 : 2;
  let o = 0;
  for (let row = 0; row < crop.height; row++) {
    let i = (crop.y + row) * byteWidth + crop.x * channels;
    const end = i + crop.width * channels;
    for (; i < end; i += channels) {
      out[o++] = data[i + r] as number;
      out[o++] = data[i + 1] as number;
      out[o++] = data[i + b] as number;
    }
  }
  return out;
}

const MIME = { jpeg: 'image/jpeg', webp: 'image/webp' } as const;

export async function encodeRgb(
  rgb: Buffer,
  width: number,
  height: number,
  options: EncodeOptions,
): Promise<{ data: Buffer; width: number; height: number; mimeType: (typeof MIME)[keyof typeof MIME] }> {
  const target = fitLongEdge(width, height, options.maxEdge);
  let pipeline = sharp(rgb, { raw: { width, height, channels: 3 } });
  if (target.width !== width || target.height !== height) {
    pipeline = pipeline.resize(target.width, target.height, { fit: 'fill' });
  }
  pipeline =
    options.format === 'webp' ? pipeline.webp({ quality: options.quality }) : pipeline.jpeg({ quality: options.quality });
  return { data: await pipeline.toBuffer(), ...target, mimeType: MIME[options.format] };
}

/** Logical screen size (the coordinate space of mouse input). */
export async function screenSize(): Promise<{ width: number; height: number }> {
  const [width, height] = await Promise.all([screen.width(), screen.height()]);
  return { width, height };
}

/**
 * Captures the main screen, or the part of it inside `region` (logical coordinates), and encodes it.
 * The full screen is grabbed and cropped here rather than with grabRegion, so HiDPI scaling is handled
 * in one place: grab pixels per logical pixel = grab width / logical width.
 */
export async function captureScreenshot(region: Rect | null, options: EncodeOptions): Promise<Screenshot> {
  const started = performance.now();
  const [size, grabbed] = await Promise.all([screenSize(), screen.grab()]);
  const captureMs = performance.now() - started;

  const full: Rect = { x: 0, y: 0, width: size.width, height: size.height };
  const logical = region ? intersect(region, full) : full;
  if (!logical) throw new Error('the requested area is entirely off screen');
  const scaleX = grabbed.width / size.width;
  const scaleY = grabbed.height / size.height;
  const crop: Rect = {
    x: Math.round(logical.x * scaleX),
    y: Math.round(logical.y * scaleY),
    width: Math.max(1, Math.min(grabbed.width, Math.round((logical.x + logical.width) * scaleX)) - Math.round(logical.x * scaleX)),
    height: Math.max(1, Math.min(grabbed.height, Math.round((logical.y + logical.height) * scaleY)) - Math.round(logical.y * scaleY)),
  };

  const encodeStart = performance.now();
  const rgb = toRgb(
    {
      width: grabbed.width,
      height: grabbed.height,
      data: grabbed.data,
      channels: grabbed.channels,
      byteWidth: grabbed.byteWidth,
      bgr: grabbed.colorMode !== ColorMode.RGB,
    },
    crop,
  );
  const encoded = await encodeRgb(rgb, crop.width, crop.height, options);
  const encodeMs = performance.now() - encodeStart;

  return {
    data: encoded.data,
    meta: {
      width: encoded.width,
      height: encoded.height,
      mimeType: encoded.mimeType,
      region: logical,
      captureMs: Math.round(captureMs * 10) / 10,
      encodeMs: Math.round(encodeMs * 10) / 10,
    },
  };
}
