import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, startWebApp, type WebApp } from '../support/web-app';

// Browser mode for real (`node out/main/web.js`, no model needed) with a page whose token the host
// refuses: what a tab left open across a restart of Deskhand has.

let dataDir: string;
let app: WebApp;
let browser: Browser;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'deskhand-ui-connection-'));
  app = await startWebApp({ ...process.env, DESKHAND_DATA_DIR: dataDir });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a page whose access token the host refuses (browser mode)', () => {
  it('says to open the printed address again, and stops trying to connect', async () => {
    const context = await browser.newContext();
    // The page itself loads only with the right token; the UI reads its token from the address, so
    // this makes the UI hold a wrong one, as a tab from an earlier launch does.
    await context.addInitScript(`history.replaceState(null, '', location.pathname + '?token=not-this-launch')`);
    const page = await context.newPage();
    const sockets: string[] = [];
    const tokenChecks: string[] = [];
    page.on('websocket', (socket) => sockets.push(socket.url()));
    page.on('request', (request) => {
      if (request.method() === 'HEAD') tokenChecks.push(request.url());
    });
    try {
      await page.goto(app.url);
      const alert = page.getByRole('alert').filter({ hasText: "Deskhand refused this page's access token" });
      await alert.waitFor({ timeout: 15_000 });
      expect(await alert.textContent()).toContain('open the address Deskhand printed (http://…/?token=…) again, since each launch has a new token.');
      expect(sockets.length).toBeGreaterThan(0);
      expect(sockets.every((url) => url.endsWith('/ws?token=not-this-launch'))).toBe(true);
      expect(tokenChecks.length).toBeGreaterThan(0);

      // Retrying would start again within a second, then keep on with longer pauses: nothing more comes.
      const [socketsSeen, checksSeen] = [sockets.length, tokenChecks.length];
      await page.waitForTimeout(4_000);
      expect(sockets).toHaveLength(socketsSeen);
      expect(tokenChecks).toHaveLength(checksSeen);
      expect(socketsSeen).toBeLessThanOrEqual(2);
      expect(await alert.count()).toBe(1);
      expect(await page.getByText('Not connected', { exact: true }).count()).toBe(1);
    } finally {
      await context.close();
    }
  });
});

describe('the access token of browser mode (the real server)', () => {
  const status = (page: Page) => page.getByRole('status').first().textContent({ timeout: 2_000 });

  it('leaves the address and the tab history at once, and a reload of the tab still connects', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const sockets: string[] = [];
    page.on('websocket', (socket) => sockets.push(socket.url()));
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    const origin = new URL(app.url).origin;
    try {
      await page.goto(app.url);
      await expect.poll(() => status(page), { timeout: 15_000 }).toBe('Ready');
      expect(page.url()).toBe(`${origin}/`);
      // This launch's mark, which the device client keeps off, is in the title from the first byte.
      const title = await page.title();
      expect(title).toMatch(/^Deskhand · [0-9a-f]{8}$/);

      // The server refuses the address without the token; the tab presents the one it kept, in a header.
      expect((await page.reload())?.status()).toBe(401);
      await expect.poll(() => status(page), { timeout: 15_000 }).toBe('Ready');
      expect(page.url()).toBe(`${origin}/`);
      expect(await page.title()).toBe(title);
      expect(sockets).toHaveLength(2);
      expect(await page.getByText(/Unauthorized/).count()).toBe(0);

      // The tab's history holds the address without the token too.
      await page.goBack();
      await page.goForward();
      expect(page.url()).toBe(`${origin}/`);
      await expect.poll(() => status(page), { timeout: 15_000 }).toBe('Ready');
      // Only the printed address itself had the token in it (the WebSocket's, which nobody sees, aside).
      expect(requests.filter((url) => url.includes('token='))).toEqual([app.url]);
    } finally {
      await context.close();
    }
  });

  it('refuses a tab that never had the token, even in the same browser', async () => {
    const context = await browser.newContext();
    try {
      // The same browser (the asset cookie set by the printed address), but another tab: nothing kept.
      const first = await context.newPage();
      await first.goto(app.url);
      await expect.poll(() => status(first), { timeout: 15_000 }).toBe('Ready');
      const other = await context.newPage();
      const answer = await other.goto(new URL(app.url).origin);
      expect(answer?.status()).toBe(401);
      await other.getByText('Unauthorized: open the address Deskhand printed, with its token').waitFor();
      await other.waitForTimeout(500);
      expect(await other.getByRole('textbox', { name: 'Request' }).count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});

describe('a dropped connection (browser mode)', () => {
  it('is said in a live region when it drops and when it comes back, and the page goes on working', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const pageSides: { close(): Promise<void> }[] = [];
    // Every socket goes through to the real server; the test keeps the page's end to cut it.
    await page.routeWebSocket(/\/ws\?token=/, (socket) => {
      socket.connectToServer();
      pageSides.push(socket);
    });
    try {
      await page.goto(app.url);
      const notice = page.getByTestId('connection-state');
      expect(await notice.getAttribute('aria-live')).toBe('polite');
      // The first connection of a page load is no news: nothing is said once it is up.
      await expect.poll(() => notice.textContent(), { timeout: 15_000 }).toBe('');
      const socketsBefore = pageSides.length;

      await pageSides.at(-1)?.close();
      await expect.poll(() => notice.textContent(), { timeout: 5_000 }).toBe('Disconnected, retrying…');
      await expect.poll(() => notice.textContent(), { timeout: 15_000 }).toBe('Connected to Deskhand again');
      expect(pageSides.length).toBeGreaterThan(socketsBefore);
      // Shown only to screen readers: the chip is gone, and the words take no room on screen.
      const box = await notice.getByText('Connected to Deskhand again').boundingBox();
      expect((box?.width ?? 0) * (box?.height ?? 0)).toBeLessThanOrEqual(1);
      await page.getByRole('textbox', { name: 'Request' }).waitFor();
    } finally {
      await context.close();
    }
  });
});
