// Found walking the UI with the keyboard alone: with a step held for approval, Esc pressed twice to
// close a dialog or the blackboard (to be sure, or out of habit) rejected the held step with the
// second press, though the user had not looked at its card. An Esc within a moment of one that closed
// a dialog now rejects nothing; a deliberate Esc later still rejects.
import { describe, expect, it } from 'vitest';
import { makeStep } from '../support/ui-fixtures';
import { startSessionWithStep, uiPerTest } from '../support/ui-page';

const fresh = uiPerTest();

describe('Esc pressed twice to close a dialog rejects no held step (fake host)', () => {
  it('closing the shortcuts dialog, the blackboard or the step detail with Esc Esc decides nothing; an Esc later rejects', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    const sessionId = await startSessionWithStep(page, host, 'tidy the desktop');
    host.addStep(makeStep(sessionId, 1));
    host.requestInteraction({ kind: 'confirm', id: 'k1', sessionId, agent: 'AppAgent', actionText: 'Empty the trash', actions: [], target: null, reasons: ['confirmation mode: always'], screenshot: null });
    const card = page.getByRole('region', { name: 'Approve this action?' });
    await card.waitFor();
    const openers: Array<[string, () => Promise<void>]> = [
      ['shortcuts', async () => {
        await page.getByRole('button', { name: 'Keyboard shortcuts' }).focus();
        await page.keyboard.press('Enter');
      }],
      ['blackboard', async () => {
        await page.getByRole('button', { name: 'Blackboard' }).focus();
        await page.keyboard.press('Enter');
      }],
      ['step detail', async () => {
        await page.getByRole('list', { name: 'Trajectory' }).getByRole('listitem').first().focus();
        await page.keyboard.press('Enter');
      }],
    ];
    for (const [what, open] of openers) {
      await open();
      await page.getByRole('dialog').waitFor();
      await page.keyboard.press('Escape');
      await expect.poll(() => page.getByRole('dialog').count(), { message: what }).toBe(0);
      // Well after the dialog has gone, as a second press to be sure comes.
      await page.waitForTimeout(400);
      await page.keyboard.press('Escape');
      await page.waitForTimeout(300);
      expect(host.commands('interaction.decide'), what).toHaveLength(0);
      expect(await card.count(), what).toBe(1);
      await page.waitForTimeout(1600);
    }
    // Later, with nothing closed just before, Esc outside a text field rejects as before.
    await page.keyboard.press('Escape');
    expect((await host.waitForCommand('interaction.decide', (command) => command.interactionId === 'k1')).approved).toBe(false);
    expect(ui.problems).toEqual([]);
  });
});
