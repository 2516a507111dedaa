import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { encodePixels, FLAT_UI_SHARE, flatShare, paintHidden, type PackedPixels, type RawImage } from '../../src-main/device/screen';

const WIDTH = 320;
const HEIGHT = 200;

/** Deterministic pseudo-random bytes (a linear congruential generator), so failures reproduce. */
function randomBytes(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state >>> 24;
  };
}

function image(pixel: (x: number, y: number) => [number, number, number]): PackedPixels {
  const data = Buffer.alloc(WIDTH * HEIGHT * 3);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) data.set(pixel(x, y), (y * WIDTH + x) * 3);
  }
  return { data, width: WIDTH, height: HEIGHT, channels: 3 };
}

/** A window: a title bar, a white page and lines of dark "glyphs" (short runs of 1-3 pixels). */
function userInterface(): PackedPixels {
  const noise = randomBytes(7);
  const glyphs = Array.from({ length: WIDTH * HEIGHT }, () => noise() < 60);
  return image((x, y) => {
    if (y < 20) return [30, 80, 140];
    const inLine = y % 14 >= 4 && y % 14 < 12 && x > 8 && x < WIDTH - 8;
    return inLine && glyphs[y * WIDTH + x] ? [20, 20, 20] : [255, 255, 255];
  });
}

/** A photograph: smooth gradients with sensor noise, so neighbours almost never match exactly. */
function photograph(): PackedPixels {
  const noise = randomBytes(11);
  return image((x, y) => [(x + (noise() & 7)) & 0xff, (y + (noise() & 7)) & 0xff, ((x + y) / 2 + (noise() & 7)) & 0xff]);
}

const asRaw = (pixels: PackedPixels) => ({ ...pixels, byteWidth: pixels.width * pixels.channels, bgr: false });

describe('flatShare', () => {
  it('tells a user interface from a photograph', () => {
    expect(flatShare(asRaw(userInterface()))).toBeGreaterThan(0.8);
    expect(flatShare(asRaw(photograph()))).toBeLessThan(0.1);
  });

  it('compares only the colour bytes of 4-byte pixels, read a word at a time or byte by byte', () => {
    // Two rows of four BGRA pixels: colours repeat, the fourth byte never does.
    const bytes = [1, 2, 3, 9, 1, 2, 3, 8, 1, 2, 3, 7, 5, 5, 5, 6, 1, 2, 3, 9, 1, 2, 3, 8, 1, 2, 3, 7, 5, 5, 5, 6];
    const aligned = Buffer.from(new Uint8Array(bytes).buffer);
    const unaligned = Buffer.from(new Uint8Array([0, ...bytes]).buffer, 1, bytes.length);
    for (const data of [aligned, unaligned]) {
      expect(flatShare({ width: 4, height: 2, data, channels: 4, byteWidth: 16, bgr: true })).toBeCloseTo(2 / 3);
    }
  });
});

