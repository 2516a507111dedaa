import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { makeStep } from '../support/ui-fixtures';
import { startSessionWithStep, uiPerTest } from '../support/ui-page';

const fresh = uiPerTest();

/**
 * A fault in the page's drawing code, injected: formatting one chosen number (a duration in seconds)
 * throws while `on`, as a bug in a part of the window would. Every other number formats as usual.
 */
async function breakFormattingOf(page: Page, seconds: number, on: boolean): Promise<void> {
  await page.evaluate(
    ({ seconds, on }) => {
      const page = globalThis as unknown as { deskhandFault?: { seconds: number; on: boolean } };
      if (!page.deskhandFault) {
        const toFixed = Number.prototype.toFixed;
        Number.prototype.toFixed = function (this: number, digits?: number): string {
          const fault = page.deskhandFault;
          if (fault?.on && Number(this) === fault.seconds) throw new Error(`cannot format ${fault.seconds}`);
          return toFixed.call(this, digits);
        };
      }
      page.deskhandFault = { seconds, on };
    },
    { seconds, on },
  );
}

/** Whether the keyboard is on the element (the tests' types have no DOM). */
function hasFocus(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => element === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement);
}

/** The request just sent leaves the focus in its box, where single-key shortcuts type instead. */
async function leaveTheRequestBox(page: Page): Promise<void> {
  await page.getByRole('textbox', { name: 'Request' }).evaluate((box) => (box as unknown as { blur(): void }).blur());
}

describe('a part of the window that fails to draw', () => {
  it('is replaced by what failed and a way back; the rest of the window works and no step is lost', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    const sessionId = await startSessionWithStep(page, host, 'tidy the downloads');
    await breakFormattingOf(page, 4.321, true);
    // The keyboard is on a step of the trajectory when the part goes away.
    await leaveTheRequestBox(page);
    await page.keyboard.press('t');
    await expect.poll(() => page.evaluate("document.activeElement?.getAttribute('data-index')")).toBe('0');
    host.addStep(makeStep(sessionId, 1, { durationMs: 4321, actionText: 'Move the old files' }));

    const alert = page.getByRole('alert').filter({ hasText: 'Deskhand could not show the trajectory' });
    await alert.waitFor();
    await alert.getByText('cannot format 4.321').waitFor();
    expect(await page.getByRole('list', { name: 'Trajectory' }).count()).toBe(0);
    // The focus lands on the way back rather than at the top of the page.
    const reload = alert.getByRole('button', { name: 'Reload the trajectory' });
    await expect.poll(() => hasFocus(reload)).toBe(true);

    // The sessions and the request box are untouched, and steps still arrive meanwhile.
    await page.getByRole('navigation').getByText('tidy the downloads').first().waitFor();
    const request = page.getByRole('textbox', { name: 'Request' });
    await request.fill('and empty the trash');
    expect(await request.inputValue()).toBe('and empty the trash');
    host.addStep(makeStep(sessionId, 2, { actionText: 'Empty the trash' }));

    // Reload while the fault is still there: the same message, the focus still on Reload.
    await reload.focus();
    await page.keyboard.press('Enter');
    await alert.getByText('cannot format 4.321').waitFor();
    await expect.poll(() => hasFocus(reload)).toBe(true);

    await breakFormattingOf(page, 4.321, false);
    await page.keyboard.press('Enter');
    const trajectory = page.getByRole('list', { name: 'Trajectory' });
    await expect.poll(() => trajectory.getByRole('listitem').count()).toBe(3);
    await trajectory.getByText('Move the old files').waitFor();
    await trajectory.getByText('4.3 s').first().waitFor();
    await trajectory.getByText('Empty the trash').waitFor();
    expect(await alert.count()).toBe(0);
  });

  it("in a step's details is tried again by itself for the next step", async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    // Only the details draw the phase timings: the trajectory shows this step as usual.
    const sessionId = await startSessionWithStep(page, host, 'rename the photos', () => ({ phaseMs: { LLM_INTERACTION: 2345 } }));
    host.addStep(makeStep(sessionId, 1));
    await expect.poll(() => page.getByRole('list', { name: 'Trajectory' }).getByRole('listitem').count()).toBe(2);
    await breakFormattingOf(page, 2.345, true);

    await leaveTheRequestBox(page);
    await page.keyboard.press('t');
    await page.keyboard.press('Home');
    await page.keyboard.press('Enter');
    const first = page.getByRole('dialog', { name: /Step 1/ });
    await first.waitFor();
    await first.getByRole('alert').filter({ hasText: 'Deskhand could not show the details of this step' }).waitFor();
    await first.getByText('cannot format 2.345').waitFor();
    // The trajectory under the dialog is not touched by the failure.
    expect(await page.getByRole('alert').filter({ hasText: 'could not show the trajectory' }).count()).toBe(0);

    await page.keyboard.press('Alt+ArrowRight');
    const second = page.getByRole('dialog', { name: /Step 2/ });
    await second.waitFor();
    await second.getByText('Raw model reply').waitFor();
    expect(await second.getByRole('alert').count()).toBe(0);
  });
});
