// Found walking the UI with the keyboard alone: a dialog opened from the keyboard is announced by its
// name, which must be its title and nothing else (not "Settings Close", nor a step's tags and its
// Previous / Next / Close buttons), and the sessions panel of a narrow window was a dialog with no name.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { makeSession, makeStep } from '../support/ui-fixtures';
import { uiPerTest } from '../support/ui-page';

const REPORT = makeSession('report', { title: 'Write the report', request: 'write the report', status: 'finished', result: 'Done', createdAt: 1, updatedAt: 1 });

const fresh = uiPerTest({
  prepare: (host) => host.addSession(REPORT, [makeStep(REPORT.id, 0), makeStep(REPORT.id, 1, { status: 'ERROR', error: 'not run', notRun: 'taken-over' })]),
  open: false,
});

/** Whether the one dialog open has exactly this accessible name (what a screen reader says as the focus moves in). */
async function namedExactly(page: Page, name: string): Promise<boolean> {
  return (await page.getByRole('dialog').count()) === 1 && (await page.getByRole('dialog', { name, exact: true }).count()) === 1;
}

describe('dialogs opened from the keyboard are named by their titles alone (fake host)', () => {
  it('Settings (Ctrl+,) and Keyboard shortcuts (?) are named so, and Esc gives the focus back', async () => {
    const { page } = await fresh.open();
    await page.getByRole('button', { name: 'Keyboard shortcuts' }).focus();
    await page.keyboard.press('Control+,');
    await page.getByRole('dialog').waitFor();
    await expect.poll(() => namedExactly(page, 'Settings')).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    await expect.poll(() => page.getByRole('button', { name: 'Keyboard shortcuts' }).evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true);

    await page.keyboard.press('?');
    await page.getByRole('dialog').waitFor();
    await expect.poll(() => namedExactly(page, 'Keyboard shortcuts')).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    expect(fresh.ui.problems).toEqual([]);
  });

  it('the step detail opened with Enter on a step is "Step 2 AppAgent · Text Editor", not its tags and buttons too', async () => {
    const { page } = await fresh.open();
    await page.getByRole('link', { name: /Write the report/ }).focus();
    await page.keyboard.press('Enter');
    const rows = page.getByRole('list', { name: 'Trajectory' }).getByRole('listitem');
    await expect.poll(() => rows.count()).toBe(2);
    await page.keyboard.press('t');
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    await expect.poll(() => namedExactly(page, 'Step 2 AppAgent · Text Editor')).toBe(true);
    // The tag and the buttons are still in the title, only not in its name.
    await page.getByRole('dialog').getByText('Not run: you had the mouse', { exact: true }).waitFor();
    await page.keyboard.press('Alt+ArrowLeft');
    await expect.poll(() => namedExactly(page, 'Step 1 AppAgent · Text Editor')).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    expect(fresh.ui.problems).toEqual([]);
  });

  it('in a narrow window the sessions panel, opened with Enter on Sessions, is the dialog "Sessions"', async () => {
    const { page } = await fresh.open({ width: 700, height: 800 });
    await page.getByRole('button', { name: 'Sessions' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    await expect.poll(() => namedExactly(page, 'Sessions')).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    await expect.poll(() => page.getByRole('button', { name: 'Sessions' }).evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true);
    expect(fresh.ui.problems).toEqual([]);
  });
});
