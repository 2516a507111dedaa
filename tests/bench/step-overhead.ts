// Figures 1 and 2 (run by tests/bench/run.ts on its Xvfb desktop; DISPLAY comes from the runner):
//   1. a full host step without the model (a scripted model that answers at once with `wait 0`): capture,
//      encode, prompt, dispatch, persist, event, through the real device client, less the time spent
//      waiting for the model's reply (the step's MODEL_REPLY timing); against a bare nut.js
//      screen.grab() in this process. Both as p50; their ratio. The window's clock line changes every
//      10 ms, and only steps that saw a frame different from the step before are timed.
//   2. the bytes of the desktop screenshot the model was sent, against a lossless PNG of the same frame;
//      and the same for the AppAgent's window screenshot, as sent at once and as sent after the model
//      took its time (the device compresses unchanged bands again while idle).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { encodeRgb, rawImageOf, toRgb } from '../../src-main/device/screen';
import { activeWindow, listWindows, windowAt } from '../../src-main/device/windows';
import { visibleParts } from '../../src-main/device/coords';
import { DeskhandConfig } from '../../src-main/host/config';
import { createHost } from '../../src-main/host/create-host';
import { startModelServer } from '../fixtures/model-server';
import { TEXT_BLOCKS, XTERM_TITLE } from '../support/bench-desktop';
import { emit, goal, info, median, note, runBench, type Figure } from '../support/bench-stats';
import { coloursLost, readWords, tesseractAvailable, wordsKept } from '../support/ocr-words';
import { replies } from '../support/host-harness';
import { isolatedHome } from '../support/reliability-harness';

const STEPS = 60;
const WARMUP_STEPS = 5;
/** Then clicks into the xterm (harmless there): the step also draws the click on a copy of its screenshot. */
const CLICK_STEPS = 30;
/** Then steps whose model reply takes this long, as a real model's does: the device is idle meanwhile. */
const THINKING_STEPS = 3;
const THINKING_MS = 400;
const GRABS = 40;

async function bareGrabs(count: number): Promise<number[]> {
  const { screen } = await import('@nut-tree-fork/nut-js');
  for (let i = 0; i < 5; i++) await screen.grab();
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await screen.grab();
    times.push(performance.now() - started);
  }
  return times;
}

const png9 = (image: Buffer | { data: Buffer; width: number; height: number }): Promise<Buffer> =>
  (Buffer.isBuffer(image) ? sharp(image) : sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } }))
    .png({ compressionLevel: 9 })
    .toBuffer();

/** An encoding of the bench frame, compared with its lossless PNG. */
interface Comparison {
  setting: string;
  bytes: number;
  ms: number;
  /** Share of the lossless frame's words that OCR reads in it (null without tesseract). */
  wordsKept: number | null;
  /** The frame's colours it loses (see coloursLost). */
  coloursLost: number;
}

/** A comparison keeps the text when OCR reads this share of the lossless frame's words in it. */
const KEEPS_TEXT = 0.99;

/**
 * Encodings the model could be sent instead, of the same frame: their bytes against the lossless PNG,
 * their time, and, with tesseract installed, how much of the frame's text OCR still reads in them.
 */
