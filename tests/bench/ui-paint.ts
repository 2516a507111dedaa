// Figure 5: the UI in headless Chromium, fed by a stand-in host that replays `step.added` events over
// browser mode's WebSocket (tests/support/fake-ui-host.ts, serving the built renderer): the time from a
// step event's arrival to the first frame that shows the step, p95, with 5,000 steps in the trajectory;
// the DOM's size with 5,000 steps against 50; and how busy the main thread is while a run waits on
// the model, with nothing arriving.
import type { Page } from 'playwright-core';
import { emit, goal, info, note, percentile, runBench, sleep } from '../support/bench-stats';
import { startFakeUiHost } from '../support/fake-ui-host';
import { makeSession, makeStep } from '../support/ui-fixtures';
import { launchChromium } from '../support/web-app';

const SAMPLES = 80;
const WARMUP = 5;
const SESSION = 'bench-long-run';

/**
 * Runs in the page before the app: every WebSocket gets a first listener that, while measuring is on,
 * notes when a step event arrives and, frame by frame (requestAnimationFrame), when the step's row is in
 * the document: the frame that paints it. Frames come every 16.7 ms, so this includes the wait for the
 * next frame; the time until the row enters the document (React's commit) is noted too, and how many
 * frames came until one had the row (1: the first frame after the event showed it).
 */
const PAGE_PROBE = `(() => {
  const state = { measuring: false, samples: [], dom: [], frames: [] };
  window.__deskhandPaint = state;
  const Native = window.WebSocket;
  class Measured extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (event) => {
        if (!state.measuring || typeof event.data !== 'string' || !event.data.includes('"kind":"step.added"')) return;
        const match = /"index":(\\d+)/.exec(event.data);
        if (!match) return;
        const selector = '[role="listitem"][aria-posinset="' + (Number(match[1]) + 1) + '"]';
        const received = performance.now();
        // When the row enters the document (React's commit), whatever the frame.
        const observer = new MutationObserver(() => {
          if (!document.querySelector(selector)) return;
          state.dom.push(performance.now() - received);
          observer.disconnect();
        });
        observer.observe(document.body, { childList: true, subtree: true });
        let frames = 0;
        const check = () => {
          if (document.querySelector(selector)) {
            state.samples.push(performance.now() - received);
            state.frames.push(frames + 1);
          } else if (++frames < 600) requestAnimationFrame(check);
          else state.samples.push(-1);
        };
        requestAnimationFrame(check);
      });
    }
  }
  window.WebSocket = Measured;
})();`;

async function rowShown(page: Page, position: number): Promise<void> {
  await page.locator(`[role="listitem"][aria-posinset="${position}"]`).waitFor({ timeout: 60_000 });
}

async function domNodes(page: Page): Promise<number> {
  await sleep(500); // let the list settle (measurements, late renders)
  return page.evaluate('document.querySelectorAll("*").length') as Promise<number>;
}

/** How long the page is watched with a run going on and nothing arriving, as it is while the model thinks. */
const IDLE_MS = 3_000;

/**
 * The share of `ms` the page's main thread spent on tasks (Chromium's TaskDuration), with nothing
 * arriving: what showing a running session costs between steps (an animation that needs the main
 * thread every frame shows here).
 */
async function mainThreadBusyShare(page: Page, ms: number): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const taskSeconds = async (): Promise<number> => {
    const { metrics } = await cdp.send('Performance.getMetrics');
    const task = metrics.find((metric) => metric.name === 'TaskDuration');
    if (task === undefined) throw new Error('Chromium reported no TaskDuration metric');
    return task.value;
  };
  await sleep(500); // the last step's frames
  const before = await taskSeconds();
  const started = performance.now();
  await sleep(ms);
  const busy = (await taskSeconds()) - before;
  const elapsed = (performance.now() - started) / 1_000;
  await cdp.detach();
  return busy / elapsed;
}

