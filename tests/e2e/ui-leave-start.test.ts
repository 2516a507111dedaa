// Going elsewhere (New, or another session) while a new request is starting: the start's answer lists
// the new session but leaves on screen what the user chose.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { FakeUiHost } from '../support/fake-ui-host';
import { makeSession, makeStep } from '../support/ui-fixtures';
import { uiPerTest } from '../support/ui-page';

const PHOTOS = makeSession('photos', { title: 'Sort the photos', request: 'sort the photos by year', status: 'finished', result: 'Sorted 40 photos', createdAt: 1, updatedAt: 1 });

const fresh = uiPerTest({ prepare: (host) => host.addSession(PHOTOS, [makeStep(PHOTOS.id, 0)]) });

/**
 * Holds the host's handling of `session.start` until `release` is called; then, as the host does, the
 * session is made, its `session.started` sent, and the reply sent after it.
 */
function holdStart(host: FakeUiHost): { release(): void } {
  let release = (): void => undefined;
  const released = new Promise<void>((done) => {
    release = done;
  });
  host.handle('session.start', async (command) => {
    await released;
    const view = makeSession('counted', { title: command.request, request: command.request, status: 'running' });
    host.addSession(view);
    host.push({ kind: 'session.started', session: view });
    return { session: view };
  });
  return { release: () => release() };
}

/** Types `request` and sends it with Enter; resolves once the host has the `session.start`. */
async function send(page: Page, host: FakeUiHost, request: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Request' }).fill(request);
  await page.getByRole('textbox', { name: 'Request' }).press('Enter');
  await host.waitForCommand('session.start');
}

function requestHint(page: Page): Promise<string> {
  return page
    .getByRole('textbox', { name: 'Request' })
    .evaluate((element) => element.ownerDocument.getElementById(element.getAttribute('aria-describedby') ?? '')?.textContent ?? '');
}

const status = (page: Page): Promise<string | null> => page.getByRole('status').first().textContent();
const BUSY_WITH_NEW = 'Deskhand is working on “count the files” (one session at a time): wait, or Stop it, before sending a request.';

describe('going elsewhere while a request is starting (fake host)', () => {
  it('"New" pressed while it starts stays on "New": the new session is listed, running, and opens from the list', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    const start = holdStart(host);
    await send(page, host, 'count the files');
    await expect.poll(() => status(page)).toBe('Starting…');

    await page.getByRole('button', { name: 'New', exact: true }).click();
    // Not "Starting…": what starts will not show here.
    await expect.poll(() => status(page)).toBe('Ready');
    expect(await requestHint(page)).toBe('Sending…');
    start.release();

    // The answer has come once the hint names the new session: it holds Send back, from "New".
    await expect.poll(() => requestHint(page)).toBe(BUSY_WITH_NEW);
    // Not "Ready": Send waits for the session that runs, and Pause and Stop act on it.
    expect(await status(page)).toBe('“count the files” is running');
    await page.getByText('Type a request below to start.').waitFor();
    const listed = page.getByRole('list', { name: 'Sessions' }).getByRole('link', { name: /count the files/ });
    expect(await listed.textContent()).toMatch(/Running/);
    expect(await listed.getAttribute('aria-current')).toBeNull();

    await listed.click();
    await expect.poll(() => status(page)).toMatch(/^Running/);
    expect(ui.problems).toEqual([]);
  });

  it('a session opened from the list with the keyboard while it starts stays on screen', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    const start = holdStart(host);
    await send(page, host, 'count the files');

    await page.getByRole('link', { name: /Sort the photos/ }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => status(page)).toBe('Finished: Sorted 40 photos');
    start.release();

    await expect.poll(() => requestHint(page)).toBe(BUSY_WITH_NEW);
    expect(await status(page)).toBe('Finished: Sorted 40 photos');
    expect(await page.getByRole('link', { name: /Sort the photos/ }).getAttribute('aria-current')).toBe('page');
    expect(await page.getByRole('list', { name: 'Trajectory' }).getByRole('listitem').count()).toBe(1);
    expect(await page.getByRole('list', { name: 'Sessions' }).getByRole('link', { name: /count the files/ }).textContent()).toMatch(/Running/);
    expect(ui.problems).toEqual([]);
  });
  it('a page opened (or reloaded) while a session runs, waits or is paused says so on "New", not "Ready"', async () => {
    const { host } = fresh;
    const counting = makeSession('counting', { title: 'Count the files', request: 'count the files', status: 'running' });
    host.addSession(counting, [makeStep(counting.id, 0)]);
    const { page } = await fresh.open();
    await expect.poll(() => status(page)).toBe('“Count the files” is running');
    expect(await page.getByRole('button', { name: 'Stop' }).isEnabled()).toBe(true);
    host.setStatus(counting.id, 'paused', 'Paused by you', 'user');
    await expect.poll(() => status(page)).toBe('“Count the files” is paused');
    host.setStatus(counting.id, 'finished', 'Counted 12 files');
    await expect.poll(() => status(page)).toBe('Ready');
  });
});
