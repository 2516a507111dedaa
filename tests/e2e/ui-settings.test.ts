import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeHostError, startFakeUiHost, type FakeUiHost } from '../support/fake-ui-host';
import { openUi, saveScreenshot, type UiPage } from '../support/ui-page';
import { launchChromium } from '../support/web-app';

let browser: Browser;
let host: FakeUiHost;
let ui: UiPage;

beforeAll(async () => {
  browser = await launchChromium();
  host = await startFakeUiHost();
  ui = await openUi(browser, host);
});

afterAll(async () => {
  await ui?.close();
  await host?.close();
  await browser?.close();
});

async function openSettings(page: Page) {
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('tab', { name: 'Limits' }).waitFor();
  return dialog;
}

describe('settings in the browser UI (fake host)', () => {
  it('refuses an invalid value with the field’s message, and saves valid ones', async () => {
    const { page } = ui;
    const dialog = await openSettings(page);
    await dialog.getByRole('tab', { name: 'Limits' }).click();
    const maxSteps = dialog.getByRole('spinbutton', { name: 'Max steps per round' });
    expect(await maxSteps.inputValue()).toBe('30');
    await maxSteps.fill('5000');
    await dialog.getByRole('button', { name: 'Save' }).click();
    // The field as the dialog labels it (its tab and its label), not its path in the configuration.
    await dialog.getByText('Not saved: fix the marked values first (Limits › Max steps per round: must be at most 1000).').waitFor();
    await dialog.getByText('must be at most 1000').first().waitFor();
    expect(host.commands('settings.set')).toHaveLength(0);
    await saveScreenshot(page, 'settings-invalid');

    await maxSteps.fill('50');
    await dialog.getByRole('button', { name: 'Save' }).click();
    const saved = await host.waitForCommand('settings.set');
    expect((saved.values.limits as Record<string, unknown>).maxStepsPerRound).toBe(50);
    expect(saved.secrets).toBeUndefined();
    await dialog.waitFor({ state: 'detached' });
    expect((host.settings.values.limits as Record<string, unknown>).maxStepsPerRound).toBe(50);

    // Reopened: the saved value is what the host now has.
    const again = await openSettings(page);
    await again.getByRole('tab', { name: 'Limits' }).click();
    expect(await again.getByRole('spinbutton', { name: 'Max steps per round' }).inputValue()).toBe('50');
    await again.getByRole('button', { name: 'Cancel' }).click();
    await again.waitFor({ state: 'detached' });
  });

  it('shows the free disk space a run keeps under a readable name, with what it does', async () => {
    const { page } = ui;
    const dialog = await openSettings(page);
    await dialog.getByRole('tab', { name: 'Limits' }).click();
    const field = dialog.getByRole('spinbutton', { name: 'Free disk space to keep (MB)' });
    expect(await field.inputValue()).toBe('100');
    await field.focus();
    await dialog.getByText('A run pauses before its next step while less is free where Deskhand keeps its data; 0 turns the check off.').waitFor();
    await saveScreenshot(page, 'settings-free-disk-space');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('names every setting in words (units in brackets, URL and JSON as such), as the host’s own titled fields are', async () => {
    const { page } = ui;
    const dialog = await openSettings(page);
    const labels: string[] = [];
    for (const tab of await dialog.getByRole('tab').allTextContents()) {
      await dialog.getByRole('tab', { name: tab }).click();
      // Without a required field's asterisk.
      labels.push(tab, ...(await dialog.locator('label').allTextContents()).map((label) => label.replace(/\s*\*$/, '')));
    }
    for (const name of ['Base URL', 'JSON mode', 'Timeout (ms)', 'Input price per million tokens', 'Max steps per round', 'Blackboard budget (characters)', 'Tool timeout (ms)', 'Confirm all shell commands', 'MCP servers']) {
      expect(labels).toContain(name);
    }
    // Property names split at capitals read as code: "Timeout Ms", "Base Url", "Input Price Per M Tok".
    expect(labels.filter((label) => /\b(Ms|Url|Json|Mcp|Tok|Chars)\b/.test(label))).toEqual([]);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('offers the approval policy and the screenshot format in words, says what each approval choice means, and saves the same values', async () => {
    const { page } = ui;
    const dialog = await openSettings(page);
    await dialog.getByRole('tab', { name: 'Safety' }).click();
    const approval = dialog.getByRole('combobox', { name: 'Ask for approval' });
    expect(await approval.inputValue()).toBe('Before risky actions only');
    await approval.focus();
    // One line per choice under the field.
    for (const line of ['Before every action: Every step that acts waits for your approval', 'Before risky actions only: Shell commands', 'Never: Nothing waits for your approval']) {
      await dialog.getByText(line, { exact: false }).waitFor();
    }
    await saveScreenshot(page, 'settings-approval');
    await approval.click();
    await approval.fill('');
    const options = page.getByRole('listbox').getByRole('option');
    await options.first().waitFor();
    expect(await options.allTextContents()).toEqual(['Before every action', 'Before risky actions only', 'Never']);
    await saveScreenshot(page, 'settings-approval-choices');
    await page.getByRole('option', { name: 'Before every action' }).click();
    expect(await approval.inputValue()).toBe('Before every action');

    await dialog.getByRole('tab', { name: 'Device' }).click();
    expect(await dialog.getByRole('combobox', { name: 'Screenshot format' }).inputValue()).toBe('Automatic');
    // No stored value shows raw anywhere in the dialog's fields.
    const shown = await Promise.all((await dialog.locator('input').all()).map((input) => input.inputValue()));
    expect(shown.filter((value) => ['always', 'sensitive', 'never', 'auto', 'png', 'jpeg', 'webp'].includes(value))).toEqual([]);

    await dialog.getByRole('button', { name: 'Save' }).click();
    const saved = await host.waitForCommand('settings.set', (command) => (command.values.safety as Record<string, unknown> | undefined)?.confirmation === 'always');
    expect((saved.values.device as Record<string, unknown>).screenshotFormat).toBe('auto');
    await dialog.waitFor({ state: 'detached' });
  });

  it('shows the host’s refusal at the field it names', async () => {
    const { page } = ui;
    host.handle('settings.set', () => {
      throw new FakeHostError('bad_message', "invalid command: values.models.host.model: the endpoint has no model named 'qwen9'");
    });
    const dialog = await openSettings(page);
    await dialog.getByRole('tab', { name: 'Models' }).click();
    const model = dialog.getByRole('textbox', { name: 'Model' }).first();
    await model.fill('qwen9');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText("Not saved: Models › Host › Model: the endpoint has no model named 'qwen9'").waitFor();
    // The same message under the field itself.
    expect(await dialog.getByText("the endpoint has no model named 'qwen9'", { exact: true }).count()).toBe(1);
    await saveScreenshot(page, 'settings-refused');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    host.handle('settings.set', (command) => {
      // Back to the default behaviour, by hand: store keys, answer the view.
      for (const [profile, key] of Object.entries(command.secrets ?? {})) {
        host.settings.keys[profile] = key;
        host.settings.secrets[profile] = { set: key !== '', protected: false };
      }
      return { schema: host.settings.schema, uischema: null, values: command.values, secrets: host.settings.secrets };
    });
  });

  it('keeps API keys write-only: never shown, only "set" / "not set" and "not protected"', async () => {
    const { page } = ui;
    const dialog = await openSettings(page);
    const hostKey = dialog.getByLabel('API key (host)');
    const appKey = dialog.getByLabel('API key (app)');
    expect(await hostKey.inputValue()).toBe('');
    expect(await hostKey.getAttribute('type')).toBe('password');
    expect(await dialog.getByTestId('key-status-host').textContent()).toBe('set');
    expect(await dialog.getByTestId('key-status-app').textContent()).toBe('not set');
    expect(await dialog.getByText('not protected', { exact: true }).count()).toBe(2);
    expect(await page.content()).not.toContain(host.settings.keys.host);

    await appKey.fill('sk-new-app-key');
    await dialog.getByRole('button', { name: 'Save' }).click();
    const saved = await host.waitForCommand('settings.set', (command) => command.secrets !== undefined);
    expect(saved.secrets).toEqual({ app: 'sk-new-app-key' });
    await dialog.waitFor({ state: 'detached' });

    const again = await openSettings(page);
    expect(await again.getByLabel('API key (app)').inputValue()).toBe('');
    expect(await again.getByTestId('key-status-app').textContent()).toBe('set');
    expect(await page.content()).not.toContain('sk-new-app-key');
    await saveScreenshot(page, 'settings-keys');
    await again.getByRole('button', { name: 'Cancel' }).click();
    expect(ui.problems).toEqual([]);
  });
});
