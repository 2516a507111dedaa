import { promisify } from 'node:util';
import { constants, crc32, deflateRaw, deflateRawSync } from 'node:zlib';
import { PNG_COMPRESSION_LEVEL } from './png-level';
import { flatCounts, LITTLE_ENDIAN, toRgb, type RawImage } from './screen';

/**
 * A PNG encoder for successive screenshots of the same area. The image is cut into bands of rows, and
 * each band is compressed on its own (a raw deflate ended by a sync flush, so bands join into one
 * zlib stream). A band whose captured bytes are the same as in the previous frame keeps its compressed
 * bytes. Between two steps an agent usually changes a small part of the screen, so most of a frame
 * costs a memory comparison instead of compressing again. The output is an ordinary 8-bit RGB PNG,
 * decoded pixel for pixel like any other.
 */

/** 32 rows: bands small enough to skip most of a frame, large enough to compress well on their own. */
export const BAND_ROWS = 32;
/**
 * zlib's best level, for bands compressed again while the device is idle (the model is thinking): on
 * windows of text it halves what the fast level gives, at some 30 times its cost, paid off the step.
 */
export const REFINED_LEVEL = 9;
const deflateRawAsync = promisify(deflateRaw);
const ADLER_MOD = 65521;
const ADLER_WORDS_PER_REDUCTION = 1024;

interface Band {
  /** A copy of the band's captured bytes, as grabbed: compared with the next frame's, and encoded from. */
  source: Buffer;
  rows: number;
  /** flatShare's tally for the band's rows. */
  flat: { same: number; compared: number };
  /** Filled when a PNG of the frame is first asked for. */
  deflated: Buffer | null;
  /** The zlib level `deflated` was made at. */
  level: number;
  /** Seen unchanged in two frames in a row: worth compressing again, better, while idle. */
  stable: boolean;
  adler: number;
  /** Bytes of filtered scanlines the band holds (for combining checksums). */
  length: number;
}

interface Frame {
  width: number;
  height: number;
  byteWidth: number;
  channels: number;
  bgr: boolean;
  bands: Band[];
}

/** A capture compared with the last one, band by band: its flatness now, its PNG when asked for. */
export interface BandedLook {
  flatShare: number;
  png(): BandedPng;
}

export interface BandedPng {
  data: Buffer;
  /** Bands compressed for this frame, and how many there are: the share of the work done. */
  encodedBands: number;
  bands: number;
}

/**
 * zlib's adler32, read 4 bytes at a time where the memory allows it. The sums are exact in doubles far
 * beyond the 32-bit bound zlib reduces at, so they are reduced once per 4 KB.
 */
export function adler32(bytes: Uint8Array): number {
  let a = 1;
  let b = 0;
  let i = 0;
  const add = (byte: number): void => {
    a += byte;
    b += a;
  };
  while (i < bytes.length && (bytes.byteOffset + i) % 4 !== 0) add(bytes[i++] as number);
  const wordAligned = LITTLE_ENDIAN && (bytes.byteOffset + i) % 4 === 0;
  const words = wordAligned ? new Uint32Array(bytes.buffer, bytes.byteOffset + i, (bytes.length - i) >>> 2) : new Uint32Array(0);
  for (let w = 0; w < words.length; ) {
    const end = Math.min(words.length, w + ADLER_WORDS_PER_REDUCTION);
    for (; w < end; w++) {
      const word = words[w] as number; // little-endian: the first byte is the lowest
      const x0 = word & 0xff;
      const x1 = (word >>> 8) & 0xff;
      const x2 = (word >>> 16) & 0xff;
      const x3 = word >>> 24;
      b += 4 * a + 4 * x0 + 3 * x1 + 2 * x2 + x3;
      a += x0 + x1 + x2 + x3;
    }
    a %= ADLER_MOD;
    b %= ADLER_MOD;
  }
  for (i += words.length * 4; i < bytes.length; i++) {
    add(bytes[i] as number);
    if (i % 4096 === 4095) {
      a %= ADLER_MOD;
      b %= ADLER_MOD;
    }
  }
  return (((b % ADLER_MOD) << 16) | (a % ADLER_MOD)) >>> 0;
}

/** The adler32 of two pieces joined, from each piece's adler32 and the second one's length (zlib's adler32_combine). */
export function adler32Combine(first: number, second: number, secondLength: number): number {
  const rem = secondLength % ADLER_MOD;
  let a = first & 0xffff;
  let b = (rem * a) % ADLER_MOD;
  a += (second & 0xffff) + ADLER_MOD - 1;
  b += (first >>> 16) + (second >>> 16) + ADLER_MOD - rem;
  if (a >= ADLER_MOD) a -= ADLER_MOD;
  if (a >= ADLER_MOD) a -= ADLER_MOD;
  if (b >= ADLER_MOD * 2) b -= ADLER_MOD * 2;
  if (b >= ADLER_MOD) b -= ADLER_MOD;
  return ((b << 16) | a) >>> 0;
}

/** The band's PNG scanlines: RGB rows, each after its filter type. */
function scanlinesOf(frame: Frame, band: Band): Buffer {
  const { width, channels, byteWidth, bgr } = frame;
  const rgb = toRgb({ width, height: band.rows, data: band.source, channels, byteWidth, bgr });
  const rowBytes = frame.width * 3;
  // Every scanline starts with its filter type: 0, none (the best of the five for flat screens at low levels).
  const scanlines = Buffer.allocUnsafe((rowBytes + 1) * band.rows);
  for (let row = 0; row < band.rows; row++) {
    const at = row * (rowBytes + 1);
    scanlines[at] = 0;
    rgb.copy(scanlines, at + 1, row * rowBytes, (row + 1) * rowBytes);
  }
  return scanlines;
}

