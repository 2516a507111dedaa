import { spawn, spawnSync } from 'node:child_process';
import sharp from 'sharp';

/**
 * How legible an encoding of a screenshot stays, measured rather than judged by eye: tesseract reads
 * the text blocks of the decoded image, and the words it reads are compared with what it reads in the
 * lossless frame. Used by the bench's image comparisons; tesseract (Debian's `tesseract-ocr`) is
 * optional there.
 */

export interface Block {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** Screen fonts are small for tesseract: each block is read at three times its size. */
const UPSCALE = 3;

export function tesseractAvailable(): boolean {
  return spawnSync('tesseract', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** The words tesseract reads in each block of `image` (any format sharp decodes), scaled to `size` first. */
export async function readWords(image: Buffer, size: { width: number; height: number }, blocks: readonly Block[]): Promise<string[]> {
  const full = await sharp(image).removeAlpha().resize(size.width, size.height, { fit: 'fill', kernel: 'lanczos3' }).raw().toBuffer();
  const raw = { raw: { width: size.width, height: size.height, channels: 3 as const } };
  // The blocks are read side by side, one tesseract each (single-threaded, so they share the cores).
  const texts = await Promise.all(
    blocks.map(async (block) => {
      const crop = await sharp(full, raw)
        .extract(block)
        .resize(block.width * UPSCALE, block.height * UPSCALE, { kernel: 'lanczos3' })
        .png({ compressionLevel: 1 })
        .toBuffer();
      return tesseract(crop);
    }),
  );
  return texts.flatMap((text) => text.split(/\s+/).filter((word) => word.length > 0));
}

/** tesseract's reading of a PNG, as one uniform block of text (--psm 6: a block's columns are read in the same order every time). */
function tesseract(png: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('tesseract', ['stdin', 'stdout', '--psm', '6'], { env: { ...process.env, OMP_THREAD_LIMIT: '1' } });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', reject);
    // A tesseract that exits before reading all of it says why on stderr; the pipe's own error adds nothing.
    child.stdin.once('error', () => undefined);
    child.once('close', (code, signal) => {
      if (code === 0) resolve(Buffer.concat(out).toString());
      else reject(new Error(`tesseract failed (exit ${code ?? signal}): ${Buffer.concat(err).toString().trim()}`));
    });
    child.stdin.end(png);
  });
}

/** The share of `reference`'s words that `words` has in the same order (their longest common subsequence). */
export function wordsKept(reference: readonly string[], words: readonly string[]): number {
  if (reference.length === 0) return 1;
  const row = new Array<number>(words.length + 1).fill(0);
  for (const word of reference) {
    let diagonal = 0;
    for (let j = 1; j <= words.length; j++) {
      const above = row[j] as number;
      row[j] = word === words[j - 1] ? diagonal + 1 : Math.max(above, row[j - 1] as number);
      diagonal = above;
    }
  }
  return (row[words.length] as number) / reference.length;
}

/**
 * The colours of `original` that `image` loses: of the colours that cover at least `minPixels` pixels
 * (a bar of a chart, a status word's ink, a button), those whose pixels come back more than `tolerance`
 * levels off on average in some channel. A palette too small for the frame maps a red to a grey and
 * loses only a fraction of a percent of the pixels, so a count of pixels off would not show it.
 */
export async function coloursLost(original: Buffer, image: Buffer, size: { width: number; height: number }, minPixels = 40, tolerance = 40): Promise<number> {
  const decode = (source: Buffer): Promise<Buffer> =>
    sharp(source).removeAlpha().resize(size.width, size.height, { fit: 'fill', kernel: 'lanczos3' }).raw().toBuffer();
  const [before, after] = await Promise.all([decode(original), decode(image)]);
  // Per colour of the original: its pixel count and the sums of what those pixels became.
  const sums = new Map<number, [number, number, number, number]>();
  for (let i = 0; i < before.length; i += 3) {
    const colour = ((before[i] as number) << 16) | ((before[i + 1] as number) << 8) | (before[i + 2] as number);
    let sum = sums.get(colour);
    if (!sum) sums.set(colour, (sum = [0, 0, 0, 0]));
    sum[0]++;
    sum[1] += after[i] as number;
    sum[2] += after[i + 1] as number;
    sum[3] += after[i + 2] as number;
  }
  let lost = 0;
  for (const [colour, [count, red, green, blue]] of sums) {
    if (count < minPixels) continue;
    const shift = Math.max(Math.abs(red / count - (colour >>> 16)), Math.abs(green / count - ((colour >>> 8) & 0xff)), Math.abs(blue / count - (colour & 0xff)));
    if (shift > tolerance) lost++;
  }
  return lost;
}
