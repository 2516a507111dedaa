// A stand-in device client for the memory bench: the same MCP tools as tests/support/fake-device.ts but
// screenshots of a real desktop's size (1280x800 JPEG of a busy, text-heavy picture, about 200 KB), so a
// host that kept screenshots alive would show it in its resident memory. Every call answers at once.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import sharp from 'sharp';
import { ToolArgs } from '../../src-main/device/contract';

const screen = { width: 1280, height: 800 };
const windows = [{ id: '0x100001', title: 'Terminal', app: 'xterm', bounds: { x: 0, y: 0, ...screen } }];

function busySvg(seed: number): string {
  const lines = Array.from({ length: 56 }, (_, i) => {
    const text = `${String(i + seed).padStart(4, '0')} drwxr-xr-x 2 user user 4096 Nov 21 11:${String((i * 7) % 60).padStart(2, '0')} file-${(i * 7919 + seed) % 100000}.txt`;
    return `<text x="8" y="${14 + i * 14}" font-family="monospace" font-size="12" fill="#${((i * 2654435761) % 0xffffff).toString(16).padStart(6, '0')}">${text}</text>`;
  }).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${screen.width}" height="${screen.height}"><rect width="100%" height="100%" fill="#101418"/>${lines}</svg>`;
}

// A few different frames, in turn, as a changing desktop would give.
const frames = await Promise.all([0, 1, 2, 3].map((seed) => sharp(Buffer.from(busySvg(seed * 100))).jpeg({ quality: 70 }).toBuffer()));
let shot = 0;

const server = new McpServer({ name: 'bench-device', version: '0.0.0' });
const done = (tool: string) => ({ content: [{ type: 'text' as const, text: `${tool} done` }] });

server.registerTool('screenshot', { description: 'Capture the screen or one window', inputSchema: ToolArgs.screenshot.shape }, async () => {
  const data = frames[shot++ % frames.length] as Buffer;
  return {
    content: [{ type: 'image', data: data.toString('base64'), mimeType: 'image/jpeg' }],
    structuredContent: { ...screen, mimeType: 'image/jpeg', region: { x: 0, y: 0, ...screen }, captureMs: 1, encodeMs: 1 },
  };
});
server.registerTool('list_windows', { description: 'List the open windows', inputSchema: ToolArgs.list_windows.shape }, async () => ({
  content: [{ type: 'text', text: JSON.stringify(windows) }],
  structuredContent: { windows },
}));
for (const tool of ['focus_window', 'click', 'type_text', 'hotkey', 'wait'] as const) {
  server.registerTool(tool, { description: `bench ${tool}`, inputSchema: ToolArgs[tool].shape }, async () => done(tool));
}

await server.connect(new StdioServerTransport());
