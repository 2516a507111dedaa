import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ServerStatusView } from '../../src-main/protocol';
import type { FakeUiHost } from '../support/fake-ui-host';
import { saveScreenshot, uiPerTest } from '../support/ui-page';

/** The MCP servers' status in the Settings dialog, and its "Check connections" button (fake host). */

const fresh = uiPerTest();

/** The fake host's saved settings name these servers, and it answers their status with `statuses`. */
function saved(host: FakeUiHost, ...statuses: ServerStatusView[]): void {
  host.servers.push(...statuses);
  host.settings.values = {
    ...host.settings.values,
    mcpServers: statuses.map(({ name, transport, trusted }) =>
      transport === 'http' ? { name, transport, trusted, url: `http://127.0.0.1:8931/${name}` } : { name, transport, trusted, command: `${name}-server`, args: [] },
    ),
  };
}

/** Settings open at the MCP servers' tab, whose field the status follows. */
async function openSettings(page: Page) {
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('tab', { name: 'MCP servers' }).click();
  return dialog;
}

async function closeSettings(page: Page): Promise<void> {
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
}

/** What a server's entry shows, a line per line of text (paragraph margins read as blank lines otherwise). */
async function linesOf(entry: Locator): Promise<string> {
  return (await entry.innerText()).replace(/\n+/g, '\n').trim();
}

const LONG_ERROR = `cannot connect to the MCP server remote: HTTP 401: <b>refused</b> **not markdown** ${'and on '.repeat(120)}the end`;

const notes: ServerStatusView = { name: 'notes', transport: 'stdio', trusted: true, connected: true, toolCount: 100, leftOut: ['tools past the first 100 left out: a server offers at most 100, so the rest of its tool list was not read'], error: null };
const remote: ServerStatusView = { name: 'remote', transport: 'http', trusted: false, connected: false, toolCount: 0, leftOut: [], error: LONG_ERROR };
const added: ServerStatusView = { name: 'added', transport: 'stdio', trusted: false, connected: false, toolCount: 0, leftOut: [], error: null };

describe("the MCP servers' status in Settings (browser UI, fake host)", () => {
  it('shows nothing of it while no server is saved', async () => {
    const { host, ui } = fresh;
    const { page } = ui;
    const asked = host.commands('servers.status').length;
    const dialog = await openSettings(page);
    await host.waitForCommand('servers.status', () => host.commands('servers.status').length > asked);
    // The servers' field is there (empty); the status section is not, nor its button.
    await dialog.getByText('No data').waitFor();
    expect(await dialog.getByRole('heading', { name: 'MCP server connections' }).count()).toBe(0);
    expect(await dialog.getByRole('button', { name: 'Check connections' }).count()).toBe(0);
    await closeSettings(page);
  });

  it("lists each server's state, what was left out of its tools and why it failed, as plain text", async () => {
    const { host, ui } = fresh;
    saved(host, notes, remote, added);
    const { page } = ui;
    const dialog = await openSettings(page);
    const section = dialog.getByRole('region', { name: 'MCP server connections' });
    await section.waitFor();
    const item = (name: string) => section.getByTestId(`server-status-${name}`);
    expect(await linesOf(item('notes'))).toMatch(/^notes: Connected with 100 tools · program \(stdio\) · trusted\nLeft out of its tools:\ntools past the first 100 left out/);
    expect(await linesOf(item('added'))).toBe('added: Not connected yet · program (stdio)\nIt connects when the next request starts, or when you check the connections.');
    // A server's error is its words as they came: no markup, no Markdown; a long one in part until asked.
    const failed = item('remote');
    expect(await linesOf(failed)).toMatch(/^remote: Not connected · HTTP\nWhy: cannot connect to the MCP server remote: HTTP 401: <b>refused<\/b> \*\*not markdown\*\* and on /);
    expect(await failed.locator('b, strong').count()).toBe(0);
    expect(await linesOf(failed)).not.toContain('the end');
    await saveScreenshot(page, 'settings-server-status');
    await failed.getByRole('button', { name: 'Show all' }).click();
    expect(await linesOf(failed)).toContain('and on the end');
    expect(await failed.getByRole('button', { name: 'Show less' }).getAttribute('aria-expanded')).toBe('true');
    await closeSettings(page);
  });

  it('checks the connections from the keyboard, busy meanwhile, and announces the result', async () => {
    const { host, ui } = fresh;
    saved(host, remote, added);
    let answer: (servers: ServerStatusView[]) => void = () => undefined;
    host.handle('servers.check', () => new Promise<{ servers: ServerStatusView[] }>((done) => (answer = (servers) => done({ servers }))));
    const { page } = ui;
    const dialog = await openSettings(page);
    const section = dialog.getByRole('region', { name: 'MCP server connections' });
    const button = section.getByRole('button', { name: 'Check connections' });
    await button.waitFor();
    // Reached with Tab from the field before it.
    await section.getByRole('button', { name: 'Show all' }).focus();
    await page.keyboard.press('Tab');
    expect(await button.evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true);

    const checks = host.commands('servers.check').length;
    await page.keyboard.press('Enter');
    await host.waitForCommand('servers.check', () => host.commands('servers.check').length > checks);
    const result = section.getByRole('status');
    await section.getByText('Checking the connections…').waitFor();
    expect(await section.getByRole('list').first().getAttribute('aria-busy')).toBe('true');
    expect(await result.getAttribute('aria-live')).toBe('polite');
    // A second press while busy sends nothing more.
    await page.keyboard.press('Enter');
    await saveScreenshot(page, 'settings-server-status-checking');

    answer([{ ...remote, connected: true, toolCount: 3, error: null }, { ...added, error: 'cannot connect to the MCP server added: spawn nope ENOENT' }]);
    await result.getByText('Checked: 1 of 2 servers connected; 1 not connected.').waitFor();
    expect(host.commands('servers.check')).toHaveLength(checks + 1);
    expect(await section.getByRole('list').first().getAttribute('aria-busy')).toBe('false');
    expect(await linesOf(section.getByTestId('server-status-remote'))).toBe('remote: Connected with 3 tools · HTTP');
    expect(await linesOf(section.getByTestId('server-status-added'))).toBe('added: Not connected · program (stdio)\nWhy: cannot connect to the MCP server added: spawn nope ENOENT');
    // The keyboard's place is kept.
    expect(await button.evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true);
    await saveScreenshot(page, 'settings-server-status-checked');
    await closeSettings(page);
  });
});
