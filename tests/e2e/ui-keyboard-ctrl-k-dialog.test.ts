// Ctrl+K (search sessions) while a dialog is open: a modal dialog keeps the keyboard (what is behind it
// is inert), and closing it for a shortcut would drop what it holds (Settings not saved, a title being
// typed). So the key does nothing there: the dialog stays, with the focus where it was, and in a narrow
// window the sessions panel does not open over it. Once the dialog is closed, Ctrl+K works as ever.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { makeSession, makeStep } from '../support/ui-fixtures';
import { uiPerTest } from '../support/ui-page';

const REPORT = makeSession('report', { title: 'Write the report', request: 'write the report', status: 'finished', result: 'Done', createdAt: 1, updatedAt: 1 });

const fresh = uiPerTest({ prepare: (host) => host.addSession(REPORT, [makeStep(REPORT.id, 0)]), open: false });

function focusInDialog(page: Page, name: string): Promise<boolean> {
  return page.getByRole('dialog', { name, exact: true }).evaluate((dialog) => dialog.contains(dialog.ownerDocument.activeElement));
}

describe('Ctrl+K leaves an open dialog alone (fake host)', () => {
  for (const [label, size] of [
    ['a wide window', { width: 1440, height: 900 }],
    ['a narrow window', { width: 700, height: 800 }],
  ] as const) {
    it(`in ${label}: Settings stays open with the focus in it; after Esc, Ctrl+K goes to the search`, async () => {
      const { page } = await fresh.open(size);
      await page.keyboard.press('Control+,');
      await page.getByRole('dialog', { name: 'Settings', exact: true }).waitFor();
      await expect.poll(() => focusInDialog(page, 'Settings')).toBe(true);
      await page.keyboard.press('Control+k');
      await page.waitForTimeout(400);
      expect(await page.getByRole('dialog').count()).toBe(1);
      expect(await focusInDialog(page, 'Settings')).toBe(true);
      expect(await page.evaluate<string | undefined>('document.activeElement?.id')).not.toBe('deskhand-session-search');

      await page.keyboard.press('Escape');
      await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
      await page.keyboard.press('Control+k');
      await expect.poll(() => page.evaluate<string | undefined>('document.activeElement?.id')).toBe('deskhand-session-search');
      expect(fresh.ui.problems).toEqual([]);
    });
  }
});

// Ctrl+, (Settings) in a dialog opened Settings over it: two modals, one on the other. It is inert there
// too; Ctrl+. (Stop) is not, being how a run is halted whatever is open.
describe('Ctrl+, leaves an open dialog alone (fake host)', () => {
  it('the Keyboard shortcuts dialog stays the only one with the focus in it; after Esc, Ctrl+, opens Settings', async () => {
    const { page } = await fresh.open({ width: 1440, height: 900 });
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts', exact: true }).waitFor();
    await expect.poll(() => focusInDialog(page, 'Keyboard shortcuts')).toBe(true);
    await page.keyboard.press('Control+,');
    await page.waitForTimeout(400);
    expect(await page.getByRole('dialog').count()).toBe(1);
    expect(await focusInDialog(page, 'Keyboard shortcuts')).toBe(true);

    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    await page.keyboard.press('Control+,');
    await page.getByRole('dialog', { name: 'Settings', exact: true }).waitFor();
    expect(await page.getByRole('dialog').count()).toBe(1);
    expect(fresh.ui.problems).toEqual([]);
  });
});
