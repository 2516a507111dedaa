import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { heldSendApproval, makeSession, makeStep } from '../support/ui-fixtures';
import { startSessionWithStep, uiPerTest } from '../support/ui-page';

// Two sessions finished before the UI opens, to look at meanwhile.
const fresh = uiPerTest({
  prepare(host) {
    host.addSession(makeSession('older', { title: 'Sort the photos', status: 'finished', createdAt: Date.now() - 60_000 }), [makeStep('older', 0)]);
    host.addSession(makeSession('spare', { title: 'Rename the invoices', status: 'finished', createdAt: Date.now() - 120_000 }), [makeStep('spare', 0)]);
  },
});

/** What has the keyboard focus: 'body', or the element's tag and name (a string: no DOM library here). */
const isFocused = async (page: Page): Promise<string> =>
  (await page.evaluate(`(() => {
    const active = document.activeElement;
    return active === null || active === document.body ? 'body' : active.tagName + ' ' + (active.getAttribute('aria-label') ?? active.textContent ?? '');
  })()`)) as string;

describe('nothing typed is lost by accident (review)', () => {
  it('keeps a half-written approval note and half-filled answers when another session is looked at meanwhile', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    const sessionId = await startSessionWithStep(page, host, 'send the newsletter');
    host.requestInteraction({ kind: 'questions', id: 'q1', sessionId, agent: 'HostAgent', questions: ['Which list?', 'Which subject?'] });
    host.requestInteraction(heldSendApproval(sessionId));
    const note = page.getByRole('textbox', { name: 'Note for the agent (optional)' });
    const list = page.getByRole('textbox', { name: 'Which list?' });
    await note.fill('Only after the subject is fixed');
    await list.fill('Customers 2024');
    // JSONForms passes a value on after a short pause.
    await page.waitForTimeout(400);

    await page.getByRole('link', { name: /Sort the photos/ }).click();
    await host.waitForCommand('session.open', (command) => command.sessionId === 'older');
    await expect.poll(() => note.count()).toBe(0);
    await page.getByRole('link', { name: /send the newsletter/ }).click();
    await note.waitFor();
    expect(await note.inputValue()).toBe('Only after the subject is fixed');
    expect(await list.inputValue()).toBe('Customers 2024');

    // What was sent is not kept: the next card of the same kind starts empty.
    await page.getByRole('textbox', { name: 'Which subject?' }).fill('Spring news');
    await page.getByRole('button', { name: 'Submit answers' }).click();
    expect((await host.waitForCommand('interaction.answer')).answers).toEqual(['Customers 2024', 'Spring news']);
    expect(ui.problems).toEqual([]);
  });

  it('does not throw away edited settings on a stray click outside the dialog', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    const field = dialog.getByRole('textbox').first();
    await field.waitFor();
    await field.fill('edited by hand');
    await page.waitForTimeout(400);
    await page.mouse.click(5, 5);
    await page.waitForTimeout(400);
    expect(await dialog.count()).toBe(1);
    expect(await field.inputValue()).toBe('edited by hand');
    expect(host.commands('settings.set')).toHaveLength(0);
    // Closing on purpose (the Close button) still closes.
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
  });

  it('asks before Esc throws away edited settings, and closes at once when nothing was changed', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    const field = dialog.getByRole('textbox').first();
    await field.waitFor();
    // Unchanged: Esc closes.
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);

    await page.getByRole('button', { name: 'Settings' }).click();
    await field.waitFor();
    await field.fill('edited by hand');
    await page.waitForTimeout(400);
    await page.keyboard.press('Escape');
    const ask = page.getByRole('alertdialog', { name: 'Discard your changes?' });
    await ask.waitFor();
    // Keep editing (focused first): back in the form, nothing lost.
    await page.keyboard.press('Enter');
    await expect.poll(() => ask.count()).toBe(0);
    expect(await field.inputValue()).toBe('edited by hand');
    await page.keyboard.press('Escape');
    await ask.getByRole('button', { name: 'Discard' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    expect(host.commands('settings.set')).toHaveLength(0);
  });

  it('asks before Esc throws away a setting typed a moment before (while the field still holds the keys back)', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    const field = dialog.getByRole('textbox').first();
    await field.waitFor();
    // No pause: Esc comes within the field's 300 ms debounce, before the form has the new value.
    await field.press('End');
    await field.press('x');
    await page.keyboard.press('Escape');
    const ask = page.getByRole('alertdialog', { name: 'Discard your changes?' });
    await ask.waitFor({ timeout: 3_000 });
    await ask.getByRole('button', { name: 'Keep editing' }).click();
    expect(await field.inputValue()).toMatch(/x$/);
    // Put back as it was: once the field has passed it on, nothing is changed and Esc closes at once.
    await field.press('Backspace');
    await page.waitForTimeout(400);
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    expect(host.commands('settings.set')).toHaveLength(0);
    expect(ui.problems).toEqual([]);
  });

  it('puts the keyboard focus somewhere sensible after the delete dialog, cancelled or confirmed', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    const actions = page.getByRole('button', { name: 'Actions for Sort the photos' });
    await actions.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('menuitem', { name: 'Delete' }).waitFor();
    // Delete is the menu's last item (after Rename and Export).
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    const confirm = page.getByRole('dialog', { name: 'Delete this session?' });
    await confirm.waitFor();
    // Cancel (focused first) brings the focus back to the session's actions button.
    await page.keyboard.press('Enter');
    await expect.poll(() => confirm.count()).toBe(0);
    await expect.poll(() => isFocused(page)).toBe('BUTTON Actions for Sort the photos');

    await page.keyboard.press('Enter');
    await page.getByRole('menuitem', { name: 'Delete' }).waitFor();
    // Delete is the menu's last item (after Rename and Export).
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await confirm.getByRole('button', { name: 'Delete' }).focus();
    await page.keyboard.press('Enter');
    await host.waitForCommand('session.delete');
    await expect.poll(() => page.getByRole('link', { name: /Sort the photos/ }).count()).toBe(0);
    // The session (and its button) are gone: the focus goes to the next session in the list, not to <body>.
    await expect.poll(() => isFocused(page)).toMatch(/Rename the invoices/);
    expect(ui.problems).toEqual([]);
  });
});
