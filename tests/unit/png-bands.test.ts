import { crc32, inflateSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { adler32, adler32Combine, BAND_ROWS, BandedPngEncoder, BandedPngEncoders } from '../../src-main/device/png-bands';
import { flatShare, toRgb, type RawImage } from '../../src-main/device/screen';

/** The textbook adler32, a byte at a time with a reduction after every byte. */
function referenceAdler32(bytes: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (const byte of bytes) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

function noise(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  let state = seed;
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    out[i] = state >>> 24;
  }
  return out;
}

/** A BGRA capture in its own (word-aligned) memory: flat areas and a few "glyphs", like a window of text. */
function capture(width: number, height: number, options: { padding?: number; seed?: number } = {}): RawImage {
  const byteWidth = width * 4 + (options.padding ?? 0);
  const data = Buffer.from(new ArrayBuffer(byteWidth * height));
  const dots = noise(width * height, options.seed ?? 1);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = y * byteWidth + x * 4;
      const glyph = (dots[y * width + x] as number) > 230;
      data[at] = glyph ? 20 : 240;
      data[at + 1] = glyph ? 30 : y < 20 ? 120 : 240;
      data[at + 2] = glyph ? 40 : 235;
    }
  }
  return { width, height, data, channels: 4, byteWidth, bgr: true };
}

interface Chunk {
  type: string;
  body: Buffer;
}

/** Splits a PNG into chunks, checking the signature and every chunk's CRC. */
function chunksOf(png: Buffer): Chunk[] {
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const chunks: Chunk[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const body = png.subarray(at + 8, at + 8 + length);
    expect(png.readUInt32BE(at + 8 + length), `CRC of ${type}`).toBe(crc32(png.subarray(at + 4, at + 8 + length)));
    chunks.push({ type, body });
    at += 12 + length;
  }
  return chunks;
}