async function compareEncodings(rgb: Buffer, width: number, height: number, png: Buffer): Promise<Comparison[]> {
  const raw = { raw: { width, height, channels: 3 as const } };
  const viaDevice = (format: 'png' | 'jpeg' | 'webp', quality: number, maxEdge: number) => async (): Promise<Buffer> =>
    (await encodeRgb(rgb, width, height, { format, quality, maxEdge })).data;
  const encodings: Array<[string, () => Promise<Buffer>]> = [
    ['png (zlib level 2, as sent)', viaDevice('png', 0, 1280)],
    ['jpeg q70', viaDevice('jpeg', 70, 1280)],
    ['jpeg q50 at 960 px', viaDevice('jpeg', 50, 960)],
    ['jpeg q30 at 640 px', viaDevice('jpeg', 30, 640)],
    ['webp q70', viaDevice('webp', 70, 1280)],
    ['webp q50 at 1024 px', viaDevice('webp', 50, 1024)],
    ['webp lossless', () => sharp(rgb, raw).webp({ lossless: true }).toBuffer()],
    ['webp near-lossless (60)', () => sharp(rgb, raw).webp({ nearLossless: true, quality: 60, effort: 2 }).toBuffer()],
    ['png, 256-colour palette', () => sharp(rgb, raw).png({ palette: true, compressionLevel: 9 }).toBuffer()],
    // libimagequant picks as few colours as keep the frame's look; WebP's lossless coder indexes them.
    ['webp lossless of a quantised palette', async () => sharp(await sharp(rgb, raw).png({ palette: true, dither: 0, compressionLevel: 0 }).toBuffer()).webp({ lossless: true, effort: 2 }).toBuffer()],
    ['webp lossless of a 16-colour palette', async () => sharp(await sharp(rgb, raw).png({ palette: true, colours: 16, dither: 0, compressionLevel: 0 }).toBuffer()).webp({ lossless: true, effort: 2 }).toBuffer()],
  ];
  const ocr = tesseractAvailable();
  if (!ocr) note('tesseract is not installed (Debian: tesseract-ocr): the comparisons leave out how much text OCR reads back');
  const size = { width, height };
  const reference = ocr ? await readWords(png, size, TEXT_BLOCKS) : [];
  if (ocr) note(`OCR reads ${reference.length} words in the lossless frame`);
  const comparisons: Comparison[] = [];
  for (const [setting, encode] of encodings) {
    const started = performance.now();
    const bytes = await encode();
    const ms = performance.now() - started;
    const comparison: Comparison = {
      setting,
      bytes: bytes.length,
      ms,
      wordsKept: ocr ? wordsKept(reference, await readWords(bytes, size, TEXT_BLOCKS)) : null,
      coloursLost: await coloursLost(png, bytes, size),
    };
    comparisons.push(comparison);
    const legibility = comparison.wordsKept === null ? '' : `; OCR reads ${(100 * comparison.wordsKept).toFixed(1)} % of its words`;
    note(
      `for comparison: ${setting}: ${(bytes.length / 1024).toFixed(1)} KB = ${(bytes.length / png.length).toFixed(2)} of the PNG, in ${ms.toFixed(0)} ms` +
        `${legibility}; ${comparison.coloursLost} of the frame's colours lost`,
    );
  }
  return comparisons;
}

/** The frame as the screen shows it now, and its lossless PNG; other encodings of it are compared. */
async function pngOfScreen(): Promise<{ bytes: number; width: number; height: number; comparisons: Comparison[] }> {
  const { screen } = await import('@nut-tree-fork/nut-js');
  const grabbed = await screen.grab();
  const rgb = toRgb(rawImageOf(grabbed));
  const png = await png9({ data: rgb, width: grabbed.width, height: grabbed.height });
  const comparisons = await compareEncodings(rgb, grabbed.width, grabbed.height, png);
  return { bytes: png.length, width: grabbed.width, height: grabbed.height, comparisons };
}

/** The smallest comparison that keeps the text (by OCR) and the colours, as a figure; none without tesseract. */
function smallestFaithful(comparisons: readonly Comparison[], pngBytes: number): Figure[] {
  const faithful = comparisons
    .filter((comparison) => comparison.wordsKept !== null && comparison.wordsKept >= KEEPS_TEXT && comparison.coloursLost === 0)
    .sort((a, b) => a.bytes - b.bytes)[0];
  if (!faithful) return [];
  return [
    info(`Smallest encoding compared that keeps the text and colours (${faithful.setting}: OCR reads ${(100 * (faithful.wordsKept as number)).toFixed(1)} % of the words, no colour lost) / lossless PNG`, faithful.bytes / pngBytes, 'ratio'),
    info(`Encoding the frame that way`, faithful.ms, 'ms'),
  ];
}

/**
 * Window lookups the device makes beside a step: the keyboard check before a line typed or Enter pressed
 * for a window that is not a terminal (the active window, or the window at the point typed at), and
 * finding Deskhand's own window to hide in a screenshot. Timed here on the same desktop.
 */
async function windowCheckTimes(): Promise<{ active: number[]; atPoint: number[]; hidden: number[] }> {
  const timed = async (check: () => Promise<unknown>): Promise<number[]> => {
    for (let i = 0; i < 5; i++) await check();
    const times: number[] = [];
    for (let i = 0; i < GRABS; i++) {
      const started = performance.now();
      await check();
      times.push(performance.now() - started);
    }
    return times;
  };
  return {
    active: await timed(activeWindow),
    atPoint: await timed(() => windowAt({ x: 300, y: 400 })),
    // The desktop app and browser mode find what shows of Deskhand's window before every screenshot.
    hidden: await timed(async () => visibleParts(await listWindows(), (window) => window.title.includes(XTERM_TITLE))),
  };
}

/** The screenshots in a model request (data URLs), decoded. */
function imagesOf(messages: Array<{ content?: unknown }>): Buffer[] {
  const images: Buffer[] = [];
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const part of message.content as Array<{ type?: string; image_url?: { url?: string } }>) {
      const url = part.type === 'image_url' ? part.image_url?.url : undefined;
      if (url?.startsWith('data:')) images.push(Buffer.from(url.slice(url.indexOf(',') + 1), 'base64'));
    }
  }
  return images;
}

