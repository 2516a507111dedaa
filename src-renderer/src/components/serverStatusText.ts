import type { ServerStatusView } from '../../../src-main/protocol';

/** The most of a server's error shown before "Show all": a whole one may run to a thousand characters. */
export const ERROR_PREVIEW_CHARS = 240;

/**
 * A server's words as plain text: its control characters (but line breaks and tabs) and the
 * bidirectional overrides that could make it read as something else are taken out.
 */
export function serverText(text: string): string {
  return text.replace(/[\p{Cc}\u202A-\u202E\u2066-\u2069]/gu, (character) => (character === '\n' || character === '\t' ? character : ''));
}

/** The start of `text` ending in an ellipsis, when it is longer than `max`; a surrogate pair is not split. */
export function previewOf(text: string, max = ERROR_PREVIEW_CHARS): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 2] ?? '') ? max - 2 : max - 1;
  return `${text.slice(0, end)}…`;
}

function tools(count: number): string {
  return `${count} tool${count === 1 ? '' : 's'}`;
}

/** Where a server stands, in one short phrase. */
export function connectionText(status: ServerStatusView): string {
  if (status.connected) return `Connected with ${tools(status.toolCount)}`;
  return status.error === null ? 'Not connected yet' : 'Not connected';
}

/** What a screen reader hears once "Check connections" is done. */
export function checkSummary(servers: readonly ServerStatusView[]): string {
  const connected = servers.filter((server) => server.connected).length;
  if (servers.length === 0) return 'Checked: no MCP servers are saved in the settings.';
  if (connected === servers.length) return `Checked: ${servers.length === 1 ? 'the server is' : `all ${servers.length} servers are`} connected.`;
  return `Checked: ${connected} of ${servers.length} servers connected; ${servers.length - connected} not connected.`;
}
