import { describe, expect, it } from 'vitest';
import type { ExternalServerStatus } from '../../src-main/commands/external-servers';
import { SecretScrubber } from '../../src-main/common/scrub';
import { serverStatusHandler, serverStatusView } from '../../src-main/host/server-status';
import { HostCommand, MAX_LEFT_OUT_CHARS, MAX_LEFT_OUT_LINES, MAX_SERVER_ERROR_CHARS, ServersStatusView } from '../../src-main/protocol';

const SECRET = 'secret-token-0123456789';
const scrubber = new SecretScrubber(() => [SECRET]);
const scrubText = (text: string): string => scrubber.text(text);

function failed(error: string, leftOut: string[] = []): ExternalServerStatus {
  return { name: 'remote', transport: 'http', trusted: false, connected: false, toolCount: 0, leftOut, error };
}

describe('servers.status and servers.check commands', () => {
  it('are commands of their own, taking nothing but their id', () => {
    expect(HostCommand.parse({ type: 'servers.status', id: 'a' })).toEqual({ type: 'servers.status', id: 'a' });
    expect(HostCommand.parse({ type: 'servers.check', id: 'b' })).toEqual({ type: 'servers.check', id: 'b' });
    expect(HostCommand.safeParse({ type: 'servers.check', id: 'b', servers: ['remote'] }).success).toBe(false);
  });

  it('refuse a status longer than the protocol allows (the renderer drops such a reply)', () => {
    const long = { name: 'remote', transport: 'http', trusted: false, connected: false, toolCount: 0, leftOut: [], error: 'x'.repeat(MAX_SERVER_ERROR_CHARS + 1) };
    expect(ServersStatusView.safeParse({ servers: [long] }).success).toBe(false);
  });
});

describe("a server's status as it leaves the host", () => {
  it('carries no known secret, nor a bearer token it does not know', () => {
    const view = serverStatusView(failed(`refused https://127.0.0.1/mcp?key=${SECRET} (sent Authorization: Bearer abcdefgh12345678)`), scrubText);
    expect(view.error).not.toContain(SECRET);
    expect(view.error).not.toContain('abcdefgh12345678');
    expect(view.error).toContain('[redacted]');
  });

  it('cuts a long error after scrubbing it, so that no cut leaves the start of a secret', () => {
    // The secret straddles the limit: cut first, its first half would stay and not be known as a secret.
    const error = `${'e'.repeat(MAX_SERVER_ERROR_CHARS - 10)}${SECRET}${'e'.repeat(5_000)}`;
    const view = serverStatusView(failed(error), scrubText);
    expect(view.error).toHaveLength(MAX_SERVER_ERROR_CHARS);
    expect(view.error?.endsWith('…')).toBe(true);
    expect(view.error).not.toContain(SECRET.slice(0, 8));
    expect(ServersStatusView.safeParse({ servers: [view] }).success).toBe(true);
  });

  it('keeps within the protocol what was left out of a tool list', () => {
    const lines = Array.from({ length: MAX_LEFT_OUT_LINES + 5 }, (_, i) => `${i} ${'y'.repeat(MAX_LEFT_OUT_CHARS)}`);
    const view = serverStatusView({ ...failed('x', lines), connected: true, error: null }, scrubText);
    expect(view.leftOut).toHaveLength(MAX_LEFT_OUT_LINES);
    expect(view.leftOut.every((line) => line.length <= MAX_LEFT_OUT_CHARS)).toBe(true);
    expect(view.error).toBeNull();
  });

  it('is scrubbed for servers.check as for servers.status', async () => {
    const handler = serverStatusHandler({ status: () => [failed(SECRET)], check: async () => [failed(`again ${SECRET}`)] }, scrubText);
    expect(handler.status().servers[0]?.error).toBe('[redacted]');
    expect((await handler.check()).servers[0]?.error).toBe('again [redacted]');
  });
});
