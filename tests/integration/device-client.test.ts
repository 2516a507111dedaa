import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPECT_POINTER_META, POINTER_MOVED_META, ScreenshotMeta, WindowInfo } from '../../src-main/device/contract';
import type { DeviceConfig } from '../../src-main/device/config';
import { deviceLaunchSpec } from '../../src-main/device/launch';
import { startXterm, startXvfb, type XDisplay, type XProgram } from '../support/xvfb';

/**
 * The device client as the host runs it (a child process speaking MCP on stdio) against a real X
 * display with openbox and two xterms. Effects are checked in the programs: files written by the
 * shells the text was typed into.
 */

const ROOT = process.cwd();

interface Device {
  client: Client;
  stderr: () => string;
}

async function startDevice(x: XDisplay, extraArgs: Partial<DeviceConfig> = {}): Promise<Device> {
  const spec = deviceLaunchSpec({ root: ROOT, mode: 'source', env: x.env, config: extraArgs });
  const transport = new StdioClientTransport({ ...spec, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'device-client-test', version: '0.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

async function call(device: Device, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await device.client.callTool({ name, arguments: args })) as CallToolResult;
}

async function callOk(device: Device, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  const result = await call(device, name, args);
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}\n${device.stderr()}`);
  return result;
}

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

async function waitForFile(path: string, timeoutMs = 5_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const content = await readFile(path, 'utf8');
      if (content.length > 0) return content;
    } catch {
      // not written yet
    }
    if (Date.now() > deadline) throw new Error(`${path} was not written within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function windows(device: Device): Promise<WindowInfo[]> {
  const result = await callOk(device, 'list_windows');
  const structured = result.structuredContent as { windows: unknown[] };
  return structured.windows.map((w) => WindowInfo.parse(w));
}

function center(bounds: WindowInfo['bounds']): { x: number; y: number } {
  return { x: Math.round(bounds.x + bounds.width / 2), y: Math.round(bounds.y + bounds.height / 2) };
}

describe('device client over MCP stdio (Xvfb + openbox + xterm)', () => {
  let x: XDisplay;
  let termA: XProgram;
  let termB: XProgram;
  let dir: string;
  let device: Device;

  beforeAll(async () => {
    x = await startXvfb({ width: 1280, height: 800 });
    dir = await mkdtemp(join(tmpdir(), 'deskhand-device-'));
    termA = await startXterm(x, { geometry: '80x24+10+10', cwd: dir, env: { XT: 'A' }, title: 'term-A' });
    termB = await startXterm(x, { geometry: '80x24+660+10', cwd: dir, env: { XT: 'B' }, title: 'term-B' });
    device = await startDevice(x);
  });

  afterAll(async () => {
    await device?.client.close();
    await termA?.stop();
    await termB?.stop();
    await x?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('registers the device tools', async () => {
    const { tools } = await device.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'click',
        'drag',
        'execute_command',
        'focus_window',
        'hotkey',
        'launch_app',
        'list_displays',
        'list_windows',
        'move',
        'pointer',
        'screenshot',
        'scroll',
        'type_text',
        'wait',
      ].sort(),
    );
  });

  it('takes a non-blank 1280x800 screenshot with its geometry: lossless PNG for this desktop of text windows', async () => {
    const result = await callOk(device, 'screenshot');
    const image = result.content.find((c) => c.type === 'image');
    expect(image?.type).toBe('image');
    if (image?.type !== 'image') return;
    expect(image.mimeType).toBe('image/png');

    const meta = ScreenshotMeta.parse(result.structuredContent);
    expect(meta).toMatchObject({ width: 1280, height: 800, mimeType: 'image/png' });
    expect(meta.region).toEqual({ x: 0, y: 0, width: 1280, height: 800 });

    const bytes = Buffer.from(image.data, 'base64');
    const info = await sharp(bytes).metadata();
    expect(info).toMatchObject({ format: 'png', width: 1280, height: 800, channels: 3 });
    const stats = await sharp(bytes).stats();
    const spread = Math.max(...stats.channels.map((c) => c.max - c.min));
    expect(spread, 'all pixels have the same colour').toBeGreaterThan(50);
  });

  it('sends a window that stayed the same in fewer bytes once it has been idle (the agent waiting for its model), pixel for pixel the same', async () => {
    const [window] = await windows(device);
    const shot = async (): Promise<Buffer> => {
      const image = (await callOk(device, 'screenshot', { window_id: window?.id })).content.find((c) => c.type === 'image');
      if (image?.type !== 'image') throw new Error('no image');
      return Buffer.from(image.data, 'base64');
    };
    // The first two screenshots back to back: nothing idle in between, so the second is the first's bytes.
    const first = await shot();
    const second = await shot();
    expect(second.equals(first)).toBe(true);
    // Then a pause longer than the device's quiet time, as while a model answers.
    await new Promise((done) => setTimeout(done, 600));
    const third = await shot();
    expect(third.length).toBeLessThan(first.length);
    const pixels = (png: Buffer) => sharp(png).raw().toBuffer();
    expect((await pixels(third)).equals(await pixels(first))).toBe(true);
  });

  it('lists the xterms with ids, titles, app and bounds', async () => {
    const list = await windows(device);
    const a = list.find((w) => w.id === termA.windowId);
    const b = list.find((w) => w.id === termB.windowId);
    expect(a).toMatchObject({ title: 'term-A', app: 'xterm' });
    expect(b).toMatchObject({ title: 'term-B', app: 'xterm' });
    // Bounds are the outer frame, which openbox puts where -geometry asked (wmctrl would say 12,50).
    expect(a?.bounds).toMatchObject({ x: 10, y: 10 });
    expect(b?.bounds).toMatchObject({ x: 660, y: 10 });
    expect(a?.bounds.width).toBeGreaterThan(300);
    expect(a?.bounds.height).toBeGreaterThan(200);
  });

  it('clicks into an xterm and types a command ending in a newline', async () => {
    const out = join(dir, 'out.txt');
    await callOk(device, 'screenshot');
    const a = (await windows(device)).find((w) => w.id === termA.windowId);
    if (!a) throw new Error('xterm A not listed');
    await callOk(device, 'type_text', { text: `echo deskhand-ok > ${out}\n`, ...center(a.bounds) });
    expect((await waitForFile(out)).trim()).toBe('deskhand-ok');
  });

  it('types shell symbols and non-ASCII exactly', async () => {
    const out = join(dir, 'symbols.txt');
    const payload = '| : " ? ~ _ + { } ü > < ! @ # $ % ^ & * ( ) [ ] \\ ` = Ärger € 中';
    // Single quotes keep bash from interpreting the payload; printf '%s' adds no newline.
    await callOk(device, 'type_text', { text: `printf '%s' '${payload}' > ${out}\n` });
    expect(await waitForFile(out)).toBe(payload);
  });

  it('presses hotkeys', async () => {
    const out = join(dir, 'hotkey.txt');
    await callOk(device, 'type_text', { text: `echo hotkey-ok > ${out}` });
    await callOk(device, 'hotkey', { keys: ['enter'] });
    expect((await waitForFile(out)).trim()).toBe('hotkey-ok');
  });

  it('refuses an action, doing nothing, when the pointer is not where the host expects it', async () => {
    const out = join(dir, 'takeover.txt');
    const at = { x: 400, y: 300 };
    await callOk(device, 'move', at);
    const typeWith = (meta: unknown): Promise<CallToolResult> =>
      device.client.callTool({ name: 'type_text', arguments: { text: `echo typed >> ${out}\n` }, _meta: { [EXPECT_POINTER_META]: meta } }) as Promise<CallToolResult>;

    const moved = await typeWith({ x: 100, y: 100, tolerance: 4 });
    expect(moved.isError).toBe(true);
    expect(textOf(moved)).toBe('type_text not run: the pointer is at (400, 300), not at (100, 100) where the agent left it');
    expect(moved._meta).toMatchObject({ [POINTER_MOVED_META]: { pointer: { screen: at } } });
    // A tool with an output schema is refused the same way (its schema governs structuredContent).
    const command = (await device.client.callTool({
      name: 'execute_command',
      arguments: { command: `echo ran > ${out}` },
      _meta: { [EXPECT_POINTER_META]: { x: 100, y: 100, tolerance: 4 } },
    })) as CallToolResult;
    expect(command.isError).toBe(true);
    expect(textOf(command)).toMatch(/^execute_command not run: the pointer is at \(400, 300\)/);
    expect(command._meta).toMatchObject({ [POINTER_MOVED_META]: { pointer: { screen: at } } });
    const malformed = await typeWith({ x: 'left', y: 100, tolerance: 4 });
    expect(malformed.isError).toBe(true);
    expect(textOf(malformed)).toMatch(/^type_text failed: bad deskhand\/expectPointer metadata/);
    await new Promise((r) => setTimeout(r, 500));
    await expect(readFile(out, 'utf8'), 'nothing was typed or run').rejects.toThrow(/ENOENT/);

    // Within the tolerance it acts.
    expect((await typeWith({ x: 402, y: 301, tolerance: 4 })).isError).toBeFalsy();
    expect((await waitForFile(out)).trim()).toBe('typed');
  });

  it('crops a screenshot to a window and maps clicks through the crop', async () => {
    const a = (await windows(device)).find((w) => w.id === termA.windowId);
    if (!a) throw new Error('xterm A not listed');
    const result = await callOk(device, 'screenshot', { window_id: termA.windowId });
    const meta = ScreenshotMeta.parse(result.structuredContent);
    expect(meta.region).toEqual(a.bounds);
    expect({ width: meta.width, height: meta.height }).toEqual({ width: a.bounds.width, height: a.bounds.height });

    // Focus B first so that only a correctly mapped click puts the text into A.
    await callOk(device, 'screenshot');
    const b = (await windows(device)).find((w) => w.id === termB.windowId);
    if (!b) throw new Error('xterm B not listed');
    await callOk(device, 'click', center(b.bounds));

    await callOk(device, 'screenshot', { window_id: termA.windowId });
    const out = join(dir, 'which-crop.txt');
    await callOk(device, 'type_text', {
      text: `echo $XT > ${out}\n`,
      x: Math.round(meta.width / 2),
      y: Math.round(meta.height / 2),
    });
    expect((await waitForFile(out)).trim()).toBe('A');
  });

  it('returns a tool error for bad arguments and keeps serving', async () => {
    const bad = await call(device, 'click', { x: 'a', y: 10 });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/x/);
    expect(textOf(bad)).toMatch(/expected number/);

    const missing = await call(device, 'type_text', {});
    expect(missing.isError).toBe(true);

    await callOk(device, 'screenshot');
    const outside = await call(device, 'click', { x: 5000, y: 10 });
    expect(outside.isError).toBe(true);
    expect(textOf(outside)).toMatch(/outside the last screenshot, which is 1280x800/);

    const badKey = await call(device, 'hotkey', { keys: ['ctrl', 'nosuchkey'] });
    expect(badKey.isError).toBe(true);
    expect(textOf(badKey)).toMatch(/unknown key name "nosuchkey"/);

    const badWindow = await call(device, 'screenshot', { window_id: '0x7fffff01' });
    expect(badWindow.isError).toBe(true);
    expect(textOf(badWindow)).toMatch(/no window with id/);

    const next = await callOk(device, 'list_windows');
    expect(textOf(next)).toContain(termA.windowId);
  });

  it('scrolls an xterm back through its output', async () => {
    await callOk(device, 'screenshot');
    const b = (await windows(device)).find((w) => w.id === termB.windowId);
    if (!b) throw new Error('xterm B not listed');
    const c = center(b.bounds);
    await callOk(device, 'type_text', { text: 'seq 1 300\n', ...c });
    await new Promise((r) => setTimeout(r, 300));
    const pixels = async (): Promise<Buffer> => {
      const shot = await callOk(device, 'screenshot', { window_id: termB.windowId });
      const image = shot.content.find((item) => item.type === 'image');
      if (image?.type !== 'image') throw new Error('no image');
      return sharp(Buffer.from(image.data, 'base64')).raw().toBuffer();
    };
    const before = await pixels();
    // Over the desktop background the wheel would switch openbox desktops; over the xterm it scrolls.
    await callOk(device, 'scroll', { x: Math.round(b.bounds.width / 2), y: Math.round(b.bounds.height / 2), direction: 'up', amount: 5 });
    const after = await pixels();
    expect(after.equals(before), 'the xterm did not scroll').toBe(false);
    await callOk(device, 'scroll', { x: Math.round(b.bounds.width / 2), y: Math.round(b.bounds.height / 2), direction: 'down', amount: 10 });
  });

  it('waits, moves and drags', async () => {
    const started = Date.now();
    await callOk(device, 'wait', { seconds: 0.3 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    await callOk(device, 'screenshot');
    const b = (await windows(device)).find((w) => w.id === termB.windowId);
    if (!b) throw new Error('xterm B not listed');
    const c = center(b.bounds);
    const moved = await callOk(device, 'move', c);
    expect(moved.structuredContent).toMatchObject({ pointer: { screen: c } });
    // A drag inside the xterm selects text: harmless, and it must end where it was told to.
    const to = { x: c.x + 100, y: c.y + 40 };
    const dragged = await callOk(device, 'drag', { from_x: c.x, from_y: c.y, to_x: to.x, to_y: to.y });
    expect(dragged.structuredContent).toMatchObject({ pointer: { screen: to } });
  });

  describe('with JPEG screenshots downscaled by 2 (--max-edge=640 --format=jpeg)', () => {
    let small: Device;

    beforeAll(async () => {
      small = await startDevice(x, { maxEdge: 640, format: 'jpeg' });
    });

    afterAll(async () => {
      await small?.client.close();
    });

    it('maps image pixels to the screen at scale 2', async () => {
      const shot = await callOk(small, 'screenshot');
      expect(ScreenshotMeta.parse(shot.structuredContent)).toMatchObject({ width: 640, height: 400, mimeType: 'image/jpeg' });

      for (const [term, expected] of [
        [termB, 'B'],
        [termA, 'A'],
      ] as const) {
        const w = (await windows(small)).find((win) => win.id === term.windowId);
        if (!w) throw new Error(`xterm ${expected} not listed`);
        const c = center(w.bounds);
        const out = join(dir, `which-${expected}.txt`);
        await callOk(small, 'type_text', { text: `echo $XT > ${out}\n`, x: c.x / 2, y: c.y / 2 });
        expect((await waitForFile(out)).trim()).toBe(expected);
      }
    });
  });
});

describe('device client without a display', () => {
  it('offers only execute_command, runs it, and says why', async () => {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined && key !== 'DISPLAY' && key !== 'WAYLAND_DISPLAY') env[key] = value;
    const transport = new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', 'src-main/device/main.ts'], cwd: ROOT, env, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: 'deskhand-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['execute_command']);
      expect(client.getInstructions()).toMatch(/without a screen, so only execute_command is offered: .*no X display: DISPLAY is not set/);
      const result = (await client.callTool({ name: 'execute_command', arguments: { command: 'echo shell without a screen' } })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ exit_code: 0, stdout: 'shell without a screen\n' });
      // A screen tool is not there to call (its native code would crash without a display).
      const screenshot = (await client.callTool({ name: 'screenshot', arguments: {} })) as CallToolResult;
      expect(screenshot.isError).toBe(true);
      expect(stderr).toMatch(/no X display: DISPLAY is not set.*Only execute_command is offered/);
    } finally {
      await client.close();
    }
  });
});
