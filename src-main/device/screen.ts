import { ColorMode, Region, screen, type Image } from '@nut-tree-fork/nut-js';
import sharp, { type Sharp } from 'sharp';
import type { ScreenshotMeta } from './contract';
import { capturedArea, fitLongEdge, intersect, type Rect } from './coords';
import type { BandedPngEncoders } from './png-bands';
import { PNG_COMPRESSION_LEVEL } from './png-level';
import { rootSize, UnsupportedError } from './windows';

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

/** nut.js's capture as a RawImage. */
export function rawImageOf(grabbed: Image): RawImage {
  return {
    width: grabbed.width,
    height: grabbed.height,
    data: grabbed.data,
    channels: grabbed.channels,
    byteWidth: grabbed.byteWidth,
    bgr: grabbed.colorMode !== ColorMode.RGB,
  };
}

export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Copies `crop` (image pixels) out of a BGRA/BGR/RGBA image as tightly packed RGB. The alpha byte is
 * dropped: libnut fills it with 0, so anything that honours alpha shows a blank picture. The usual
 * 4-byte BGRA capture is read and written a word at a time; other layouts go a byte at a time.
 */
export function toRgb(image: RawImage, crop: Rect = { x: 0, y: 0, width: image.width, height: image.height }): Buffer {
  const { channels, byteWidth, data } = image;
  if (channels !== 3 && channels !== 4) throw new Error(`unsupported screenshot with ${channels} channels`);
  if (channels === 4 && image.bgr && LITTLE_ENDIAN && data.byteOffset % 4 === 0 && byteWidth % 4 === 0) {
    return bgraWordsToRgb(cropWords(image, crop), crop.width * crop.height);
  }
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

/** The crop's pixels as consecutive 32-bit words: a view when its rows already follow each other. */
function cropWords(image: RawImage, crop: Rect): Uint32Array {
  const stride = image.byteWidth / 4;
  const source = new Uint32Array(image.data.buffer, image.data.byteOffset, Math.floor(image.data.length / 4));
  const first = crop.y * stride + crop.x;
  if (crop.width === stride || crop.height === 1) return source.subarray(first, first + crop.width * crop.height);
  const words = new Uint32Array(crop.width * crop.height);
  for (let row = 0; row < crop.height; row++) {
    const start = first + row * stride;
    words.set(source.subarray(start, start + crop.width), row * crop.width);
  }
  return words;
}

/**
 * Little-endian B,G,R,A words (0xAARRGGBB) to R,G,B bytes: every 4 pixels become 3 words, written
 * whole; the last 1-3 pixels a byte at a time.
 */
function bgraWordsToRgb(pixels: Uint32Array, count: number): Buffer {
  // Not from the shared pool, so it starts on a word boundary.
  const out = Buffer.allocUnsafeSlow(Math.ceil((count * 3) / 4) * 4);
  const words = new Uint32Array(out.buffer, out.byteOffset, out.length / 4);
  const whole = count - (count % 4);
  let o = 0;
  for (let i = 0; i < whole; i += 4) {
    const a = pixels[i] as number;
    const b = pixels[i + 1] as number;
    const c = pixels[i + 2] as number;
    const d = pixels[i + 3] as number;
    words[o++] = ((a >>> 16) & 0xff) | (a & 0xff00) | ((a & 0xff) << 16) | ((b & 0xff0000) << 8);
    words[o++] = ((b >>> 8) & 0xff) | ((b & 0xff) << 8) | (c & 0xff0000) | ((c & 0xff00) << 16);
    words[o++] = (c & 0xff) | ((d >>> 8) & 0xff00) | ((d & 0xff00) << 8) | ((d & 0xff) << 24);
  }
  for (let i = whole, byte = whole * 3; i < count; i++, byte += 3) {
    const pixel = pixels[i] as number;
    out[byte] = (pixel >>> 16) & 0xff;
    out[byte + 1] = (pixel >>> 8) & 0xff;
    out[byte + 2] = pixel & 0xff;
  }
  return out.subarray(0, count * 3);
}

/** Tightly packed pixels for sharp: 3 (RGB) or 4 bytes each (RGB and a fourth byte that is ignored). */
export interface PackedPixels {
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
}

/** Rows sampled by flatShare: every fourth is plenty to tell a user interface from a photograph. */
const FLAT_SAMPLE_ROW_STEP = 4;

/**
 * The share of pixels (in sampled rows) that have exactly the colour of their left neighbour: about
 * 0.85-0.95 for windows of text and controls, well under 0.5 for photographs and video. Only the three
 * colour bytes count; a fourth byte (alpha or padding) is ignored.
 */
export function flatShare(image: RawImage): number {
  const { same, compared } = flatCounts(image, 0, image.height);
  return compared === 0 ? 1 : same / compared;
}

/** flatShare's tally over rows [fromRow, toRow); rows are sampled where row % FLAT_SAMPLE_ROW_STEP is 0. */
export function flatCounts(image: RawImage, fromRow: number, toRow: number): { same: number; compared: number } {
  const { data, width, channels, byteWidth } = image;
  const words = channels === 4 && LITTLE_ENDIAN && data.byteOffset % 4 === 0 && byteWidth % 4 === 0;
  const pixels = words ? new Uint32Array(data.buffer, data.byteOffset, Math.floor(data.length / 4)) : null;
  let same = 0;
  let compared = 0;
  const first = Math.ceil(fromRow / FLAT_SAMPLE_ROW_STEP) * FLAT_SAMPLE_ROW_STEP;
  for (let row = first; row < toRow; row += FLAT_SAMPLE_ROW_STEP) {
    if (pixels) {
      const start = (row * byteWidth) / 4;
      for (let i = start + 1, end = start + width; i < end; i++) {
        compared++;
        if ((((pixels[i] as number) ^ (pixels[i - 1] as number)) & 0xffffff) === 0) same++;
      }
      continue;
    }
    const start = row * byteWidth;
    for (let i = start + channels, end = start + width * channels; i < end; i += channels) {
      compared++;
      if (data[i] === data[i - channels] && data[i + 1] === data[i + 1 - channels] && data[i + 2] === data[i + 2 - channels]) same++;
    }
  }
  return { same, compared };
}

/**
 * `auto` picks per frame: lossless PNG for user interfaces, where it is usually both smaller and sharper
 * than JPEG (a terminal window: a third of the JPEG's bytes), and JPEG at `quality` for photographic
 * content and for downscaled frames (scaling blends the flat areas PNG thrives on).
 */
export type ScreenshotFormat = 'auto' | 'png' | 'jpeg' | 'webp';

export interface EncodeOptions {
  maxEdge: number;
  format: ScreenshotFormat;
  /** For JPEG and WebP. */
  quality: number;
}

/** At or above this flatShare a frame is a user interface, and `auto` sends PNG. */
export const FLAT_UI_SHARE = 0.6;
/**
 * A PNG above this many bytes per pixel (dense small text, say) is compared with a JPEG of the frame,
 * and the smaller is sent. Typical windows of text and controls stay well under it (a terminal: 0.09).
 */
const PNG_BYTES_PER_PIXEL_CHECK = 0.2;

const MIME = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;

export interface EncodedImage {
  data: Buffer;
  width: number;
  height: number;
  mimeType: (typeof MIME)[keyof typeof MIME];
}

export async function encodeRgb(rgb: Buffer, width: number, height: number, options: EncodeOptions): Promise<EncodedImage> {
  return encodePixels({ data: rgb, width, height, channels: 3 }, options);
}

/** `flat` gives the frame's flatShare; it is called only when `auto` needs it. */
export async function encodePixels(
  pixels: PackedPixels,
  options: EncodeOptions,
  flat: () => number = () => flatShare({ ...pixels, byteWidth: pixels.width * pixels.channels, bgr: false }),
): Promise<EncodedImage> {
  return encodeFrame({ width: pixels.width, height: pixels.height, pixels: () => pixels, flat }, options);
}

/** A frame to encode; each view of it is asked for only when the chosen encoding needs it. */
export interface Frame {
  width: number;
  height: number;
  /** Packed pixels for sharp (lossy or scaled encodings). */
  pixels(): PackedPixels;
  /** The frame's flatShare. */
  flat(): number;
  /** Its lossless PNG at full size, when the caller has a better encoder than sharp's for it. */
  png?(): Buffer;
}

export async function encodeFrame(frame: Frame, options: EncodeOptions): Promise<EncodedImage> {
  const { width, height } = frame;
  const target = fitLongEdge(width, height, options.maxEdge);
  const scaled = target.width !== width || target.height !== height;
  let packed: PackedPixels | null = null;
  const pipeline = (): Sharp => {
    packed ??= frame.pixels();
    let result = sharp(packed.data, { raw: { width, height, channels: packed.channels } });
    if (packed.channels === 4) result = result.removeAlpha();
    if (scaled) result = result.resize(target.width, target.height, { fit: 'fill' });
    return result;
  };
  const encode = async (format: Exclude<ScreenshotFormat, 'auto'>): Promise<EncodedImage> => {
    if (format === 'png' && !scaled && frame.png) return { data: frame.png(), ...target, mimeType: MIME.png };
    const image = pipeline();
    const encoded =
      format === 'png'
        ? image.png({ compressionLevel: PNG_COMPRESSION_LEVEL })
        : format === 'webp'
          ? image.webp({ quality: options.quality })
          : // Huffman tables optimised per image cost a second pass (about twice the time) for ~4 % fewer bytes.
            image.jpeg({ quality: options.quality, optimiseCoding: false });
    return { data: await encoded.toBuffer(), ...target, mimeType: MIME[format] };
  };
  if (options.format !== 'auto') return encode(options.format);
  if (scaled) return encode('jpeg');
  if (frame.flat() < FLAT_UI_SHARE) return encode('jpeg');
  const png = await encode('png');
  if (png.data.length <= target.width * target.height * PNG_BYTES_PER_PIXEL_CHECK) return png;
  const jpeg = await encode('jpeg');
  return jpeg.data.length < png.data.length ? jpeg : png;
}

/**
 * Logical screen size (the coordinate space of mouse input) as nut.js sees it: on X11 the size the
 * screen had when this process connected, which is also what its captures assume.
 */
export async function screenSize(): Promise<{ width: number; height: number }> {
  const [width, height] = await Promise.all([screen.width(), screen.height()]);
  return { width, height };
}

/** Logical screen size now: asked of the X server on X11 (one round trip), nut.js's elsewhere. */
export async function liveScreenSize(): Promise<{ width: number; height: number }> {
  try {
    return await rootSize();
  } catch (error) {
    if (error instanceof UnsupportedError) return screenSize();
    throw error;
  }
}

/**
 * Captures the main screen, or the part of it inside `region` (logical coordinates), and encodes it.
 * `pngEncoders` keeps a banded PNG encoder per captured area, so a PNG re-compresses only what changed
 * since the last capture of the same area.
 */
/** The colour hidden areas are painted: a flat mid grey, which costs the encoders next to nothing. */
const HIDDEN_GREY = 0x80;

/** Paints `areas` (logical screen rectangles) of a capture of `region` flat grey, in place. */
export function paintHidden(image: RawImage, region: Rect, areas: readonly Rect[]): void {
  // A HiDPI capture has more pixels than the region has logical ones.
  const sx = image.width / region.width;
  const sy = image.height / region.height;
  for (const area of areas) {
    const part = intersect(area, region);
    if (!part) continue;
    const left = Math.max(0, Math.floor((part.x - region.x) * sx));
    const right = Math.min(image.width, Math.ceil((part.x + part.width - region.x) * sx));
    const top = Math.max(0, Math.floor((part.y - region.y) * sy));
    const bottom = Math.min(image.height, Math.ceil((part.y + part.height - region.y) * sy));
    for (let row = top; row < bottom; row++) {
      const start = row * image.byteWidth;
      image.data.fill(HIDDEN_GREY, start + left * image.channels, start + right * image.channels);
    }
  }
}

/**
 * Grabs `region` (the whole screen when null) and encodes it. `hide` (logical screen rectangles) is
 * painted grey first: what shows of Deskhand's own windows never reaches the model.
 */
export async function captureScreenshot(
  region: Rect | null,
  options: EncodeOptions,
  pngEncoders?: BandedPngEncoders,
  hide: readonly Rect[] = [],
): Promise<Screenshot> {
  const started = performance.now();
  const logical = capturedArea(region, await screenSize());
  if (!logical) throw new Error('the requested area is entirely off screen');
  // Only the wanted area is read from the screen; on HiDPI screens it comes back in device pixels.
  const grabbed = region
    ? await screen.grabRegion(new Region(logical.x, logical.y, logical.width, logical.height))
    : await screen.grab();
  const captureMs = performance.now() - started;

  const encodeStart = performance.now();
  const raw = rawImageOf(grabbed);
  paintHidden(raw, logical, hide);
  const lossless = options.format === 'auto' || options.format === 'png';
  const fullSize = fitLongEdge(raw.width, raw.height, options.maxEdge).width === raw.width;
  // The banded encoder compares the capture with the last one of this area, band by band, and keeps
  // each band's flatness as well as its compressed bytes.
  const look = lossless && fullSize ? pngEncoders?.for(`${logical.x},${logical.y},${logical.width},${logical.height}`).look(raw) : undefined;
  const encoded = await encodeFrame(
    {
      width: raw.width,
      height: raw.height,
      pixels: () => ({ data: toRgb(raw), width: raw.width, height: raw.height, channels: 3 }),
      // The capture is scanned rather than a packed copy: it can be read a word at a time.
      flat: () => look?.flatShare ?? flatShare(raw),
      ...(look ? { png: () => look.png().data } : {}),
    },
    options,
  );
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
