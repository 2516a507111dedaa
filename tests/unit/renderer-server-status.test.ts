import { describe, expect, it } from 'vitest';
import { settingsSchema } from '../../src-main/host/settings-store';
import { checkSummary, connectionText, ERROR_PREVIEW_CHARS, previewOf, serverText } from '../../src-renderer/src/components/serverStatusText';
import { SERVER_STATUS_ELEMENT, settingsUiSchema, withServerStatus } from '../../src-renderer/src/forms/settings-schema';
import type { ServerStatusView } from '../../src-main/protocol';

const server = (name: string, change: Partial<ServerStatusView> = {}): ServerStatusView => ({
  name,
  transport: 'stdio',
  trusted: false,
  connected: false,
  toolCount: 0,
  leftOut: [],
  error: null,
  ...change,
});

const STATUS = { type: SERVER_STATUS_ELEMENT };

describe("the MCP servers' status in the Settings form", () => {
  it('follows the servers\' field in the tab that holds it', () => {
    const tabs = settingsUiSchema(settingsSchema());
    const placed = withServerStatus(tabs!);
    const categories = placed?.elements as { label: string; elements: unknown[] }[];
    const mcp = categories.find((category) => category.label === 'MCP servers');
    expect(mcp?.elements).toEqual([{ type: 'VerticalLayout', elements: [{ type: 'Control', scope: '#/properties/mcpServers' }, STATUS] }]);
    // No other tab shows it.
    expect(JSON.stringify(categories.filter((category) => category !== mcp))).not.toContain(SERVER_STATUS_ELEMENT);
  });

  it("follows the servers' field in the host's one-page layout, and is not placed where no element shows that field", () => {
    const page = { type: 'VerticalLayout', elements: [{ type: 'Label', text: 'note' }, { type: 'Control', scope: '#/properties/limits' }, { type: 'Control', scope: '#/properties/mcpServers' }] };
    expect(withServerStatus(page)?.elements).toEqual([
      { type: 'Label', text: 'note' },
      { type: 'Control', scope: '#/properties/limits' },
      { type: 'VerticalLayout', elements: [{ type: 'Control', scope: '#/properties/mcpServers' }, STATUS] },
    ]);
    expect(withServerStatus({ type: 'VerticalLayout', elements: [{ type: 'Control', scope: '#/properties/limits' }] })).toBeNull();
  });
});

describe("a server's status in words", () => {
  it('tells connected, failed and not yet tried apart', () => {
    expect(connectionText(server('a', { connected: true, toolCount: 1 }))).toBe('Connected with 1 tool');
    expect(connectionText(server('a', { connected: true, toolCount: 12, error: 'a call failed' }))).toBe('Connected with 12 tools');
    expect(connectionText(server('a', { error: 'refused' }))).toBe('Not connected');
    expect(connectionText(server('a'))).toBe('Not connected yet');
  });

  it('sums up a check for a screen reader', () => {
    expect(checkSummary([server('a', { connected: true })])).toBe('Checked: the server is connected.');
    expect(checkSummary([server('a', { connected: true }), server('b', { connected: true })])).toBe('Checked: all 2 servers are connected.');
    expect(checkSummary([server('a', { connected: true }), server('b', { error: 'x' }), server('c')])).toBe('Checked: 1 of 3 servers connected; 2 not connected.');
    expect(checkSummary([])).toBe('Checked: no MCP servers are saved in the settings.');
  });

  it("keeps a server's words plain: no control characters or direction overrides, line breaks kept", () => {
    expect(serverText('refused\u202Eevil\u0007\n\tnext line\u001b[31m')).toBe('refusedevil\n\tnext line[31m');
  });

  it('shows the start of a long error, not splitting an emoji', () => {
    expect(previewOf('short')).toBe('short');
    const long = `${'x'.repeat(ERROR_PREVIEW_CHARS - 2)}😀${'y'.repeat(50)}`;
    const preview = previewOf(long);
    expect(preview.length).toBeLessThanOrEqual(ERROR_PREVIEW_CHARS);
    expect(preview.endsWith('…')).toBe(true);
    expect(preview).not.toMatch(/[\uD800-\uDBFF]…$/);
  });
});
