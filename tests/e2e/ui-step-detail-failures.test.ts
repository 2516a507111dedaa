import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUiHost, type FakeUiHost } from '../support/fake-ui-host';
import { screenshotRef } from '../support/ui-fixtures';
import { openUi, startSessionWithStep, type UiPage } from '../support/ui-page';
import { launchChromium } from '../support/web-app';

let browser: Browser;
let host: FakeUiHost;
let ui: UiPage;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

beforeEach(async () => {
  host = await startFakeUiHost();
  ui = await openUi(browser, host);
});

afterEach(async () => {
  await ui?.close();
  await host?.close();
});

describe('the step detail when things go wrong', () => {
  it('says the screenshot could not be loaded instead of showing an empty frame', async () => {
    const { page } = ui;
    await page.route('**/screenshots/**', (route) => route.fulfill({ status: 404, body: 'gone' }));
    await startSessionWithStep(page, host, 'tidy the desktop', (sessionId) => ({ screenshot: screenshotRef(sessionId, 'step-1.png') }));
    await page.getByRole('list', { name: 'Trajectory' }).getByRole('listitem').first().click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByText('The screenshot of this step could not be loaded.').waitFor({ timeout: 5000 });
  });

  it('closes when its session is deleted elsewhere, leaves the keyboard in the request box', async () => {
    const { page } = ui;
    const sessionId = await startSessionWithStep(page, host, 'sort the invoices');
    await page.getByRole('list', { name: 'Trajectory' }).getByRole('listitem').first().click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    // Another window deletes the session.
    host.push({ kind: 'session.deleted', sessionId });
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('deskhand-request');
  });
});
