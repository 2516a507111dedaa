import { describe, expect, it } from 'vitest';
import { FakeHostError } from '../support/fake-ui-host';
import { heldSendApproval, makeSession, makeStep, screenshotRef } from '../support/ui-fixtures';
import { startSessionWithStep, uiPerTest } from '../support/ui-page';

const fresh = uiPerTest();

describe('failures the user must see (review)', () => {
  it('says so when the screenshot of a held step cannot be loaded, instead of leaving it out silently', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    await page.route('**/screenshots/**', (route) => route.fulfill({ status: 404, body: 'gone' }));
    const sessionId = await startSessionWithStep(page, host, 'send the report');
    host.requestInteraction(heldSendApproval(sessionId, screenshotRef(sessionId, 'step-2-annotated.png')));
    const card = page.getByRole('region', { name: 'Approve this action?' });
    await card.waitFor();
    await card.getByText('The screenshot of this action could not be loaded.').waitFor();
    // The host can serve it again: the user asks for it, and sees what they are asked to approve.
    await page.unroute('**/screenshots/**');
    await card.getByRole('button', { name: 'Try again' }).click();
    await card.getByRole('img', { name: 'The screen with the action drawn on it' }).waitFor({ timeout: 5000 });
    expect(await card.getByText('could not be loaded').count()).toBe(0);
    // The keyboard stays in the card when the button goes.
    expect(await card.evaluate((element) => element.contains(element.ownerDocument.activeElement))).toBe(true);
  });

  it('says so, to a screen reader too, each time Try again fails again for a held step’s screenshot', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    await page.route('**/screenshots/**', (route) => route.fulfill({ status: 503, body: 'busy' }));
    const sessionId = await startSessionWithStep(page, host, 'send the report');
    host.requestInteraction(heldSendApproval(sessionId, screenshotRef(sessionId, 'step-2-annotated.png')));
    const card = page.getByRole('region', { name: 'Approve this action?' });
    await card.getByText('The screenshot of this action could not be loaded.').waitFor();
    // What a screen reader hears: text that comes into a polite live region (there before it, as it must be).
    const live = card.locator('[aria-live="polite"]');
    expect(await live.textContent()).toBe('');
    const inCard = '[data-waiting-card] [aria-live="polite"]';
    expect(await page.locator(inCard).count()).toBe(1);
    // Strings: these tests are type-checked without the DOM library (and a locator's evaluate does not call a function given as a string).
    await page.evaluate(`(() => {
      const region = document.querySelector('${inCard}');
      globalThis.deskhandHeard = [];
      new MutationObserver((records) => {
        for (const record of records) for (const node of record.addedNodes) globalThis.deskhandHeard.push((node.textContent ?? '').trim());
      }).observe(region, { childList: true, subtree: true, characterData: true });
    })()`);
    const heard = () => page.evaluate('globalThis.deskhandHeard');
    const retry = card.getByRole('button', { name: 'Try again' });
    await retry.focus();
    await page.keyboard.press('Enter');
    await expect.poll(heard).toEqual(['Tried again: it still could not be loaded.']);
    expect(await live.textContent()).toBe(' Tried again: it still could not be loaded.');
    // The same words again are said again: the second failure is heard too.
    await page.keyboard.press('Enter');
    await expect.poll(heard).toEqual(['Tried again: it still could not be loaded.', 'Tried again: it still could not be loaded.']);
    expect(await retry.evaluate((button) => button === button.ownerDocument.activeElement)).toBe(true);
    // Only the failed loads themselves are in the console.
    expect(ui.problems.filter((problem) => !problem.includes('status of 503'))).toEqual([]);
  });

  it('shows a blackboard that could not be loaded as failed, with a way to try again, not as loading for ever', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    await startSessionWithStep(page, host, 'sort the photos');
    let refuse = true;
    host.handle('blackboard.get', (command) => {
      if (refuse) throw new FakeHostError('internal', 'the database is busy');
      return host.sessions.get(command.sessionId)?.blackboard;
    });
    await page.getByRole('button', { name: 'Blackboard' }).click();
    const drawer = page.getByRole('dialog', { name: 'Blackboard' });
    await drawer.getByText(/could not be loaded/).waitFor();
    expect(await drawer.getByText('Loading…').count()).toBe(0);
    refuse = false;
    await drawer.getByRole('button', { name: 'Try again' }).click();
    await drawer.getByRole('list', { name: 'Requests' }).waitFor();
  });

  it('says what an empty trajectory means: work starting, or a session that ended without steps', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    await page.getByRole('textbox', { name: 'Request' }).fill('list my files');
    await page.getByRole('textbox', { name: 'Request' }).press('Enter');
    await host.waitForCommand('session.start');
    const sessionId = [...host.sessions.keys()].at(-1) ?? '';
    await page.getByText(/first step shows here/).waitFor();
    host.end(sessionId, 'error', 'No model is configured');
    await page.getByText('This session ended without any step.').waitFor();
  });

  it('shows that a session is opening while a big one loads, not a click that seems to do nothing', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    host.addSession(makeSession('big', { title: 'Ten thousand steps', status: 'finished', createdAt: Date.now() - 60_000 }), [makeStep('big', 0)]);
    await page.getByRole('button', { name: 'New' }).click();
    await page.getByRole('searchbox', { name: 'Search sessions' }).fill('Ten');
    const link = page.getByRole('link', { name: /Ten thousand steps/ });
    await link.waitFor();
    let release = (): void => undefined;
    const held = new Promise<void>((done) => (release = done));
    host.handle('session.open', async (command) => {
      await held;
      const session = host.sessions.get(command.sessionId);
      return { session: session?.view, rounds: [], steps: session?.steps ?? [], interactions: [], forms: [] };
    });
    await link.click();
    await expect.poll(() => link.textContent()).toMatch(/Opening…/);
    expect(await link.getAttribute('aria-busy')).toBe('true');
    release();
    await expect.poll(() => page.getByRole('list', { name: 'Trajectory' }).getByRole('listitem').count()).toBe(1);
    await expect.poll(() => link.textContent()).not.toMatch(/Opening…/);
  });
});

