import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startModelServer, type ModelServer, type Scenario } from '../fixtures/model-server';
import { launchChromium, startWebApp, type WebApp } from './web-app';
import { startXterm, startXvfb, type XDisplay, type XProgram } from './xvfb';

/**
 * The whole app for real, for end-to-end tests: an X display (1280x800, openbox) with a maximised
 * xterm, headless Chromium, and per test a scripted model and `node out/main/web.js` against it.
 * Everything started is stopped by `close()`, newest first.
 */
export interface DesktopE2e {
  x: XDisplay;
  browser: Browser;
  /** A temporary folder the xterm starts in; removed on close. */
  work: string;
  useModel(scenario: Scenario): Promise<ModelServer>;
  startApp(model: ModelServer, dataDir: string): Promise<WebApp>;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

export async function startDesktopE2e(prefix: string): Promise<DesktopE2e> {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const x = await startXvfb({ width: 1280, height: 800 });
  const xterm: XProgram = await startXterm(x, { maximized: true, cwd: work });
  const browser = await launchChromium();
  const cleanups: Array<() => Promise<void>> = [];
  return {
    x,
    browser,
    work,
    async useModel(scenario) {
      const model = await startModelServer(scenario);
      cleanups.push(() => model.close());
      return model;
    },
    async startApp(model, dataDir) {
      const app = await startWebApp({ ...x.env, DESKHAND_DATA_DIR: dataDir, OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: 'scripted', DESKHAND_MODEL: 'scripted' });
      cleanups.push(() => app.stop());
      return app;
    },
    async newPage() {
      const page = await browser.newPage();
      cleanups.push(() => page.close());
      return page;
    },
    async close() {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
      await browser.close();
      await xterm.stop();
      await x.stop();
      rmSync(work, { recursive: true, force: true });
    },
  };
}

/** Types a request into the "Request" box and presses "Send". */
export async function sendRequest(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Request' }).fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
}
