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
  it('a thumbnail that could not be loaded is loaded again once the connection comes back', async () => {
    const { browser, host } = fresh;
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const page = await context.newPage();
      // Every socket goes through to the host; the test keeps the page's end to cut it.
      const pageSides: { close(): Promise<void> }[] = [];
      await page.routeWebSocket(/\/ws\?token=/, (socket) => {
        socket.connectToServer();
        pageSides.push(socket);
      });
      await page.goto(host.url);
      await host.waitForCommand('session.list');
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
      await pageSides.at(-1)?.close();
      const state = page.getByTestId('connection-state');
      await expect.poll(() => state.textContent(), { timeout: 20_000 }).toBe('Connected to Deskhand again');
      await trajectory.getByRole('img', { name: 'Screenshot of step 2' }).waitFor({ timeout: 5_000 });
      expect(await trajectory.getByText('Screenshot unavailable').count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