async function main(): Promise<void> {
  const host = await startFakeUiHost();
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    await context.addInitScript({ content: PAGE_PROBE });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    host.addSession(makeSession(SESSION, { title: 'A very long run', status: 'running', maxSteps: 10_000 }));
    await page.goto(host.url);
    await host.waitForCommand('session.list');
    await page.getByRole('link', { name: /A very long run/ }).click();
    await host.waitForCommand('session.open');

    const steps = (from: number, count: number) => Array.from({ length: count }, (_, i) => makeStep(SESSION, from + i, { subtask: `Part ${Math.floor((from + i) / 50) + 1}` }));
    /** Adds `count` steps one at a time from `from`, and returns the timings the page noted for them. */
    const timeSteps = async (from: number, count: number): Promise<{ paint: number[]; dom: number[]; frames: number[] }> => {
      await page.evaluate('Object.assign(window.__deskhandPaint, { measuring: true, samples: [], dom: [], frames: [] })');
      for (let i = 0; i < count; i++) {
        host.addStep(makeStep(SESSION, from + i));
        // Nothing touches the page while it works (no polling: that would take its main thread), and the
        // next step arrives at another point of the frame.
        await sleep(90 + ((i * 17) % 50));
      }
      const deadline = Date.now() + 30_000;
      while (((await page.evaluate('window.__deskhandPaint.samples.length')) as number) < count) {
        if (Date.now() > deadline) throw new Error('not every step was shown within 30 s');
        await sleep(50);
      }
      const paint = (await page.evaluate('window.__deskhandPaint.samples')) as number[];
      const dom = (await page.evaluate('window.__deskhandPaint.dom')) as number[];
      const frames = (await page.evaluate('window.__deskhandPaint.frames')) as number[];
      await page.evaluate('window.__deskhandPaint.measuring = false');
      if (paint.some((sample) => sample < 0)) throw new Error('a step was never shown');
      return { paint: paint.slice(WARMUP), dom: dom.slice(WARMUP), frames: frames.slice(WARMUP) };
    };

    note('50 steps ...');
    host.addSteps(steps(0, 50));
    await rowShown(page, 50);
    const nodesAt50 = await domNodes(page);
    note('30 more, one at a time, timed ...');
    const small = await timeSteps(50, 30);

    note('5,000 steps ...');
    for (let from = 80; from < 5_000; from += 980) host.addSteps(steps(from, Math.min(980, 5_000 - from)));
    await rowShown(page, 5_000);
    const nodesAt5000 = await domNodes(page);
    note(`${SAMPLES} more, one at a time, timed from arrival to the frame that shows them ...`);
    const large = await timeSteps(5_000, SAMPLES);
    note(`${IDLE_MS / 1_000} s with the session running and no step coming (the model thinking) ...`);
    const idleBusy = await mainThreadBusyShare(page, IDLE_MS);
    if (problems.length) throw new Error(`the page had errors: ${problems.join('; ')}`);
    emit([
      info('Step event to the row in the document (React commit), 50 steps shown, p95', percentile(small.dom, 95), 'ms'),
      info('Step event to paint, 50 steps shown, p95', percentile(small.paint, 95), 'ms'),
      info('Step event to the row in the document (React commit), 5,000 steps shown, p95', percentile(large.dom, 95), 'ms'),
      info('Step event to paint with 5,000 steps shown, p50', percentile(large.paint, 50), 'ms'),
      goal('Step event to paint with 5,000 steps shown, p95', percentile(large.paint, 95), 'ms', '<=', 16),
      info('Steps shown in the first frame after their event, 5,000 steps shown', (large.frames.filter((frames) => frames === 1).length / large.frames.length) * 100, '%'),
      info('UI main thread busy while a run waits on the model (share of one core)', idleBusy * 100, '%'),
      info('DOM nodes with 50 steps', nodesAt50, 'nodes'),
      info('DOM nodes with 5,000 steps', nodesAt5000, 'nodes'),
      goal('DOM nodes at 5,000 steps / at 50 steps', nodesAt5000 / nodesAt50, 'ratio', '<=', 1.5),
    ]);
  } finally {
    await browser.close();
    await host.close();
  }
}

runBench(main);
