import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src-main/memory/database';
import { SessionStore } from '../../src-main/memory/session-store';
import { damagePage, pagesOf } from '../support/damage-db';
import { newStep } from '../support/store-fixtures';
import { saveScreenshot } from '../support/ui-page';
import { launchChromium, startWebApp, type WebApp } from '../support/web-app';

// Browser mode against the real host (the built app), started on a database whose sessions page a disk
// fault has damaged: it starts, the sessions are back, and the sidebar says what happened.

let browser: Browser;
let app: WebApp;
let page: Page;
let dataDir = '';

/** Two ended sessions of three steps each, then the page holding their rows damaged. */
function seed(): void {
  const file = join(dataDir, 'deskhand.sqlite');
  const db = openDatabase(file);
  const store = new SessionStore(db);
  for (const request of ['sort the photos by year', 'rename the invoices by date']) {
    const session = store.createSession(request, 'desktop');
    const round = store.startRound(session.id, request);
    for (let i = 0; i < 3; i++) store.appendStep(session.id, newStep({ actionText: `step ${i} of ${request}` }));
    store.endRound(session.id, round, 'finished', 'done');
    store.setStatus(session.id, 'finished', 'done');
  }
  db.close();
  const raw = new Database(file);
  const [sessionsPage] = pagesOf(raw, 'sessions');
  raw.close();
  damagePage(file, sessionsPage!.pageno);
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'deskhand-ui-repair-'));
  seed();
  browser = await launchChromium();
  app = await startWebApp({ ...process.env, DESKHAND_DATA_DIR: dataDir, OPENAI_API_KEY: 'unused', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', DISPLAY: '' });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(app.url);
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('a database repaired at start-up, in the browser UI (real host)', () => {
  it('lists the sessions read back, says what was repaired and where the damaged file is, and is dismissed from the keyboard', async () => {
    const list = page.getByRole('list', { name: 'Sessions' });
    await expect.poll(() => list.getByRole('link').count(), { timeout: 20_000 }).toBe(2);
    const notice = page.getByRole('region', { name: 'Database repaired' });
    await notice.waitFor();
    const aside = readdirSync(dataDir).find((name) => /^deskhand\.sqlite\.damaged-[\dT-]+Z$/.test(name));
    expect(aside).toBeDefined();
    expect(await notice.textContent()).toMatch(
      new RegExp(
        '^Database repaired' +
          'Deskhand found its database damaged at start-up and set it aside\\. 2 sessions and 6 steps were read back into a new one ' +
          '\\(2 sessions rebuilt from their steps\\)\\. Parts of it could not be read, and what was on them is missing\\. ' +
          `The damaged file is kept as ${join(dataDir, aside!).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} ` +
          "\\(SQLite's integrity check found: .+\\)\\.$",
      ),
    );
    await saveScreenshot(page, 'database-repaired');

    // A rebuilt session opens with its steps.
    await list.getByRole('link', { name: /sort the photos by year/ }).click();
    await expect.poll(() => page.getByRole('list', { name: 'Trajectory' }).getByRole('listitem').count(), { timeout: 10_000 }).toBe(3);

    // Keyboard: its Dismiss button is reachable and closes it.
    const dismiss = notice.getByRole('button', { name: 'Dismiss' });
    await dismiss.focus();
    await page.keyboard.press('Enter');
    await notice.waitFor({ state: 'detached' });
    expect(existsSync(join(dataDir, aside!))).toBe(true);
  });
});
