// A stand-in device client for host tests that need no X display: the same MCP tools, a generated
// screenshot, two fake windows, and every action appended to the file named by DESKHAND_FAKE_DEVICE_LOG
// so tests can check what reached the device (and what never did). execute_command really runs bash,
// so a test can check a command's effect on the file system.
import { execFile } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import sharp from 'sharp';
import { expectedPointerOf, expectedScreenshotOf, pointerMoved, pointerMovedResult, pointsOf, ToolArgs } from '../../src-main/device/contract';
import { otherScreenshot, otherScreenshotMessage, ShotIds } from '../../src-main/device/shot-ids';

// DESKHAND_FAKE_DEVICE_FAILS_TO_START=<reason>: says why on stderr and exits before it serves anything.
if (process.env.DESKHAND_FAKE_DEVICE_FAILS_TO_START) {
  process.stderr.write(`fake device: ${process.env.DESKHAND_FAKE_DEVICE_FAILS_TO_START}\n`);
  process.exit(1);
}

const log = process.env.DESKHAND_FAKE_DEVICE_LOG;
const screen = { width: 640, height: 400 };
const windows = [
  { id: '0x100001', title: 'Terminal', app: 'xterm', bounds: { x: 0, y: 0, width: 320, height: 200 } },
  { id: '0x200002', title: 'notes.txt - Mousepad', app: 'mousepad', bounds: { x: 320, y: 0, width: 320, height: 400 } },
];

const server = new McpServer({ name: 'fake-device', version: '0.0.0' });

// The pointer: actions with coordinates move it; DESKHAND_FAKE_DEVICE_USER_MOVES_AFTER=<tool>[#n][,...]
// makes "the user" move it elsewhere right after the n-th call (default: the first) of that tool, as a
// person taking the mouse would (a comma-separated list: after each). Actions are checked against the
// host's expected pointer (EXPECT_POINTER_META) as the real device checks them.
let pointer = { x: 0, y: 0 };
const calls = new Map<string, number>();
const pointerReport = () => ({ pointer: { screen: { ...pointer }, image: { ...pointer } } });

function userMayMoveAfter(tool: string): void {
  const moves = (process.env.DESKHAND_FAKE_DEVICE_USER_MOVES_AFTER ?? '').split(',').map((move) => move.split('#'));
  if (!moves.some(([movesAfter]) => movesAfter === tool)) return;
  const count = (calls.get(tool) ?? 0) + 1;
  calls.set(tool, count);
  if (moves.some(([movesAfter, nth = '1']) => movesAfter === tool && count === Number(nth))) pointer = { x: pointer.x + 200, y: pointer.y + 100 };
}

// Screenshots are named as the real device names them, and an action at a point naming another than the
// last is refused. DESKHAND_FAKE_DEVICE_SHOT_LOG: a file that gets {tool, screenshot} for every screenshot
// taken and every action that named one. DESKHAND_FAKE_DEVICE_FORGETS_BEFORE=<tool>[#n]: right before
// the n-th call of that tool the device forgets its screenshots, as a restarted device client would.
let shotIds = new ShotIds();
let lastShot: string | null = null;
const shotLog = process.env.DESKHAND_FAKE_DEVICE_SHOT_LOG;
const forgetCalls = new Map<string, number>();

function mayForget(tool: string): void {
  const [forgetsBefore, nth = '1'] = (process.env.DESKHAND_FAKE_DEVICE_FORGETS_BEFORE ?? '').split('#');
  if (forgetsBefore !== tool) return;
  const count = (forgetCalls.get(tool) ?? 0) + 1;
  forgetCalls.set(tool, count);
  if (count === Number(nth)) {
    shotIds = new ShotIds();
    lastShot = null;
  }
}

function recordAction(tool: string, args: Record<string, unknown>, meta: unknown) {
  if (process.env.DESKHAND_FAKE_DEVICE_CRASH_ON === tool) process.exit(134);
  if (process.env.DESKHAND_FAKE_DEVICE_FAIL_ON === tool) {
    return { content: [{ type: 'text' as const, text: `${tool} failed on purpose` }], isError: true };
  }
  mayForget(tool);
  let expected;
  let expectedShot;
  try {
    expected = expectedPointerOf(meta);
    expectedShot = expectedScreenshotOf(meta);
  } catch (error) {
    return { content: [{ type: 'text' as const, text: `${tool} failed: ${(error as Error).message}` }], isError: true };
  }
  if (shotLog && expectedShot) appendFileSync(shotLog, `${JSON.stringify({ tool, screenshot: expectedShot.id })}\n`);
  if (expected && pointerMoved(expected, pointer)) return pointerMovedResult(tool, expected, pointerReport().pointer);
  const why = expectedShot && pointsOf(args).length ? otherScreenshot(shotIds, expectedShot.id, lastShot) : null;
  if (why) return { content: [{ type: 'text' as const, text: otherScreenshotMessage(tool, why) }], isError: true };
  if (log) appendFileSync(log, `${JSON.stringify({ tool, args })}\n`);
  if (typeof args.x === 'number' && typeof args.y === 'number') pointer = { x: args.x, y: args.y };
  // DESKHAND_FAKE_DEVICE_USER_MOVES_DURING=<tool>: "the user" moves the pointer while that tool runs.
  if (process.env.DESKHAND_FAKE_DEVICE_USER_MOVES_DURING === tool) pointer = { x: pointer.x + 200, y: pointer.y + 100 };
  const report = pointerReport();
  userMayMoveAfter(tool);
  return { content: [{ type: 'text' as const, text: `${tool} done` }], structuredContent: report };
}

