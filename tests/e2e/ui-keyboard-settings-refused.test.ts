// Found walking the UI with the keyboard alone: Save with a wrong value in Settings said why only in an
// alert at the top of the form, scrolled out of sight, and the focus stayed on Save, so nothing seemed
// to happen. Now the keyboard goes to the field marked wrong, or, when it is on another tab, to the
// alert that names it.
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { uiPerTest } from '../support/ui-page';

const fresh = uiPerTest();

const isFocused = (locator: Locator): Promise<boolean> => locator.evaluate((element) => element === element.ownerDocument.activeElement);

/** Whether the element is inside the visible part of the dialog's scrolling content. */
const inView = (locator: Locator): Promise<boolean> =>
  locator.evaluate((element) => {
    const box = element.getBoundingClientRect();
    const content = element.closest('.MuiDialogContent-root')?.getBoundingClientRect();
    return content !== undefined && box.top >= content.top - 1 && box.bottom <= content.bottom + 1;
  });

async function typeWrongTimeout(): Promise<Locator> {
  const { page } = fresh.ui;
  await page.keyboard.press('Control+,');
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  const timeout = dialog.getByRole('spinbutton', { name: 'Timeout (ms)' }).first();
  await timeout.waitFor();
  await timeout.focus();
  await page.keyboard.press('Control+a');
  await page.keyboard.type('-5');
  return dialog;
}

describe('a refused Save in Settings takes the keyboard to what to fix (fake host)', () => {
  it('to the field marked wrong, on screen', async () => {
    const { page } = fresh.ui;
    const dialog = await typeWrongTimeout();
    await dialog.getByRole('button', { name: 'Save' }).focus();
    await page.keyboard.press('Enter');
    await dialog.getByRole('alert').filter({ hasText: 'Not saved' }).waitFor();
    const timeout = dialog.getByRole('spinbutton', { name: 'Timeout (ms)' }).first();
    await expect.poll(() => isFocused(timeout)).toBe(true);
    expect(await timeout.getAttribute('aria-invalid')).toBe('true');
    expect(await inView(timeout)).toBe(true);
    expect(fresh.host.commands('settings.set')).toHaveLength(0);
    expect(fresh.ui.problems).toEqual([]);
  });

  it('to the alert naming it when the field is on another tab', async () => {
    const { page } = fresh.ui;
    const dialog = await typeWrongTimeout();
    await dialog.getByRole('tab', { name: 'Limits' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => dialog.getByRole('spinbutton', { name: 'Timeout (ms)' }).count()).toBe(0);
    await dialog.getByRole('button', { name: 'Save' }).focus();
    await page.keyboard.press('Enter');
    const alert = dialog.getByRole('alert').filter({ hasText: 'Not saved' });
    await alert.waitFor();
    await expect.poll(() => isFocused(alert)).toBe(true);
    expect(await alert.textContent()).toContain('Timeout (ms)');
    expect(await inView(alert)).toBe(true);
    expect(fresh.host.commands('settings.set')).toHaveLength(0);
    expect(fresh.ui.problems).toEqual([]);
  });
});
