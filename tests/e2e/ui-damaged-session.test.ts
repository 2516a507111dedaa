import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src-main/memory/database';
import { ScreenshotFiles } from '../../src-main/memory/screenshot-files';
import { SessionStore } from '../../src-main/memory/session-store';
import { newStep } from '../support/store-fixtures';
import { saveScreenshot } from '../support/ui-page';
import { launchChromium, startWebApp, type WebApp } from '../support/web-app';

// Browser mode against the real host (the built app): the damaged row is in its database, and what the
// UI deletes is checked there and on disk.

let browser: Browser;
let app: WebApp;
let page: Page;
let dataDir = '';
const ids = { kept: '', damaged: '' };

const png = { bytes: Buffer.from('not really a png'), mimeType: 'image/png', width: 4, height: 3 };

/** Two ended sessions with a step and its screenshot file each; the second one's row then damaged by hand. */
async function seed(): Promise<void> {
  const db = openDatabase(join(dataDir, 'deskhand.sqlite'));
  const store = new SessionStore(db);
  const screenshots = new ScreenshotFiles(dataDir);
  for (const [key, request] of [['kept', 'sort the photos by year'], ['damaged', 'rename the invoices by date']] as const) {
    const session = store.createSession(request, 'desktop');
    const { stored, written } = screenshots.write(session.id, 'step-00000', png);
    await written;
    store.appendStep(session.id, newStep({ screenshot: stored }));
    store.setStatus(session.id, 'finished', 'done');
    ids[key] = session.id;
  }
  db.prepare(`UPDATE sessions SET status = 'exploded' WHERE id = ?`).run(ids.damaged);
  db.close();
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'deskhand-ui-damaged-'));
  await seed();
  browser = await launchChromium();
  app = await startWebApp({ ...process.env, DESKHAND_DATA_DIR: dataDir, OPENAI_API_KEY: 'unused', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', DISPLAY: '' });
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(app.url);
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('a damaged session in the browser UI (real host)', () => {
  it('is listed and announced as damaged, cannot be opened, and is deleted with the keyboard after the usual confirmation', async () => {
    const list = page.getByRole('list', { name: 'Sessions' });
    await expect.poll(() => list.getByRole('link').count(), { timeout: 20_000 }).toBe(2);
    // Its link's name, what a screen reader says, tells it is damaged and why.
    const damaged = list.getByRole('link', { name: /^rename the invoices by date Damaged · \d\d:\d\d [AP]M · status: / });
    await damaged.waitFor();
    expect(await list.getByRole('link', { name: /sort the photos by year/ }).textContent()).not.toMatch(/Damaged/);
    await saveScreenshot(page, 'damaged-session');

    // Opening it says why it cannot be, and opens nothing.
    await damaged.click();
    await page.getByRole('alert').getByText(/“rename the invoices by date” is damaged and cannot be opened \(status: .*\)\. Its menu can delete it\./).waitFor();
    expect(await page.getByRole('list', { name: 'Trajectory' }).getByRole('listitem').count()).toBe(0);
    expect(await damaged.getAttribute('aria-current')).toBeNull();
    await page.keyboard.press('Escape');

    // Keyboard only: from the entry to its menu, Delete, then the confirmation's Delete button.
    await damaged.focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate("document.activeElement?.getAttribute('aria-label')")).toBe('Actions for rename the invoices by date');
    await page.keyboard.press('Enter');
    const menu = page.getByRole('menu');
    await menu.waitFor();
    expect(await menu.getByRole('menuitem').allTextContents()).toEqual(['Delete']);
    await page.keyboard.press('Enter');
    const confirm = page.getByRole('dialog', { name: 'Delete this session?' });
    await confirm.getByText(/The damaged session “rename the invoices by date” with its steps, screenshots and forms will be deleted\./).waitFor();
    // Cancel has the focus, as for any session: Tab reaches Delete.
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Cancel');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await confirm.waitFor({ state: 'detached' });

    await expect.poll(() => list.getByRole('link').count()).toBe(1);
    expect(await list.getByRole('link').textContent()).toMatch(/sort the photos by year/);
    const db = new Database(join(dataDir, 'deskhand.sqlite'), { readonly: true });
    try {
      const rows = (table: string, column: string, id: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE ${column} = ?`).get(id) as { n: number }).n;
      expect([rows('sessions', 'id', ids.damaged), rows('steps', 'session_id', ids.damaged)]).toEqual([0, 0]);
      expect([rows('sessions', 'id', ids.kept), rows('steps', 'session_id', ids.kept)]).toEqual([1, 1]);
    } finally {
      db.close();
    }
    await expect.poll(() => existsSync(join(dataDir, 'screenshots', ids.damaged))).toBe(false);
    expect(existsSync(join(dataDir, 'screenshots', ids.kept, 'step-00000.png'))).toBe(true);
  });
});
