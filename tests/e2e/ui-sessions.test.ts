import { readFileSync } from 'node:fs';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeHostError, startFakeUiHost, type FakeUiHost } from '../support/fake-ui-host';
import { makeSession, makeStep, screenshotRef } from '../support/ui-fixtures';
import { framesAtOnce, openUi, saveScreenshot, type UiPage } from '../support/ui-page';
import { launchChromium } from '../support/web-app';

let browser: Browser;
let host: FakeUiHost;
let ui: UiPage;

const day = 24 * 60 * 60 * 1000;

beforeAll(async () => {
  browser = await launchChromium();
  host = await startFakeUiHost();
  const sessions = [
    makeSession('invoices', { title: 'Rename the invoices by date', request: 'rename the invoices in Downloads by their date', status: 'finished', stepCount: 0, createdAt: Date.now() - 3 * day, updatedAt: Date.now() - 3 * day }),
    makeSession('invoice-mail', { title: 'Email the March invoice to Ana', request: 'email the March invoice to Ana', status: 'failed', createdAt: Date.now() - 2 * day, updatedAt: Date.now() - 2 * day }),
    makeSession('crashed', { title: 'Sort the photos', request: 'sort the photos into folders by year', status: 'interrupted', createdAt: Date.now() - day, updatedAt: Date.now() - day }),
  ];
  for (const session of sessions) host.addSession(session, [makeStep(session.id, 0, { screenshot: screenshotRef(session.id, 'step-1.png') })]);
  ui = await openUi(browser, host);
});

afterAll(async () => {
  await ui?.close();
  await host?.close();
  await browser?.close();
});

