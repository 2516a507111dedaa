import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUiHost, type FakeUiHost } from '../support/fake-ui-host';
import { openUi, startSessionWithStep, type UiPage } from '../support/ui-page';
import { launchChromium } from '../support/web-app';

let browser: Browser;
let host: FakeUiHost;
let ui: UiPage;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

beforeEach(async () => {
  host = await startFakeUiHost();
  ui = await openUi(browser, host);
});

afterEach(async () => {
  await ui?.close();
  await host?.close();
});

describe('the agent’s questions', () => {
  it('marks and focuses an answer of spaces only, which Submit answers refuses', async () => {
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
