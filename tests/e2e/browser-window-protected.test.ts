import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { sendRequest } from '../support/desktop-e2e';
import { replies } from '../support/host-harness';
import { startWebApp, type WebApp } from '../support/web-app';
import { startXterm, startXvfb, type XDisplay, type XProgram } from '../support/xvfb';

const execFileP = promisify(execFile);

// Browser mode for real, with the UI in a Chromium window on the X display the agent works on (not
// headless: the window must exist). The agent must not see or act on the window that shows the Deskhand
// tab, as in the desktop app it keeps off Deskhand's own windows.

let x: XDisplay;
let xterm: XProgram;
let work: string;
let browser: Browser;
let model: ModelServer;
let app: WebApp;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'deskhand-browser-window-'));
  x = await startXvfb({ width: 1280, height: 800 });
  xterm = await startXterm(x, { geometry: '80x20+0+0', title: 'agent-work', cwd: work });
  browser = await chromium.launch({
    executablePath: process.env.DESKHAND_CHROMIUM ?? '/usr/bin/chromium',
    headless: false,
    env: { ...process.env, ...x.env },
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  model = await startModelServer({
    name: 'what the host sees',
    steps: [replies.host({ Status: 'FINISH', Comment: 'looked at the windows' })],
  });
  app = await startWebApp({
    ...x.env,
    DESKHAND_DATA_DIR: join(work, 'data'),
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'scripted',
    DESKHAND_MODEL: 'scripted',
  });
});

afterAll(async () => {
  await app?.stop();
  await model?.close();
  await browser?.close();
  await xterm?.stop();
  await x?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Titles of the windows on the display whose title contains `text` (xdotool reads _NET_WM_NAME). */
async function windowsTitled(text: string): Promise<string[]> {
  const found = await execFileP('xdotool', ['search', '--name', text], { env: x.env }).catch(() => ({ stdout: '' }));
  const ids = found.stdout.split('\n').filter(Boolean);
  return Promise.all(ids.map(async (id) => (await execFileP('xdotool', ['getwindowname', id], { env: x.env })).stdout.trim()));
}

describe('the browser window showing the Deskhand tab (browser mode, Xvfb + openbox + Chromium)', () => {
  it('is not among the windows the agent is shown', async () => {
    const page: Page = await browser.newPage();
    await page.goto(app.url);
    await expect.poll(() => page.getByRole('status').first().textContent(), { timeout: 15_000 }).toBe('Ready');
    const mark = /^Deskhand · ([0-9a-f]{8})$/.exec(await page.title())?.[1];
    expect(mark).toBeDefined();
    // The browser shows the tab's title, mark included, in its window's title.
    await expect.poll(() => windowsTitled(mark ?? ''), { timeout: 10_000 }).toEqual([expect.stringContaining(`Deskhand · ${mark}`)]);

    await sendRequest(page, 'look at the windows');
    await expect.poll(() => page.getByRole('status').first().textContent(), { timeout: 30_000 }).toMatch(/^Finished/);
    const prompt = model.requests[0]?.text ?? '';
    expect(prompt).toContain('agent-work');
    expect(prompt).not.toContain(mark);
    model.assertDone();
  });
});