/** Checks the PNG strictly (Node's zlib verifies the adler32) and decodes it independently (libvips). */
async function expectExactPng(png: Buffer, image: RawImage): Promise<void> {
  const chunks = chunksOf(png);
  expect(chunks.map((chunk) => chunk.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
  const header = chunks[0]?.body as Buffer;
  expect([header.readUInt32BE(0), header.readUInt32BE(4), ...header.subarray(8)]).toEqual([image.width, image.height, 8, 2, 0, 0, 0]);
  const scanlines = inflateSync(chunks[1]?.body as Buffer);
  const rgb = toRgb(image);
  const rowBytes = image.width * 3;
  expect(scanlines.length).toBe((rowBytes + 1) * image.height);
  for (let row = 0; row < image.height; row++) {
    expect(scanlines[row * (rowBytes + 1)], 'filter type').toBe(0);
  }
  const decoded = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  expect(decoded.info).toMatchObject({ width: image.width, height: image.height, channels: 3 });
  expect(decoded.data.equals(rgb)).toBe(true);
}

describe('adler32', () => {
  it('matches known values and the textbook definition at every alignment and length', () => {
    expect(adler32(Buffer.from('Wikipedia')).toString(16)).toBe('11e60398');
    expect(adler32(Buffer.alloc(0))).toBe(1);
    const bytes = noise(20_011, 7);
    for (const offset of [0, 1, 2, 3]) {
      for (const length of [0, 1, 3, 4, 5, 4095, 4096, 4097, 5552, 5553, 20_000]) {
        const piece = bytes.subarray(offset, offset + length);
        expect(adler32(piece), `offset ${offset}, length ${length}`).toBe(referenceAdler32(piece));
      }
    }
    // All 0xff is the worst case for the sums between reductions.
    const worst = Buffer.alloc(1_000_003, 0xff);
    expect(adler32(worst)).toBe(referenceAdler32(worst));
  });

  it('combines the checksums of two pieces into the checksum of both', () => {
    const bytes = noise(70_000, 3);
    for (const split of [0, 1, 65_520, 65_521, 65_522, 69_999, 70_000]) {
      const combined = adler32Combine(adler32(bytes.subarray(0, split)), adler32(bytes.subarray(split)), bytes.length - split);
      expect(combined, `split at ${split}`).toBe(referenceAdler32(bytes));
    }
  });
});

describe('BandedPngEncoder', () => {
  it('writes a valid RGB PNG that decodes to the capture exactly, whatever its size or row padding', async () => {
    const sizes: Array<[number, number, number]> = [
      [1, 1, 0],
      [3, BAND_ROWS - 1, 0],
      [33, BAND_ROWS, 4],
      [64, BAND_ROWS + 1, 0],
      [97, 3 * BAND_ROWS + 7, 12],
      [630, 796, 0],
    ];
    for (const [width, height, padding] of sizes) {
      await expectExactPng(new BandedPngEncoder().encode(capture(width, height, { padding })).data, capture(width, height, { padding }));
    }
  });

  it('also takes 3-byte RGB and unaligned captures', async () => {
    const rgb: RawImage = { width: 5, height: 40, data: noise(5 * 40 * 3, 9), channels: 3, byteWidth: 15, bgr: false };
    await expectExactPng(new BandedPngEncoder().encode(rgb).data, rgb);
    const aligned = capture(7, 9);
    const shifted = Buffer.from(new Uint8Array([0, ...aligned.data]).buffer, 1, aligned.data.length);
    await expectExactPng(new BandedPngEncoder().encode({ ...aligned, data: shifted }).data, aligned);
  });

  it('compresses again only the bands that changed, and the result is still exact', async () => {
    const encoder = new BandedPngEncoder();
    const first = capture(200, 5 * BAND_ROWS);
    expect(encoder.encode(first)).toMatchObject({ encodedBands: 5, bands: 5 });

    // A new capture (new memory) with two pixels changed, in bands 1 and 3.
    const second = { ...first, data: Buffer.from(first.data) };
    second.data[(BAND_ROWS + 2) * second.byteWidth + 40] = 0;
    second.data[(3 * BAND_ROWS + 31) * second.byteWidth + 797] = 0;
    const changed = encoder.encode(second);
    expect(changed).toMatchObject({ encodedBands: 2, bands: 5 });
    await expectExactPng(changed.data, second);

    const again = encoder.encode({ ...second, data: Buffer.from(second.data) });
    expect(again.encodedBands).toBe(0);
    expect(again.data.equals(changed.data)).toBe(true);
  });

  it('notices a change made in the very memory it encoded before (it keeps its own copy)', async () => {
    const encoder = new BandedPngEncoder();
    const image = capture(64, 2 * BAND_ROWS);
    encoder.encode(image);
    image.data.writeUInt8(0xff - (image.data[5 * image.byteWidth + 8] as number), 5 * image.byteWidth + 8);
    const changed = encoder.encode(image);
    expect(changed.encodedBands).toBe(1);
    await expectExactPng(changed.data, image);
  });

  it('starts afresh when the size changes', async () => {
    const encoder = new BandedPngEncoder();
    encoder.encode(capture(64, 64));
    const other = capture(65, 64);
    const result = encoder.encode(other);
    expect(result).toMatchObject({ encodedBands: 2, bands: 2 });
    await expectExactPng(result.data, other);
  });

  it('tells the frame\'s flatness band by band, exactly as flatShare does, and compresses only when asked', async () => {
    const encoder = new BandedPngEncoder();
    const first = capture(120, 3 * BAND_ROWS + 5, { padding: 8 });
    const look = encoder.look(first);
    expect(look.flatShare).toBe(flatShare(first));

    // The next capture: its bands are compared with the first's, none of which was compressed yet.
    const second = { ...first, data: Buffer.from(first.data) };
    second.data.fill(0, (2 * BAND_ROWS + 4) * second.byteWidth, (2 * BAND_ROWS + 5) * second.byteWidth); // a sampled row
    const next = encoder.look(second);
    expect(next.flatShare).toBe(flatShare(second));
    expect(next.flatShare).not.toBe(look.flatShare);
    const png = next.png();
    expect(png).toMatchObject({ encodedBands: 4, bands: 4 });
    await expectExactPng(png.data, second);
    expect(encoder.look({ ...second, data: Buffer.from(second.data) }).png().encodedBands).toBe(0);
  });

  it('keeps one encoder per area, the most recently used few', () => {
    const encoders = new BandedPngEncoders(2);
    const desktop = encoders.for('0,0,1280,800');
    expect(encoders.for('0,0,1280,800')).toBe(desktop);
    const window = encoders.for('10,10,300,200');
    encoders.for('0,0,1280,800');
    encoders.for('50,50,100,100');
    expect(encoders.for('0,0,1280,800')).toBe(desktop);
    expect(encoders.for('10,10,300,200'), 'the least recently used was dropped').not.toBe(window);
  });
});

describe('BandedPngEncoder.refine', () => {
  it('compresses the bands that stayed the same again, better, and the PNG still decodes to the capture exactly', async () => {
    const encoder = new BandedPngEncoder();
    const first = capture(300, 4 * BAND_ROWS);
    const fast = encoder.encode(first);
    // Nothing is refined before a band has been seen unchanged in a second frame.
    expect(await encoder.refine()).toBe(0);

    const second = { ...first, data: Buffer.from(first.data) };
    second.data[(2 * BAND_ROWS + 5) * second.byteWidth + 40] = 0; // band 2 changes
    encoder.encode(second);
    expect(await encoder.refine()).toBe(3);
    const refined = encoder.encode({ ...second, data: Buffer.from(second.data) });
    expect(refined.encodedBands).toBe(0);
    expect(refined.data.length).toBeLessThan(fast.data.length);
    await expectExactPng(refined.data, second);
    // Done once: the refined bands are not compressed again, and band 2 now qualifies.
    expect(await encoder.refine()).toBe(1);
    expect(await encoder.refine()).toBe(0);
  });

  it('skips a band that changed while it worked, and stops when asked', async () => {
    const encoder = new BandedPngEncoder();
    const image = capture(300, 6 * BAND_ROWS);
    encoder.encode(image);
    encoder.encode({ ...image, data: Buffer.from(image.data) });
    let asked = 0;
    // Stops before the third band: two refined.
    expect(await encoder.refine(() => ++asked > 2)).toBe(2);

    const refining = encoder.refine();
    // A new frame arrives while the rest are being compressed: its changed band 5 is new and not refined.
    const changed = { ...image, data: Buffer.from(image.data) };
    changed.data[(5 * BAND_ROWS + 1) * changed.byteWidth + 8] = 0;
    const during = encoder.encode(changed);
    await expectExactPng(during.data, changed);
    expect(await refining).toBeLessThanOrEqual(4);
    await expectExactPng(encoder.encode({ ...changed, data: Buffer.from(changed.data) }).data, changed);
  });

  it('refines every kept area; a call while one runs shares it', async () => {
    const encoders = new BandedPngEncoders();
    for (const area of ['desktop', 'window']) {
      const image = capture(120, 2 * BAND_ROWS, { seed: area.length });
      encoders.for(area).encode(image);
      encoders.for(area).encode({ ...image, data: Buffer.from(image.data) });
    }
    expect(await Promise.all([encoders.refine(), encoders.refine()])).toEqual([4, 4]);
    expect(await encoders.refine()).toBe(0);
  });
});
