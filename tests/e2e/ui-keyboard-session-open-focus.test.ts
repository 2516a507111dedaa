// Found walking the UI with the keyboard alone: a session opened from the sessions list left the focus
// on the list, and reaching what was opened took a Tab through every session, the header and the status
// bar. Opened with Enter or a click, the focus goes to what the session waits for (its question or
// approval), else to its newest step, else (no step yet) to the request box; Tab moving through the list
// opens nothing and moves nothing, and a focus the user moves elsewhere while a session loads stays there.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { makeSession, makeStep } from '../support/ui-fixtures';
import { uiPerTest } from '../support/ui-page';

const REPORT = makeSession('report', { title: 'Write the report', request: 'write the report', status: 'finished', result: 'Done', createdAt: 3, updatedAt: 3 });
const EMPTY = makeSession('empty', { title: 'Check the mail', request: 'check the mail', status: 'failed', stepCount: 0, createdAt: 2, updatedAt: 2 });
const ASKING = makeSession('asking', { title: 'Sort the photos', request: 'sort the photos', status: 'running', createdAt: 1, updatedAt: 1 });

const fresh = uiPerTest({
  prepare: (host) => {
    host.addSession(REPORT, [makeStep(REPORT.id, 0), makeStep(REPORT.id, 1), makeStep(REPORT.id, 2)]);
    host.addSession(EMPTY, []);
    host.addSession(ASKING, [makeStep(ASKING.id, 0)]);
  },
  open: false,
});

/** Where the focus is: a step row's index, 'request', a waiting card, a session link's id, or what else. */
function focusIsOn(page: Page): Promise<string> {
  return page.evaluate<string>(`(() => {
    const active = document.activeElement;
    if (!(active instanceof HTMLElement) || active === document.body) return 'body';
    if (active.closest('[role="list"][aria-label="Trajectory"]') && active.dataset.index !== undefined) return 'step ' + active.dataset.index;
    if (active.id === 'deskhand-request') return 'request';
    if (active.id === 'deskhand-session-search') return 'search';
    if (active.closest('[data-waiting-card]')) return 'waiting card';
    if (active.dataset.sessionId !== undefined) return 'session ' + active.dataset.sessionId;
    return active.tagName + ' ' + (active.getAttribute('aria-label') ?? active.textContent ?? '');
  })()`);
}

describe('opening a session from the sessions list moves the focus to it (fake host)', () => {
  it('Enter on a session focuses its newest step; Tab through the list opens nothing; a click does the same as Enter', async () => {
    const { page } = await fresh.open();
    const list = page.getByRole('list', { name: 'Sessions' });
    await list.getByRole('link', { name: /Write the report/ }).focus();
    // Moving through the list with Tab opens nothing and keeps the focus in the list.
    await page.keyboard.press('Tab'); // its actions button
    await page.keyboard.press('Tab');
    await expect.poll(() => focusIsOn(page)).toBe('session empty');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    await expect.poll(() => focusIsOn(page)).toBe('session report');
    expect(fresh.host.commands('session.open')).toHaveLength(0);

    await page.keyboard.press('Enter');
    await expect.poll(() => focusIsOn(page)).toBe('step 2');
    // The keys of the trajectory work from there at once.
    await page.keyboard.press('ArrowUp');
    await expect.poll(() => focusIsOn(page)).toBe('step 1');

    // A session without steps: the request box (for a follow-up).
    await list.getByRole('link', { name: /Check the mail/ }).click();
    await expect.poll(() => focusIsOn(page)).toBe('request');
    expect(fresh.ui.problems).toEqual([]);
  });

  it('a session that waits for an answer takes the focus to its question', async () => {
    const { page } = await fresh.open();
    fresh.host.requestInteraction({ kind: 'questions', id: 'q1', sessionId: ASKING.id, agent: 'HostAgent', questions: ['Which year?'] });
    await page.getByRole('link', { name: /Sort the photos/ }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => focusIsOn(page)).toBe('waiting card');
    expect(fresh.ui.problems).toEqual([]);
  });

  it('a focus moved elsewhere while the session loads stays there', async () => {
    const { page } = await fresh.open();
    let release = (): void => undefined;
    const held = new Promise<void>((done) => (release = done));
    fresh.host.handle('session.open', async (command) => {
      await held;
      const session = fresh.host.sessions.get(command.sessionId);
      return { session: session?.view, rounds: [], steps: session?.steps ?? [], interactions: [], forms: [] };
    });
    await page.getByRole('link', { name: /Write the report/ }).focus();
    await page.keyboard.press('Enter');
    await fresh.host.waitForCommand('session.open');
    await page.getByRole('searchbox', { name: 'Search sessions' }).focus();
    await page.keyboard.type('mail');
    release();
    await expect.poll(() => page.getByRole('list', { name: 'Trajectory' }).getByRole('listitem').count()).toBe(3);
    await page.waitForTimeout(200);
    expect(await focusIsOn(page)).toBe('search');
    expect(fresh.ui.problems).toEqual([]);
  });

  it('in a narrow window the sessions panel closes and the focus goes to the session, not back to the Sessions button', async () => {
    const { page } = await fresh.open({ width: 700, height: 800 });
    await page.getByRole('button', { name: 'Sessions' }).click();
    const panel = page.getByRole('dialog', { name: 'Sessions' });
    await panel.waitFor();
    await panel.getByRole('link', { name: /Write the report/ }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    await expect.poll(() => focusIsOn(page)).toBe('step 2');
    expect(fresh.ui.problems).toEqual([]);
  });
});