async function main(): Promise<void> {
  if (!process.env.DISPLAY) throw new Error('no DISPLAY: run through tests/bench/run.ts, which starts Xvfb');
  note('bare screen.grab() ...');
  const grabsBefore = await bareGrabs(GRABS);

  const dataDir = mkdtempSync(join(tmpdir(), 'deskhand-bench-step-'));
  const wait = replies.app({ Function: 'wait', Args: { seconds: 0 }, Status: 'CONTINUE' });
  const click = replies.app({ Function: 'click', Args: { x: 300, y: 400 }, Status: 'CONTINUE' });
  const model = await startModelServer({
    name: 'instant wait 0',
    steps: [
      replies.hostTo(XTERM_TITLE, 'wait a moment'),
      ...Array.from({ length: STEPS }, () => wait),
      ...Array.from({ length: CLICK_STEPS }, () => click),
      ...Array.from({ length: THINKING_STEPS }, () => ({ ...wait, delayMs: THINKING_MS })),
      replies.app({ Function: '', Status: 'FINISH', Comment: 'waited' }),
      replies.host({ Status: 'FINISH', Comment: 'done' }),
    ],
  });
  const config = DeskhandConfig.parse({
    models: { host: { baseUrl: model.baseUrl, model: 'scripted', maxRetries: 0 } },
    limits: { maxStepsPerRound: 1_000 },
  });
  const host = createHost({ dataDir, config, env: { ...process.env, HOME: isolatedHome(dataDir), OPENAI_API_KEY: 'bench' } });
  const appStepTimes: number[] = [];
  host.sessions.subscribe((event) => {
    if (event.kind === 'step.added' && event.step.agent === 'AppAgent') appStepTimes.push(performance.now());
  });
  try {
    note(`${STEPS} host steps through the real device client, then ${CLICK_STEPS} clicks ...`);
    const reply = await host.endpoint.handle({ type: 'session.start', id: 'bench', request: 'wait a moment', mode: 'desktop' });
    if (reply.type !== 'reply' || !reply.ok) throw new Error(`start refused: ${JSON.stringify(reply)}`);
    const outcome = await host.sessions.running;
    if (outcome?.status !== 'finished') throw new Error(`the bench run ended ${JSON.stringify(outcome)}`);
    model.assertDone();
    const sessionId = (reply.result as { session: { id: string } }).session.id;
    const steps = host.store.steps(sessionId).filter((step) => step.agent === 'AppAgent' && step.status === 'CONTINUE');
    const clicks = steps.slice(STEPS, STEPS + CLICK_STEPS);
    if (steps.length !== STEPS + CLICK_STEPS + THINKING_STEPS) throw new Error(`expected ${STEPS + CLICK_STEPS + THINKING_STEPS} steps, got ${steps.length}`);
    if (clicks.some((candidate) => candidate.action?.function !== 'click' || !candidate.annotated)) {
      throw new Error('a click step ran no click or drew no annotated screenshot');
    }

    // A step = from the previous step's event to its own: everything the host does for it.
    const cycleOf = (index: number): number => (appStepTimes[index] as number) - (appStepTimes[index - 1] as number);
    // Only steps whose frame differs from the step before are timed: re-sending an unchanged frame is cheaper.
    const frames = steps.map((candidate) => {
      const path = candidate.screenshot && host.screenshots.pathOf(sessionId, candidate.screenshot.file);
      if (!path) throw new Error(`step ${candidate.index} has no screenshot`);
      return readFileSync(path);
    });
    const frameChanged = (index: number): boolean => index > 0 && !(frames[index] as Buffer).equals(frames[index - 1] as Buffer);
    const changedFrames = frames.filter((_, index) => frameChanged(index)).length;
    if (changedFrames < (steps.length - 1) * 0.5) {
      throw new Error(`only ${changedFrames} of ${steps.length - 1} steps saw a frame different from the step before: is the clock in the xterm running?`);
    }
    const modelReplyOf = (index: number): number => {
      const waited = steps[index]?.phaseMs.MODEL_REPLY;
      if (waited === undefined) throw new Error(`step ${index} has no MODEL_REPLY timing`);
      return waited;
    };
    const measured = Array.from({ length: STEPS - WARMUP_STEPS }, (_, i) => WARMUP_STEPS + i).filter(frameChanged);
    const cycle = measured.map(cycleOf);
    const withoutModel = measured.map((index) => cycleOf(index) - modelReplyOf(index));
    const clickCycle = Array.from({ length: CLICK_STEPS - WARMUP_STEPS }, (_, i) => cycleOf(STEPS + WARMUP_STEPS + i));
    const grabsAfter = await bareGrabs(GRABS);
    const grab = median([...grabsBefore, ...grabsAfter]);
    const step = median(withoutModel);
    const phaseOf = (of: typeof steps, name: string): number => median(of.map((candidate) => candidate.phaseMs[name] ?? 0));
    const phase = (name: string): number => phaseOf(steps.slice(WARMUP_STEPS, STEPS), name);

    const sent = imagesOf(model.requests[0]?.body.messages ?? [])[0];
    if (!sent) throw new Error('the HostAgent request carried no screenshot');
    const meta = await sharp(sent).metadata();
    const png = await pngOfScreen();
    if (meta.width !== png.width || meta.height !== png.height) {
      throw new Error(`the image sent is ${meta.width}x${meta.height}, the screen ${png.width}x${png.height}: not the same frame size`);
    }
    // The AppAgent's window screenshots: lossless when sent as PNG, so re-encoding one at level 9 is the
    // PNG of the same frame; a JPEG is compared with the PNG of what it shows (a little kinder to JPEG).
    const windowShot = imagesOf(model.requests[1]?.body.messages ?? [])[0];
    if (!windowShot) throw new Error('the AppAgent request carried no screenshot');
    const windowMeta = await sharp(windowShot).metadata();
    const windowPng = await png9(windowShot);
    // The request after the model took its time: the window's unchanged bands were compressed again meanwhile.
    const afterThinking = imagesOf(model.requests[1 + STEPS + CLICK_STEPS + THINKING_STEPS]?.body.messages ?? [])[0];
    if (!afterThinking) throw new Error('the AppAgent request after the model took its time carried no screenshot');
    const afterThinkingPng = await png9(afterThinking);
    const windowChecks = await windowCheckTimes();

    emit([
      info('Bare screen.grab() of 1280x800, p50', grab, 'ms'),
      info('Host step with the instant model, event to event, p50', median(cycle), 'ms'),
      info('Host step: collecting the screenshot (window lookup, grab, encode, transfer; host save), p50', phase('DATA_COLLECTION'), 'ms'),
      info('Host step: the prompt and the instant model reply, p50', phase('LLM_INTERACTION'), 'ms'),
      info('Host step: of that, waiting for the reply (HTTP round trip to the scripted model), p50', phase('MODEL_REPLY'), 'ms'),
      info('Host step: dispatching `wait 0`, p50', phase('ACTION_EXECUTION'), 'ms'),
      info('Host step with a click instead (the click drawn on a copy of the screenshot), p50', median(clickCycle), 'ms'),
      info('Host step with a click: drawing and clicking, p50', phaseOf(clicks.slice(WARMUP_STEPS), 'ACTION_EXECUTION'), 'ms'),
      info('Host step without the model (capture, encode, prompt, dispatch, persist, event), p50', step, 'ms'),
      info('Steps whose window frame differed from the step before (only these are timed)', (100 * changedFrames) / (steps.length - 1), '%'),
      goal('Step overhead / bare screen grab', step / grab, 'ratio', '<=', 3),
      info(`Image sent to the model (${meta.format} ${meta.width}x${meta.height})`, sent.length / 1024, 'KB'),
      info('Lossless PNG of the same frame (sharp, level 9)', png.bytes / 1024, 'KB'),
      goal('Image bytes sent / lossless PNG of the same frame', sent.length / png.bytes, 'ratio', '<=', 0.2),
      info(`AppAgent window image sent (${windowMeta.format} ${windowMeta.width}x${windowMeta.height})`, windowShot.length / 1024, 'KB'),
      info('AppAgent window image sent / lossless PNG of it (level 9)', windowShot.length / windowPng.length, 'ratio'),
      info(`AppAgent window image sent after the model took ${THINKING_MS} ms (unchanged bands compressed again meanwhile)`, afterThinking.length / 1024, 'KB'),
      info(`AppAgent window image sent after the model took ${THINKING_MS} ms / lossless PNG of it (level 9)`, afterThinking.length / afterThinkingPng.length, 'ratio'),
      ...smallestFaithful(png.comparisons, png.bytes),
      info('Keyboard check before a line typed: the active window, p50', median(windowChecks.active), 'ms'),
      info('Keyboard check before typing at a point: the window there, p50', median(windowChecks.atPoint), 'ms'),
      info("Finding what shows of Deskhand's window, to paint over in a screenshot, p50", median(windowChecks.hidden), 'ms'),
    ]);
  } finally {
    await host.close();
    await model.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

runBench(main);
