import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { serverProcessTransport } from '../../src-main/commands/server-process-transport';

/**
 * The stdio transport of both kinds, here where both run: the process group one (POSIX) and the MCP
 * library's (Windows), each telling when its server started and when it is gone.
 */

const FIXTURE = join(process.cwd(), 'tests/support/external-mcp-fixture.ts');
const env = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));

// The library's transport runs anywhere; the process group one only on POSIX.
describe.each(process.platform === 'win32' ? (['win32'] as const) : (['linux', 'win32'] as const))('the stdio transport made for %s', (platform) => {
  it('reports the server started and gone, and ends it on close', { timeout: 30_000 }, async () => {
    const events: string[] = [];
    const transport = serverProcessTransport(
      { command: process.execPath, args: ['--import', 'tsx', FIXTURE, '--stdio'], env },
      { started: (pid) => events.push(`started ${pid}`), ended: (pid) => events.push(`ended ${pid}`) },
      platform,
    );
    const client = new Client({ name: 'test', version: '0' });
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('echo');
    const [started] = events;
    const pid = Number(started?.split(' ')[1]);
    await client.close();
    await transport.gone;
    expect(events).toEqual([`started ${pid}`, `ended ${pid}`]);
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
  });

  it('names a program that is not there', async () => {
    const transport = serverProcessTransport({ command: '/nonexistent/mcp-server', args: [], env }, { started: () => undefined, ended: () => undefined }, platform);
    await expect(transport.start()).rejects.toThrow('the program "/nonexistent/mcp-server" was not found (ENOENT)');
    await transport.gone;
  });
});
