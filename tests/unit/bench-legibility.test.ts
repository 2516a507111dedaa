// The measures the bench's image comparisons rest on: words kept in order, and colours lost.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { coloursLost, wordsKept } from '../support/ocr-words';

describe('wordsKept', () => {
  it('counts the reference words read back in the same order', () => {
    const reference = ['Quarterly', 'report', 'failed', 'done', '1037'];
    expect(wordsKept(reference, reference)).toBe(1);
    expect(wordsKept(reference, ['Quarterly', 'rep0rt', 'failed', 'done', '1037'])).toBe(0.8);
    // Words read out of order count once, in the longest run that keeps the order.
    expect(wordsKept(reference, ['done', '1037', 'Quarterly', 'report'])).toBe(0.4);
    expect(wordsKept(reference, [])).toBe(0);
    expect(wordsKept([], ['anything'])).toBe(1);
  });
});

describe('coloursLost', () => {
  const size = { width: 40, height: 20 };
  /** A grey frame with a red block (200 pixels) and a blue dot (4 pixels). */
  function frame(red: [number, number, number], dot: [number, number, number] = [0, 0, 255]): Promise<Buffer> {
    const rgb = Buffer.alloc(size.width * size.height * 3, 0x80);
    const paint = (x: number, y: number, colour: readonly number[]): void => {
      rgb.set(colour, (y * size.width + x) * 3);
    };
    for (let y = 0; y < 10; y++) for (let x = 0; x < 20; x++) paint(x, y, red);
    for (let y = 15; y < 17; y++) for (let x = 30; x < 32; x++) paint(x, y, dot);
    return sharp(rgb, { raw: { ...size, channels: 3 } }).png().toBuffer();
  }

  it('finds a colour mapped to another, and ignores marks too small to matter', async () => {
    const original = await frame([200, 30, 30]);
    expect(await coloursLost(original, original, size)).toBe(0);
    expect(await coloursLost(original, await frame([205, 35, 28]), size)).toBe(0);
    // The red block comes back grey: one colour lost (the 4-pixel dot is below the 40-pixel floor).
    expect(await coloursLost(original, await frame([128, 128, 128]), size)).toBe(1);
    // The blue dot comes back grey: too small to count, unless the floor is lowered to its 4 pixels.
    const dotLost = await frame([200, 30, 30], [128, 128, 128]);
    expect(await coloursLost(original, dotLost, size)).toBe(0);
    expect(await coloursLost(original, dotLost, size, 4)).toBe(1);
  });

  it('compares a downscaled image at the frame size', async () => {
    const original = await frame([200, 30, 30]);
    const half = await sharp(original).resize(20, 10).png().toBuffer();
    expect(await coloursLost(original, half, size)).toBe(0);
  });
});
