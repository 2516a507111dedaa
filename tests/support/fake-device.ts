// A stand-in device client for host tests that need no X display: the same MCP tools, a generated
// screenshot, and every action appended to the file named by DESKHAND_FAKE_DEVICE_LOG so tests can
// check what reached the device (and what never did).
import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import sharp from 'sharp';
import { ToolArgs } from '../../src-main/device/contract';

const log = process.env.DESKHAND_FAKE_DEVICE_LOG;
const width = 640;
const height = 400;

const server = new McpServer({ name: 'fake-device', version: '0.0.0' });

server.registerTool('screenshot', { description: 'Capture the screen', inputSchema: ToolArgs.screenshot.shape }, async () => {
  const data = await sharp({ create: { width, height, channels: 3, background: { r: 30, g: 90, b: 160 } } })
    .jpeg({ quality: 60 })
    .toBuffer();
  return {
    content: [{ type: 'image', data: data.toString('base64'), mimeType: 'image/jpeg' }],
    structuredContent: {
      width,
      height,
      mimeType: 'image/jpeg',
      region: { x: 0, y: 0, width, height },
      captureMs: 1,
      encodeMs: 1,
    },
  };
});

function recordAction(tool: string, args: Record<string, unknown>) {
  if (process.env.DESKHAND_FAKE_DEVICE_CRASH_ON === tool) process.exit(134);
  if (log) appendFileSync(log, `${JSON.stringify({ tool, args })}\n`);
  return { content: [{ type: 'text' as const, text: `${tool} done` }] };
}

server.registerTool('click', { description: 'fake click', inputSchema: ToolArgs.click.shape }, async (args) => recordAction('click', args));
server.registerTool('type_text', { description: 'fake type_text', inputSchema: ToolArgs.type_text.shape }, async (args) =>
  recordAction('type_text', args),
);
server.registerTool('hotkey', { description: 'fake hotkey', inputSchema: ToolArgs.hotkey.shape }, async (args) => recordAction('hotkey', args));
server.registerTool('wait', { description: 'fake wait', inputSchema: ToolArgs.wait.shape }, async (args) => recordAction('wait', args));

await server.connect(new StdioServerTransport());
