// A step whose action did not run says why in the trajectory, with a tag in words: rejected by the user,
// not run because the run was paused, refused by the safety rule, not run because the user had the mouse, or
// approved and then stopped before it ran. Opened from the sessions list, so
// the tags come from the stored steps, as after reopening a session.
import { describe, expect, it } from 'vitest';
import { makeSession, makeStep } from '../support/ui-fixtures';
import { saveScreenshot, uiPerTest } from '../support/ui-page';

const CLEANUP = makeSession('cleanup', { title: 'Clean up the downloads', request: 'clean up the downloads', status: 'finished', result: 'Done', createdAt: 1, updatedAt: 1 });

const STEPS = [
  makeStep(CLEANUP.id, 0, { agent: 'ShellAgent', target: null, actionText: "Run 'rm -r old'", approvedBy: null, result: 'Rejected by the user; the action did not run', notRun: 'rejected' }),
  makeStep(CLEANUP.id, 1, { actionText: "Click 'OK' at (10, 20)", approvedBy: null, result: 'Not run: the run was paused before this action', notRun: 'paused' }),
  makeStep(CLEANUP.id, 2, { agent: 'ShellAgent', target: null, status: 'ERROR', actionText: "Run 'rm -rf /'", approvedBy: null, result: null, error: 'refused by the safety policy: denied', notRun: 'refused' }),
  makeStep(CLEANUP.id, 3, { actionText: "Click 'Save' at (30, 40)", status: 'ERROR', approvedBy: null, result: null, error: 'not run: you have taken the mouse', notRun: 'taken-over' }),
  makeStep(CLEANUP.id, 4, { agent: 'ShellAgent', target: null, status: 'ERROR', actionText: "Run 'rm old.log'", approvedBy: 'user', result: null, error: 'not run: the run was stopped', notRun: 'stopped' }),
  makeStep(CLEANUP.id, 5, { actionText: "Run 'ls'", approvedBy: 'user', result: 'a.txt' }),
];

const fresh = uiPerTest({ prepare: (host) => host.addSession(CLEANUP, STEPS) });

describe('the trajectory tags a step whose action did not run (fake host)', () => {
  it('says "Rejected by you", "Not run: paused", "Refused by the safety rule", "Not run: you had the mouse" or "Not run: stopped" in text, on the card and in the detail, and nothing on a step that ran', async () => {
    const { page } = fresh.ui;
    await page.getByRole('link', { name: /Clean up the downloads/ }).click();
    const items = page.getByRole('list', { name: 'Trajectory' }).getByRole('listitem');
    await expect.poll(() => items.count()).toBe(6);

    const tags = ['Rejected by you', 'Not run: paused', 'Refused by the safety rule', 'Not run: you had the mouse', 'Not run: stopped'];
    for (const [index, tag] of tags.entries()) {
      const card = items.nth(index);
      await card.getByText(tag, { exact: true }).waitFor({ timeout: 5000 });
      // Said in words, with more on hover; not a colour alone.
      expect(await card.getByText(tag, { exact: true }).isVisible()).toBe(true);
      for (const other of tags.filter((t) => t !== tag)) expect(await card.getByText(other, { exact: true }).count()).toBe(0);
    }
    const ran = items.nth(5);
    expect(await ran.getByText('approved by you').count()).toBe(1);
    for (const tag of tags) expect(await ran.getByText(tag, { exact: true }).count()).toBe(0);
    expect(await items.first().locator('[title]', { hasText: 'Rejected by you' }).getAttribute('title')).toMatch(/^You rejected this action/);
    await saveScreenshot(page, 'trajectory-not-run-tags');

    // The step detail carries the tag too.
    await items.first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Rejected by you', { exact: true }).waitFor({ timeout: 5000 });
    await page.keyboard.press('Alt+ArrowRight');
    await dialog.getByText('Not run: paused', { exact: true }).waitFor({ timeout: 5000 });
    expect(await dialog.getByText('Rejected by you', { exact: true }).count()).toBe(0);
    await page.keyboard.press('Alt+ArrowRight');
    await page.keyboard.press('Alt+ArrowRight');
    await dialog.getByText('Not run: you had the mouse', { exact: true }).waitFor({ timeout: 5000 });
    await page.keyboard.press('Alt+ArrowRight');
    await dialog.getByText('Not run: stopped', { exact: true }).waitFor({ timeout: 5000 });
    expect(await dialog.locator('[title]', { hasText: 'Not run: stopped' }).getAttribute('title')).toMatch(/^Stop came before this action ran/);
    expect(fresh.ui.problems).toEqual([]);
  });
});
