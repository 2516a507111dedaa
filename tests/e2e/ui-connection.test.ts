import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
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