describe('encodePixels', () => {
  const options = { maxEdge: 1280, quality: 70 } as const;

  it('auto sends a user interface as lossless PNG, smaller than the JPEG of it', async () => {
    const ui = userInterface();
    expect(flatShare(asRaw(ui))).toBeGreaterThanOrEqual(FLAT_UI_SHARE);
    const auto = await encodePixels(ui, { ...options, format: 'auto' });
    const jpeg = await encodePixels(ui, { ...options, format: 'jpeg' });
    expect(auto.mimeType).toBe('image/png');
    expect(auto.data.length).toBeLessThan(jpeg.data.length);
    const decoded = await sharp(auto.data).raw().toBuffer();
    expect(decoded.equals(ui.data), 'PNG keeps every pixel').toBe(true);
  });

  it('auto sends a photograph as JPEG', async () => {
    const auto = await encodePixels(photograph(), { ...options, format: 'auto' });
    expect(auto.mimeType).toBe('image/jpeg');
    expect((await sharp(auto.data).metadata()).format).toBe('jpeg');
  });

  it('auto keeps the smaller of PNG and JPEG when a flat-looking frame compresses badly', async () => {
    // Runs of three identical pixels (flatShare 2/3) of random colours: PNG cannot shrink it much.
    const noise = randomBytes(3);
    const runs: Array<[number, number, number]> = Array.from({ length: Math.ceil((WIDTH * HEIGHT) / 3) }, () => [noise(), noise(), noise()]);
    const busy = image((x, y) => runs[Math.floor((y * WIDTH + x) / 3)] as [number, number, number]);
    expect(flatShare(asRaw(busy))).toBeGreaterThanOrEqual(FLAT_UI_SHARE);
    const [auto, png, jpeg] = await Promise.all(
      (['auto', 'png', 'jpeg'] as const).map((format) => encodePixels(busy, { ...options, format })),
    );
    expect(png?.data.length, 'the PNG is over the size that triggers the comparison').toBeGreaterThan(WIDTH * HEIGHT * 0.2);
    expect(auto?.data.length).toBe(Math.min(png?.data.length ?? 0, jpeg?.data.length ?? 0));
  });

  it('auto sends JPEG when the frame is scaled down: scaling blends away the flat areas PNG needs', async () => {
    const ui = userInterface();
    const scaled = await encodePixels(ui, { quality: 70, maxEdge: 200, format: 'auto' });
    expect(scaled).toMatchObject({ mimeType: 'image/jpeg', width: 200, height: 125 });
    expect((await encodePixels(ui, { quality: 70, maxEdge: WIDTH, format: 'auto' })).mimeType).toBe('image/png');
  });

  it('honours a fixed format and the long-edge limit', async () => {
    const ui = userInterface();
    for (const [format, mimeType] of [['png', 'image/png'], ['jpeg', 'image/jpeg'], ['webp', 'image/webp']] as const) {
      const encoded = await encodePixels(ui, { quality: 70, maxEdge: 160, format });
      expect(encoded).toMatchObject({ mimeType, width: 160, height: 100 });
      expect(await sharp(encoded.data).metadata()).toMatchObject({ width: 160, height: 100 });
    }
  });
});

describe('paintHidden', () => {
  /** A BGRA capture of `width` x `height` pixels, every byte 7. */
  const capture = (width: number, height: number): RawImage => ({
    width,
    height,
    data: Buffer.alloc(width * height * 4, 7),
    channels: 4,
    byteWidth: width * 4,
    bgr: true,
  });
  const greyPixels = (image: RawImage): string[] => {
    const found: string[] = [];
    for (let y = 0; y < image.height; y++) {
      for (let x = 0; x < image.width; x++) {
        if (image.data[y * image.byteWidth + x * 4] === 0x80) found.push(`${x},${y}`);
      }
    }
    return found;
  };

  it('paints the areas, clipped to the captured region, in image pixels', () => {
    const image = capture(10, 10);
    // The capture covers the screen from (100, 50); one area reaches past its left edge.
    paintHidden(image, { x: 100, y: 50, width: 10, height: 10 }, [{ x: 95, y: 58, width: 7, height: 5 }, { x: 0, y: 0, width: 50, height: 50 }]);
    expect(greyPixels(image)).toEqual(['0,8', '1,8', '0,9', '1,9']);
    // All four bytes of a painted pixel, and nothing past it.
    expect([...image.data.subarray(8 * 40, 8 * 40 + 12)]).toEqual([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 7, 7, 7, 7]);
  });

  it('scales logical areas to the device pixels of a HiDPI capture', () => {
    const image = capture(8, 8); // a 4x4 logical region at scale 2
    paintHidden(image, { x: 0, y: 0, width: 4, height: 4 }, [{ x: 3, y: 0, width: 1, height: 1 }]);
    expect(greyPixels(image)).toEqual(['6,0', '7,0', '6,1', '7,1']);
  });
});