server.registerTool('pointer', { description: 'Where the pointer is', inputSchema: ToolArgs.pointer.shape }, async () => ({
  content: [{ type: 'text', text: JSON.stringify(pointer) }],
  structuredContent: pointerReport(),
}));

server.registerTool('screenshot', { description: 'Capture the screen or one window', inputSchema: ToolArgs.screenshot.shape }, async (args) => {
  const window = windows.find((candidate) => candidate.id === args.window_id);
  const { width, height } = window?.bounds ?? screen;
  const data = await sharp({ create: { width, height, channels: 3, background: { r: 30, g: 90, b: 160 } } })
    .jpeg({ quality: 60 })
    .toBuffer();
  lastShot = shotIds.next();
  if (shotLog) appendFileSync(shotLog, `${JSON.stringify({ tool: 'screenshot', screenshot: lastShot, args })}\n`);
  const result = {
    content: [{ type: 'image' as const, data: data.toString('base64'), mimeType: 'image/jpeg' }],
    structuredContent: {
      id: lastShot,
      width,
      height,
      mimeType: 'image/jpeg',
      region: window?.bounds ?? { x: 0, y: 0, ...screen },
      captureMs: 1,
      encodeMs: 1,
      ...pointerReport(),
    },
  };
  userMayMoveAfter('screenshot');
  return result;
});

server.registerTool('list_windows', { description: 'List the open windows', inputSchema: ToolArgs.list_windows.shape }, async () => ({
  content: [{ type: 'text', text: JSON.stringify(windows) }],
  structuredContent: { windows },
}));

server.registerTool('focus_window', { description: 'Focus a window', inputSchema: ToolArgs.focus_window.shape }, async (args, extra) =>
  recordAction('focus_window', args, extra._meta),
);
server.registerTool('click', { description: 'fake click', inputSchema: ToolArgs.click.shape }, async (args, extra) => recordAction('click', args, extra._meta));
server.registerTool('type_text', { description: 'fake type_text', inputSchema: ToolArgs.type_text.shape }, async (args, extra) =>
  recordAction('type_text', args, extra._meta),
);
server.registerTool('hotkey', { description: 'fake hotkey', inputSchema: ToolArgs.hotkey.shape }, async (args, extra) => recordAction('hotkey', args, extra._meta));
server.registerTool('wait', { description: 'fake wait', inputSchema: ToolArgs.wait.shape }, async (args, extra) => recordAction('wait', args, extra._meta));
server.registerTool('launch_app', { description: 'fake launch_app', inputSchema: ToolArgs.launch_app.shape }, async (args, extra) => {
  const result = recordAction('launch_app', args, extra._meta);
  if (result.isError) return result;
  // DESKHAND_FAKE_DEVICE_NO_WINDOW_FOR=<app>: an application whose window never shows (a slow start).
  if (process.env.DESKHAND_FAKE_DEVICE_NO_WINDOW_FOR !== args.name && !windows.some((window) => window.app === args.name)) {
    windows.push({ id: `0x30000${windows.length}`, title: `${args.name} window`, app: args.name, bounds: { x: 0, y: 200, width: 320, height: 200 } });
  }
  return result;
});
server.registerTool('execute_command', { description: 'Run a shell command', inputSchema: ToolArgs.execute_command.shape }, async (args, extra) => {
  const refusal = recordAction('execute_command', args, extra._meta);
  if (refusal.isError) return refusal;
  const output = await new Promise<{ exit_code: number; stdout: string; stderr: string }>((resolve) => {
    execFile('bash', ['-c', args.command], { cwd: args.cwd, timeout: (args.timeout_s ?? 30) * 1000 }, (error, stdout, stderr) =>
      resolve({ exit_code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
  const result = { ...output, truncated: false, timed_out: false };
  return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result, isError: false };
});

// DESKHAND_FAKE_DEVICE_START_DELAY_MS: a device client slow to start (a cold disk, a slow X server).
await new Promise((resolve) => setTimeout(resolve, Number(process.env.DESKHAND_FAKE_DEVICE_START_DELAY_MS ?? 0)));
await server.connect(new StdioServerTransport());