function compressBand(frame: Frame, band: Band): void {
  const scanlines = scanlinesOf(frame, band);
  band.deflated = deflateRawSync(scanlines, { level: PNG_COMPRESSION_LEVEL, finishFlush: constants.Z_SYNC_FLUSH });
  band.level = PNG_COMPRESSION_LEVEL;
  band.adler = adler32(scanlines);
  band.length = scanlines.length;
}

function chunk(type: 'IHDR' | 'IDAT' | 'IEND', body: Buffer): Buffer {
  const out = Buffer.allocUnsafe(12 + body.length);
  out.writeUInt32BE(body.length, 0);
  out.write(type, 4, 'latin1');
  body.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + body.length)), 8 + body.length);
  return out;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** zlib header: deflate with a 32 KB window, "fastest" level hint; 0x7801 is a multiple of 31. */
const ZLIB_HEADER = Buffer.from([0x78, 0x01]);
/** An empty final block with fixed codes: ends the deflate stream after the bands' sync flushes. */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

function assemble(frame: Frame): Buffer {
  let adler = 1;
  const deflated: Buffer[] = [];
  for (const band of frame.bands) {
    if (!band.deflated) throw new Error('a band was not compressed');
    adler = adler32Combine(adler, band.adler, band.length);
    deflated.push(band.deflated);
  }
  const trailer = Buffer.allocUnsafe(4);
  trailer.writeUInt32BE(adler, 0);
  const idat = Buffer.concat([ZLIB_HEADER, ...deflated, FINAL_BLOCK, trailer]);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(frame.width, 0);
  header.writeUInt32BE(frame.height, 4);
  header[8] = 8; // bits per channel
  header[9] = 2; // truecolour: RGB
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/** One area's encoder: keeps the last frame's bands. */
export class BandedPngEncoder {
  private last: Frame | null = null;
  private refining: Promise<number> | null = null;

  /** Compares `image` with the last frame, keeping the bands that did not change; compresses nothing yet. */
  look(image: RawImage): BandedLook {
    const { width, height, byteWidth, channels, bgr, data } = image;
    const last = this.last;
    const comparable =
      last && last.width === width && last.height === height && last.byteWidth === byteWidth && last.channels === channels && last.bgr === bgr;
    const bands: Band[] = [];
    let same = 0;
    let compared = 0;
    for (let y = 0, index = 0; y < height; y += BAND_ROWS, index++) {
      const rows = Math.min(BAND_ROWS, height - y);
      const source = data.subarray(y * byteWidth, (y + rows) * byteWidth);
      const before = comparable ? last.bands[index] : undefined;
      const unchanged = before?.source.equals(source) ? before : undefined;
      if (unchanged) unchanged.stable = true;
      const band = unchanged ?? {
        source: Buffer.from(source),
        rows,
        flat: flatCounts(image, y, y + rows),
        deflated: null,
        level: 0,
        stable: false,
        adler: 1,
        length: 0,
      };
      same += band.flat.same;
      compared += band.flat.compared;
      bands.push(band);
    }
    const frame: Frame = { width, height, byteWidth, channels, bgr, bands };
    this.last = frame;
    return {
      flatShare: compared === 0 ? 1 : same / compared,
      png: () => {
        let encodedBands = 0;
        for (const band of frame.bands) {
          if (band.deflated) continue;
          compressBand(frame, band);
          encodedBands++;
        }
        return { data: assemble(frame), encodedBands, bands: frame.bands.length };
      },
    };
  }

  encode(image: RawImage): BandedPng {
    return this.look(image).png();
  }

  /**
   * Compresses again at REFINED_LEVEL, one band at a time on libuv's thread pool, the bands of the last
   * frame that were also in the frame before: the next PNG of this area takes their smaller bytes
   * (the same pixels: each band is a deflate stream of its own). A band that changes meanwhile is
   * skipped, and it stops before the next band once `stop` says so. Resolves with how many bands it
   * compressed; one call at a time.
   */
  refine(stop: () => boolean = () => false): Promise<number> {
    this.refining ??= this.refineBands(stop).finally(() => (this.refining = null));
    return this.refining;
  }

  private async refineBands(stop: () => boolean): Promise<number> {
    const frame = this.last;
    if (!frame) return 0;
    let refined = 0;
    for (const band of frame.bands) {
      if (stop()) break;
      if (!band.stable || band.deflated === null || band.level >= REFINED_LEVEL || !this.last?.bands.includes(band)) continue;
      const better = await deflateRawAsync(scanlinesOf(frame, band), { level: REFINED_LEVEL, finishFlush: constants.Z_SYNC_FLUSH });
      if (better.length < band.deflated.length) band.deflated = better;
      band.level = REFINED_LEVEL;
      refined++;
    }
    return refined;
  }
}

/**
 * An encoder per captured area, the two most recently used by default: the host's desktop and the
 * window an AppAgent works in. Each keeps a copy of its last capture (4 MB for 1280x800, 33 MB at 4K).
 */
export class BandedPngEncoders {
  private readonly encoders = new Map<string, BandedPngEncoder>();

  constructor(private readonly keep = 2) {}

  /** Refines every area's last frame (see BandedPngEncoder.refine); resolves with the bands compressed. */
  async refine(stop: () => boolean = () => false): Promise<number> {
    let refined = 0;
    for (const encoder of [...this.encoders.values()]) refined += await encoder.refine(stop);
    return refined;
  }

  for(area: string): BandedPngEncoder {
    const encoder = this.encoders.get(area) ?? new BandedPngEncoder();
    this.encoders.delete(area);
    this.encoders.set(area, encoder);
    for (const oldest of this.encoders.keys()) {
      if (this.encoders.size <= this.keep) break;
      this.encoders.delete(oldest);
    }
    return encoder;
  }
}
