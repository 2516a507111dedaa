import { describe, expect, it } from 'vitest';
import { startSessionWithStep, uiPerTest } from '../support/ui-page';

const fresh = uiPerTest();

describe('the agent’s questions', () => {
  it('marks and focuses an answer of spaces only, which Submit answers refuses', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    const sessionId = await startSessionWithStep(page, host, 'rename the photos');
    host.requestInteraction({ kind: 'questions', id: 'q1', sessionId, agent: 'HostAgent', questions: ['Which folder?', 'Which names?'] });
    await page.getByRole('textbox', { name: 'Which folder?' }).fill('~/Pictures');
    await page.getByRole('textbox', { name: 'Which names?' }).fill('   ');
    await page.getByRole('button', { name: 'Submit answers' }).click();
    await page.getByText('Answer every question before submitting.').waitFor();
    const blank = page.getByRole('textbox', { name: 'Which names?' });
    await expect.poll(() => blank.getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => blank.evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true);
    expect(host.commands('interaction.answer')).toHaveLength(0);
  });
});
