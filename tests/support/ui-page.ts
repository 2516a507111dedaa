import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import type { StepViewInput } from '../../src-main/protocol';
import { startFakeUiHost, type FakeUiHost } from './fake-ui-host';
import { makeStep } from './ui-fixtures';
import { launchChromium } from './web-app';

export interface UiPage {
  page: Page;
  context: BrowserContext;
  /** Uncaught exceptions and console errors the page had (CSP violations show up here). */
  problems: string[];
  close(): Promise<void>;
}

/** How openUi opens the page: its window size and colour scheme, and a script run before the UI's own. */
export interface OpenUiOptions {
  colorScheme?: 'light' | 'dark';
  width?: number;
  height?: number;
  initScript?: string;
}

/** Opens the UI served by a fake host in a fresh context and waits until it is connected. */
export async function openUi(browser: Browser, host: FakeUiHost, options: OpenUiOptions = {}): Promise<UiPage> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1440, height: options.height ?? 900 },
    colorScheme: options.colorScheme ?? 'light',
    acceptDownloads: true,
  });
  if (options.initScript) await context.addInitScript(options.initScript);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  await page.goto(host.url);
  // Connected: the first session.list arrives right after the socket opens.
  await host.waitForCommand('session.list');
  await page.getByRole('status').first().waitFor();
  return { page, context, problems, close: () => context.close() };
}

/** What uiPerTest gives a test: the file's browser, and its own fake host with the UI open on it. */
export interface UiPerTest {
  readonly browser: Browser;
  readonly host: FakeUiHost;
  /** The UI open on the test's host (after `open`, the one it opened). */
  readonly ui: UiPage;
  /**
   * Opens the UI on the test's host with these options (a window size, a colour scheme, a script run
   * first), closing the one open before; it is closed after the test like the first.
   */
  open(options?: OpenUiOptions): Promise<UiPage>;
}

export interface UiPerTestOptions {
  /** Fills each test's fake host before the UI opens on it (sessions it already has, say). */
  prepare?(host: FakeUiHost): void;
  /** How the UI opens before each test; false: it does not, each test calls `open` with its own options. */
  open?: OpenUiOptions | false;
}

/**
 * Registers the hooks of a UI test file whose tests each start afresh: one Chromium for the file, and
 * for each test a new fake host with the UI open and connected (closed after it). Read the fields
 * inside a test.
 */
export function uiPerTest(options: UiPerTestOptions = {}): UiPerTest {
  let browser: Browser | undefined;
  let host: FakeUiHost | undefined;
  let ui: UiPage | undefined;
  const open = async (openOptions: OpenUiOptions = {}): Promise<UiPage> => {
    await ui?.close();
    ui = undefined;
    ui = await openUi(ready(browser), ready(host), openOptions);
    return ui;
  };
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    host = await startFakeUiHost();
    options.prepare?.(host);
    if (options.open !== false) await open(options.open);
  });
  afterEach(async () => {
    await ui?.close();
    ui = undefined;
    await host?.close();
    host = undefined;
  });
  return {
    get browser() {
      return ready(browser);
    },
    get host() {
      return ready(host);
    },
    get ui() {
      return ready(ui);
    },
    open,
  };
}

function ready<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('read inside a test: the hooks have not run yet');
  return value;
}

/**
 * Sends `request` from the Request box and gives the new session its first step (`step` for its
 * fields, given the session's id), as if the agent had just taken it; resolves with the session's id
 * once the step shows.
 */
export async function startSessionWithStep(
  page: Page,
  host: FakeUiHost,
  request: string,
  step: (sessionId: string) => Partial<StepViewInput> = () => ({}),
): Promise<string> {
  await page.getByRole('textbox', { name: 'Request' }).fill(request);
  await page.getByRole('textbox', { name: 'Request' }).press('Enter');
  const start = await host.waitForCommand('session.start');
  expect(start.request).toBe(request);
  const sessionId = [...host.sessions.keys()].at(-1) ?? '';
  host.addStep(makeStep(sessionId, 0, step(sessionId)));
  await expect.poll(() => page.getByRole('list', { name: 'Trajectory' }).getByRole('listitem').count()).toBe(1);
  return sessionId;
}

/**
 * Makes the page's animation frames come at once (in a microtask) until the returned function puts them
 * back. A busy machine can draw a frame before React commits what a step asked for (a dialog closed
 * after an await, say); this makes that order happen every time, so a focus move or a read of the page
 * scheduled with `requestAnimationFrame` that assumes React has committed fails the test every time.
 * A frame cancelled before its microtask runs does not run.
 */
export async function framesAtOnce(page: Page): Promise<() => Promise<void>> {
  await page.evaluate(`(() => {
    const real = globalThis.deskhandRealFrames ?? { request: globalThis.requestAnimationFrame, cancel: globalThis.cancelAnimationFrame };
    globalThis.deskhandRealFrames = real;
    // Far above the browser's own ids, so that a frame asked for before this can still be cancelled.
    const pending = new Set();
    let last = 1e9;
    globalThis.requestAnimationFrame = (run) => {
      const id = ++last;
      pending.add(id);
      queueMicrotask(() => {
        if (pending.delete(id)) run(performance.now());
      });
      return id;
    };
    globalThis.cancelAnimationFrame = (id) => {
      if (!pending.delete(id)) real.cancel.call(globalThis, id);
    };
  })()`);
  return async () => {
    await page.evaluate(`(() => {
      const real = globalThis.deskhandRealFrames;
      if (real === undefined) return;
      globalThis.requestAnimationFrame = real.request;
      globalThis.cancelAnimationFrame = real.cancel;
      delete globalThis.deskhandRealFrames;
    })()`);
  };
}

/** Where UI tests put their screenshots (kept for people to look at; CI may upload the folder). */
export const UI_SHOT_DIR = resolve('test-results/ui');

/** Saves a PNG of the page and checks it is not blank (more than a handful of distinct colours). */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(UI_SHOT_DIR, { recursive: true });
  const path = join(UI_SHOT_DIR, `${name}.png`);
  // Dialogs, drawers and buttons fade and slide: picture the settled page (spinners spin forever: not waited for).
  await page.evaluate(`Promise.race([
    Promise.all(document.getAnimations()
      .filter((animation) => animation.effect?.getTiming().iterations !== Infinity)
      .map((animation) => animation.finished.catch(() => undefined))),
    new Promise((done) => setTimeout(done, 2000)),
  ])`);
  const png = await page.screenshot({ path, fullPage: false });
  const { data, info } = await sharp(png).resize(160, 100, { fit: 'fill' }).raw().toBuffer({ resolveWithObject: true });
  const colours = new Set<number>();
  for (let i = 0; i < data.length; i += info.channels) colours.add(((data[i] ?? 0) << 16) | ((data[i + 1] ?? 0) << 8) | (data[i + 2] ?? 0));
  if (colours.size < 8) throw new Error(`${path} looks blank (${colours.size} colours)`);
  return path;
}