describe('past sessions in the browser UI (fake host)', () => {
  it('lists, searches (debounced), exports and deletes sessions', async () => {
    const { page } = ui;
    const list = page.getByRole('list', { name: 'Sessions' });
    await expect.poll(() => list.getByRole('link').count()).toBe(3);
    // Newest first, with status and step count.
    expect(await list.getByRole('link').first().textContent()).toMatch(/Sort the photos.*Interrupted · 1 step/);

    await page.getByRole('searchbox', { name: 'Search sessions' }).pressSequentially('invoice', { delay: 30 });
    await expect.poll(() => list.getByRole('link').count()).toBe(2);
    const searches = host.commands('session.list').filter((command) => command.query !== undefined);
    expect(searches.map((command) => command.query)).toEqual(['invoice']);
    // Said to screen readers too, which do not see the list shrink.
    const found = page.getByRole('navigation', { name: 'Past sessions' }).getByTestId('session-search-summary');
    await expect.poll(() => found.textContent()).toBe('2 sessions match “invoice”.');

    // Export: the JSON the host made, downloaded through a Blob link.
    await page.getByRole('button', { name: 'Actions for Email the March invoice to Ana' }).click();
    const downloading = page.waitForEvent('download');
    await page.getByRole('menuitem', { name: 'Export' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('deskhand-invoice-mail.json');
    const exported = JSON.parse(readFileSync(await download.path(), 'utf8')) as { session: { id: string } };
    expect(exported.session.id).toBe('invoice-mail');
    await host.waitForCommand('session.export');

    // Delete asks first; Cancel keeps it, Delete removes it (the host's event updates the list).
    await page.getByRole('button', { name: 'Actions for Email the March invoice to Ana' }).click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this session?' });
    await confirm.waitFor();
    await saveScreenshot(page, 'delete-session');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect(host.commands('session.delete')).toHaveLength(0);
    await page.getByRole('button', { name: 'Actions for Email the March invoice to Ana' }).click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    // Frames at once (see the rename test): the focus goes on from the row that took the deleted one's place
    // even when a frame comes before React removes the row.
    const framesAsUsual = await framesAtOnce(page);
    await confirm.getByRole('button', { name: 'Delete' }).press('Enter');
    expect((await host.waitForCommand('session.delete')).sessionId).toBe('invoice-mail');
    await expect.poll(() => list.getByRole('link').count()).toBe(1);
    await expect.poll(() => page.evaluate("document.activeElement?.closest('[data-session-id]')?.textContent ?? null")).toMatch(/^Rename the invoices by date/);
    await framesAsUsual();

    await expect.poll(() => found.textContent()).toBe('1 session matches “invoice”.');

    await page.getByRole('searchbox', { name: 'Search sessions' }).fill('');
    await expect.poll(() => list.getByRole('link').count()).toBe(2);
    await expect.poll(() => found.textContent()).toBe('');
    expect(ui.problems).toEqual([]);
  });

  it('offers Resume for an interrupted session, and a follow-up for an ended one', async () => {
    const { page } = ui;
    await page.getByRole('link', { name: /Sort the photos/ }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/^Interrupted/);
    await page.getByText(/Or press Resume to go on from where it was cut off/).waitFor();
    await page.getByRole('button', { name: 'Resume' }).click();
    expect((await host.waitForCommand('session.resume')).sessionId).toBe('crashed');
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/^Running/);
    expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
  });

  it('has a keyboard shortcuts dialog on "?", and dark and light themes that follow the system', async () => {
    const { page } = ui;
    await page.locator('body').click({ position: { x: 700, y: 400 } });
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    await help.getByText('Approve').waitFor();
    await saveScreenshot(page, 'shortcuts');
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
    // "/" goes to the request box.
    await page.keyboard.press('/');
    expect(await page.evaluate('document.activeElement?.id')).toBe('deskhand-request');

    const dark = await openUi(browser, host, { colorScheme: 'dark' });
    await dark.page.getByRole('link', { name: /Rename the invoices/ }).click();
    await dark.page.getByRole('list', { name: 'Trajectory' }).getByRole('listitem').first().waitFor();
    const background = await dark.page.evaluate('getComputedStyle(document.body).backgroundColor');
    expect(background).toBe('rgb(18, 18, 18)');
    await saveScreenshot(dark.page, 'dark-theme');
    await dark.close();
    expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(255, 255, 255)');
  });

  it('a run that ends before the reply to its start, or to its follow-up, shows as ended, not running', async () => {
    const { page } = ui;
    host.end('crashed', 'stopped', 'Stopped by you');
    // Each reply carries the session as it was when the round began; the run ended before the reply left.
    host.handle('session.start', (command) => {
      const view = makeSession('quick', { title: command.request, request: command.request, status: 'running' });
      host.addSession(view);
      host.push({ kind: 'session.started', session: view });
      host.addStep(makeStep(view.id, 0));
      host.end(view.id, 'failed', 'No model key is set');
      return { session: view };
    });
    host.handle('session.continue', (command) => {
      const snapshot = { ...(host.sessions.get(command.sessionId)?.view ?? makeSession(command.sessionId)), status: 'running' as const, roundCount: 2, result: null };
      host.setStatus(command.sessionId, 'running', 'Round 2 started');
      host.addStep(makeStep(command.sessionId, 1, { round: 1 }));
      host.end(command.sessionId, 'finished', 'Read the folder');
      return { session: snapshot };
    });
    const status = () => page.getByRole('status').first().textContent();
    const request = page.getByRole('textbox', { name: 'Request' });

    await page.getByRole('button', { name: 'New' }).click();
    await request.fill('list the folder');
    await request.press('Enter');
    await expect.poll(status).toMatch(/^Failed: No model key is set/);
    await expect.poll(() => page.getByRole('list', { name: 'Trajectory' }).getByRole('listitem').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Stop' }).isDisabled()).toBe(true);

    await request.fill('and read it aloud');
    await request.press('Enter');
    expect((await host.waitForCommand('session.continue')).sessionId).toBe('quick');
    await expect.poll(status).toMatch(/^Finished: Read the folder/);
    await expect.poll(() => page.getByRole('list', { name: 'Trajectory' }).getByRole('listitem').count()).toBe(2);
    expect(await page.getByRole('button', { name: 'Stop' }).isDisabled()).toBe(true);
  });

  it('asks before deleting with the step count as it is now, for a session still taking steps', async () => {
    const { page } = ui;
    await page.getByRole('button', { name: 'New', exact: true }).click();
    await page.getByRole('textbox', { name: 'Request' }).fill('count the photos');
    await page.getByRole('textbox', { name: 'Request' }).press('Enter');
    await host.waitForCommand('session.start', (command) => command.request === 'count the photos');
    const sessionId = [...host.sessions.keys()].at(-1) ?? '';
    host.addStep(makeStep(sessionId, 0));
    await page.getByRole('button', { name: 'Actions for count the photos' }).click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this session?' });
    await confirm.waitFor();
    const stepsNow = () => host.sessions.get(sessionId)?.steps.length ?? 0;
    await confirm.getByText(new RegExp(`with its ${stepsNow() === 1 ? 'step' : `${stepsNow()} steps`},`)).waitFor();
    host.addSteps([makeStep(sessionId, stepsNow()), makeStep(sessionId, stepsNow() + 1)]);
    await confirm.getByText(new RegExp(`with its ${stepsNow()} steps,`)).waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect(host.commands('session.delete').filter((command) => command.sessionId === sessionId)).toHaveLength(0);
  });
});

describe('renaming a session in the browser UI (fake host)', () => {
  it('renames by keyboard from the session\'s menu; another page sees it; Esc cancels; an empty title is refused', async () => {
    const { page } = ui;
    const other = await openUi(browser, host);
    try {
      const list = page.getByRole('list', { name: 'Sessions' });
      const focused = () => page.evaluate<string | null>("document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? null");
      /** Whether the element has the focus (the page's document through globalThis: tests are compiled without the DOM's types). */
      const hasFocus = (locator: Locator): Promise<boolean> =>
        locator.evaluate((element) => element === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement);
      const dialog = page.getByRole('dialog', { name: 'Rename session' });
      const field = dialog.getByRole('textbox', { name: 'Title' });
      /** Opens the dialog from the session's actions button with the keyboard alone (Enter, then Enter on the first item). */
      const openRename = async (title: string): Promise<void> => {
        await page.getByRole('button', { name: `Actions for ${title}` }).focus();
        await page.keyboard.press('Enter');
        const item = page.getByRole('menuitem', { name: 'Rename' });
        await item.waitFor();
        await expect.poll(() => hasFocus(item)).toBe(true);
        await page.keyboard.press('Enter');
        await dialog.waitFor();
        // The field has the focus, its old title selected: typing replaces it.
        await expect.poll(() => hasFocus(field)).toBe(true);
        const selected = await field.evaluate((element) => {
          const input = element as unknown as { value: string; selectionStart: number; selectionEnd: number };
          return input.value.slice(input.selectionStart, input.selectionEnd);
        });
        expect(selected).toBe(title);
      };

      // Enter saves: the host is asked, the list shows the new title, and the focus is back on the session's actions.
      await openRename('Rename the invoices by date');
      await saveScreenshot(page, 'rename-session');
      await page.keyboard.type('  Invoices by date, 2026 ');
      // A frame can come before React commits the closed dialog: the focus must come back all the same.
      const framesAsUsual = await framesAtOnce(page);
      await page.keyboard.press('Enter');
      const renamed = await host.waitForCommand('session.rename');
      // Trimmed before it is sent, as the host would trim it.
      expect(renamed).toMatchObject({ sessionId: 'invoices', title: 'Invoices by date, 2026' });
      await dialog.waitFor({ state: 'detached' });
      await list.getByRole('link', { name: /^Invoices by date, 2026/ }).waitFor();
      expect(await list.getByRole('link', { name: /Rename the invoices by date/ }).count()).toBe(0);
      await expect.poll(focused).toBe('Actions for Invoices by date, 2026');
      await framesAsUsual();

      // Another page connected to the same host sees it by the host's event.
      await other.page.getByRole('list', { name: 'Sessions' }).getByRole('link', { name: /^Invoices by date, 2026/ }).waitFor();

      // Esc cancels: nothing is sent, the title stays, the focus is back where it was.
      await openRename('Invoices by date, 2026');
      await page.keyboard.type('Something else');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      await expect.poll(focused).toBe('Actions for Invoices by date, 2026');
      expect(host.commands('session.rename')).toHaveLength(1);
      // (Polled: the dialog's backdrop hides the list from the accessibility tree until it has faded.)
      await expect.poll(() => list.getByRole('link', { name: /^Invoices by date, 2026/ }).count()).toBe(1);

      // An empty title is refused with a message, the dialog stays open, and nothing changes.
      await openRename('Invoices by date, 2026');
      await page.keyboard.press('Backspace');
      await page.keyboard.type('   ');
      await page.keyboard.press('Enter');
      await dialog.getByRole('alert').filter({ hasText: 'The title is empty.' }).waitFor();
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      await expect.poll(() => hasFocus(field)).toBe(true);
      await saveScreenshot(page, 'rename-session-empty');
      // Typing again clears the message.
      await page.keyboard.type('x');
      expect(await dialog.getByRole('alert').count()).toBe(0);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(host.commands('session.rename')).toHaveLength(1);
      expect(host.sessions.get('invoices')?.view.title).toBe('Invoices by date, 2026');
      await expect.poll(() => list.getByRole('link', { name: /^Invoices by date, 2026/ }).count()).toBe(1);

      // The alert for a session that waits elsewhere names it by its new title.
      host.requestInteraction({ kind: 'questions', id: 'rename-q', sessionId: 'invoices', agent: 'HostAgent', questions: ['Which year?'] });
      await page.getByRole('alert').filter({ hasText: 'Invoices by date, 2026 is waiting for you' }).waitFor();

      // What the host refuses is said in the dialog, which stays open.
      host.handle('session.rename', () => {
        throw new FakeHostError('conflict', 'this session is damaged and cannot be renamed, only deleted (mode: not a mode)');
      });
      await openRename('Invoices by date, 2026');
      await page.keyboard.type('Invoices');
      await page.keyboard.press('Enter');
      await dialog.getByRole('alert').filter({ hasText: 'This session is damaged and cannot be renamed, only deleted (mode: not a mode).' }).waitFor();
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });

      // Deleted in another window while the dialog is open: the dialog closes and says why.
      await openRename('Invoices by date, 2026');
      const framesAsUsualAgain = await framesAtOnce(page);
      host.sessions.delete('invoices');
      host.push({ kind: 'session.deleted', sessionId: 'invoices' });
      await dialog.waitFor({ state: 'detached' });
      await page.getByText('“Invoices by date, 2026” was deleted meanwhile, so it was not renamed.').waitFor();
      await expect.poll(() => page.evaluate("document.activeElement?.closest('[data-session-id]') !== null")).toBe(true);
      await framesAsUsualAgain();
      expect(ui.problems).toEqual([]);
      expect(other.problems).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
