import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { makeStep, screenshotRef } from '../support/ui-fixtures';
import { startSessionWithStep, uiPerTest } from '../support/ui-page';

const fresh = uiPerTest();

describe('the step detail when things go wrong', () => {
  it('says the screenshot could not be loaded instead of showing an empty frame', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    await page.route('**/screenshots/**', (route) => route.fulfill({ status: 404, body: 'gone' }));
    await startSessionWithStep(page, host, 'tidy the desktop', (sessionId) => ({ screenshot: screenshotRef(sessionId, 'step-1.png') }));
    await page.getByRole('list', { name: 'Trajectory' }).getByRole('listitem').first().click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByText('The screenshot of this step could not be loaded.').waitFor({ timeout: 5000 });
  });

  it('closes when its session is deleted elsewhere, leaves the keyboard in the request box', async () => {
    const { host, ui } = fresh;
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

describe('screenshots while the host is out of reach', () => {
  /** The UI in a context of its own whose connection the test can cut (each socket's page end is kept). */
  async function openCuttable(): Promise<{ page: Page; context: BrowserContext; cut(): Promise<void> }> {
    const { browser, host } = fresh;
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const pageSides: { close(): Promise<void> }[] = [];
    await page.routeWebSocket(/\/ws\?token=/, (socket) => {
      socket.connectToServer();
      pageSides.push(socket);
    });
    await page.goto(host.url);
    await host.waitForCommand('session.list');
    const cut = async (): Promise<void> => {
      await pageSides.at(-1)?.close();
      const state = page.getByTestId('connection-state');
      await expect.poll(() => state.textContent(), { timeout: 20_000 }).toBe('Connected to Deskhand again');
    };
    return { page, context, cut };
  }

  it('a thumbnail that could not be loaded is loaded again once the connection comes back', async () => {
    const { host } = fresh;
    const { page, context, cut } = await openCuttable();
    try {
      const sessionId = await startSessionWithStep(page, host, 'sort the photos');
      // The host cannot serve the picture for a moment, and then the connection drops.
      let refused = 0;
      await page.route('**/screenshots/**', (route) => {
        refused++;
        return route.fulfill({ status: 503, body: 'busy' });
      });
      host.addStep(makeStep(sessionId, 1, { screenshot: screenshotRef(sessionId, 'step-2.png') }));
      const trajectory = page.getByRole('list', { name: 'Trajectory' });
      await trajectory.getByText('Screenshot unavailable').waitFor();
      // Asked again when the connection comes back, not at once while nothing has changed.
      await page.waitForTimeout(500);
      expect(refused).toBe(1);
      await page.unroute('**/screenshots/**');
      await cut();
      await trajectory.getByRole('img', { name: 'Screenshot of step 2' }).waitFor({ timeout: 5_000 });
      expect(await trajectory.getByText('Screenshot unavailable').count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('a screenshot whose load after the reconnect fails too can be tried again from the step detail, by keyboard', async () => {
    const { host } = fresh;
    const { page, context, cut } = await openCuttable();
    try {
      let refused = 0;
      await page.route('**/screenshots/**', (route) => {
        refused++;
        return route.fulfill({ status: 503, body: 'busy' });
      });
      await startSessionWithStep(page, host, 'sort the photos', (sessionId) => ({ screenshot: screenshotRef(sessionId, 'step-1.png') }));
      const trajectory = page.getByRole('list', { name: 'Trajectory' });
      await trajectory.getByText('Screenshot unavailable').waitFor();
      await trajectory.getByRole('listitem').first().click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText('The screenshot of this step could not be loaded.').waitFor({ timeout: 5000 });
      // The connection drops and comes back while the host still cannot serve it: asked again, refused again.
      const before = refused;
      await cut();
      await expect.poll(() => refused).toBeGreaterThan(before);
      await page.waitForTimeout(300);
      await dialog.getByText('The screenshot of this step could not be loaded.').waitFor();

      // The host can serve it now; nothing else will change: the user asks for it again, by keyboard.
      await page.unroute('**/screenshots/**');
      const retry = dialog.getByRole('button', { name: 'Try again' });
      await retry.waitFor({ timeout: 2000 });
      let reached = false;
      for (let presses = 0; presses < 30 && !reached; presses++) {
        await page.keyboard.press('Tab');
        reached = await retry.evaluate((button) => button === button.ownerDocument.activeElement);
      }
      expect(reached).toBe(true);
      await page.keyboard.press('Enter');
      await dialog.getByRole('img', { name: /Screenshot of step 1/ }).waitFor({ timeout: 5000 });
      expect(await dialog.getByText('could not be loaded').count()).toBe(0);
      // The keyboard is not dropped on the page when the button goes: it lands on the picture's frame.
      expect(await page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe('Screenshot of step 1, scrollable');
      // The thumbnail of the same picture comes back with it.
      await page.keyboard.press('Escape');
      await trajectory.getByRole('img', { name: 'Screenshot of step 1' }).waitFor({ timeout: 5000 });
    } finally {
      await context.close();
    }
  });
});
