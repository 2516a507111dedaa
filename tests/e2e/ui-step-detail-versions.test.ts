import { describe, expect, it } from 'vitest';
import { makeStep, screenshotRef } from '../support/ui-fixtures';
import { saveScreenshot, startSessionWithStep, uiPerTest } from '../support/ui-page';

const fresh = uiPerTest();

describe('the clean and annotated screenshots of the step detail', () => {
  it('shows the annotated picture where there is one, and the choice the user made, whichever step the detail was opened on', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    // A step with only the plain capture (the HostAgent's, say), then one with the action drawn on it, and another.
    const sessionId = await startSessionWithStep(page, host, 'tidy the desktop', (id) => ({ screenshot: screenshotRef(id, 'step-1.png') }));
    for (const index of [1, 2]) {
      host.addStep(
        makeStep(sessionId, index, { screenshot: screenshotRef(sessionId, `step-${index + 1}.png`), annotated: screenshotRef(sessionId, `step-${index + 1}-annotated.png`) }),
      );
    }
    const trajectory = page.getByRole('list', { name: 'Trajectory' });
    await expect.poll(() => trajectory.getByRole('listitem').count()).toBe(3);
    await trajectory.getByRole('listitem').first().click();
    const dialog = page.getByRole('dialog');
    const versions = dialog.getByRole('group', { name: 'Screenshot version' });
    const clean = versions.getByRole('button', { name: 'Clean' });
    const annotated = versions.getByRole('button', { name: 'Annotated' });
    const shown = async (step: number): Promise<string> => {
      const image = dialog.getByRole('img', { name: new RegExp(`^Screenshot of step ${step} `) });
      await image.waitFor({ timeout: 5000 });
      return (await image.getAttribute('alt')) ?? '';
    };

    // Step 1 has no annotated picture: the clean one, marked as such, and Annotated cannot be chosen.
    expect(await shown(1)).toBe('Screenshot of step 1 (clean)');
    expect(await clean.getAttribute('aria-pressed')).toBe('true');
    expect(await annotated.isDisabled()).toBe(true);

    // Step 2 has one: shown as if the detail had been opened on it (the user chose nothing).
    await page.keyboard.press('Alt+ArrowRight');
    expect(await shown(2)).toBe('Screenshot of step 2 (annotated)');
    expect(await annotated.getAttribute('aria-pressed')).toBe('true');

    // Once the user picks Clean, it stays their choice from step to step; back on Annotated, a step without one
    // shows its clean picture, and the next step its annotated one again.
    await clean.click();
    expect(await shown(2)).toBe('Screenshot of step 2 (clean)');
    await page.keyboard.press('Alt+ArrowRight');
    expect(await shown(3)).toBe('Screenshot of step 3 (clean)');
    expect(await clean.getAttribute('aria-pressed')).toBe('true');
    await annotated.click();
    await dialog.getByRole('button', { name: 'Previous step' }).click();
    await dialog.getByRole('button', { name: 'Previous step' }).click();
    expect(await shown(1)).toBe('Screenshot of step 1 (clean)');
    await dialog.getByRole('button', { name: 'Next step' }).click();
    expect(await shown(2)).toBe('Screenshot of step 2 (annotated)');
  });

  it('marks the version shown as plainly as the zoom, and says when a step has no annotated picture', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    const sessionId = await startSessionWithStep(page, host, 'tidy the desktop', (id) => ({ screenshot: screenshotRef(id, 'step-1.png') }));
    host.addStep(makeStep(sessionId, 1, { screenshot: screenshotRef(sessionId, 'step-2.png'), annotated: screenshotRef(sessionId, 'step-2-annotated.png') }));
    const trajectory = page.getByRole('list', { name: 'Trajectory' });
    await expect.poll(() => trajectory.getByRole('listitem').count()).toBe(2);
    await trajectory.getByRole('listitem').nth(1).click();
    const dialog = page.getByRole('dialog', { name: /Step 2/ });
    await dialog.getByRole('img', { name: 'Screenshot of step 2 (annotated)' }).waitFor();
    const background = (name: string) => page.getByRole('dialog').getByRole('button', { name, exact: true }).evaluate((button) => button.ownerDocument.defaultView?.getComputedStyle(button).backgroundColor);
    // The chosen version looks like the chosen zoom (Fit), the other like the zoom buttons not chosen.
    expect(await background('Annotated')).toBe(await background('Fit'));
    expect(await background('Clean')).toBe(await background('100%'));
    expect(await dialog.getByText('No annotated picture for this step').count()).toBe(0);

    await page.keyboard.press('Alt+ArrowLeft');
    const first = page.getByRole('dialog', { name: /Step 1/ });
    await first.getByRole('img', { name: 'Screenshot of step 1 (clean)' }).waitFor();
    await first.getByText('No annotated picture for this step').waitFor();
    expect(await background('Clean')).toBe(await background('Fit'));
    await saveScreenshot(page, 'step-detail-no-annotated');
  });

  it('keeps the keyboard in the detail when the control it was on cannot be used on the next step', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    const sessionId = await startSessionWithStep(page, host, 'tidy the desktop', (id) => ({ screenshot: screenshotRef(id, 'step-1.png') }));
    host.addStep(makeStep(sessionId, 1, { screenshot: screenshotRef(sessionId, 'step-2.png'), annotated: screenshotRef(sessionId, 'step-2-annotated.png') }));
    const trajectory = page.getByRole('list', { name: 'Trajectory' });
    await expect.poll(() => trajectory.getByRole('listitem').count()).toBe(2);
    await trajectory.getByRole('listitem').nth(1).click();
    const dialog = page.getByRole('dialog');
    const inDialog = () => dialog.evaluate((element) => {
      const active = element.ownerDocument.activeElement;
      return element.contains(active) && !(active as { disabled?: boolean } | null)?.disabled;
    });

    // On Annotated, Alt+← goes to a step that has no annotated picture: the button is disabled there.
    await dialog.getByRole('button', { name: 'Annotated' }).focus();
    await page.keyboard.press('Alt+ArrowLeft');
    await page.getByRole('dialog', { name: /Step 1/ }).waitFor();
    expect(await inDialog()).toBe(true);
    await page.keyboard.press('Alt+ArrowRight');
    await page.getByRole('dialog', { name: /Step 2/ }).waitFor({ timeout: 2000 });

    // Next step, pressed from the keyboard, to the last step, where it is disabled.
    await dialog.getByRole('button', { name: 'Previous step' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: /Step 1/ }).waitFor();
    expect(await inDialog()).toBe(true);
    await page.keyboard.press('Alt+ArrowRight');
    await page.getByRole('dialog', { name: /Step 2/ }).waitFor({ timeout: 2000 });
  });
});
