import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScreenshotMeta, WindowInfo } from '../../src-main/device/contract';
import { eventually, startDevice, startXProgram, startXterm, startXvfb, textOf, type DeviceHandle, type XDisplay, type XProgram } from '../support/xvfb';

/**
 * The device tools' contract: the device client's MCP tools, their argument names and optionality
 * as published to MCP clients, their results, the key names, and coordinates in pixels of the last
 * image (after crop and downscale). Effects are checked in real programs under Xvfb + openbox.
 */

type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; required?: string[]; enum?: unknown[]; items?: JsonSchema; anyOf?: JsonSchema[] };

/** tool -> [argument, required, JSON type (or enum values)] as the contract table lists them. */
const CONTRACT: Record<string, Array<[string, boolean, string | string[]]>> = {
  click: [
    ['x', true, 'number'],
    ['y', true, 'number'],
    ['button', false, ['left', 'right', 'middle']],
    ['double', false, 'boolean'],
  ],
  move: [
    ['x', true, 'number'],
    ['y', true, 'number'],
  ],
  drag: [
    ['from_x', true, 'number'],
    ['from_y', true, 'number'],
    ['to_x', true, 'number'],
    ['to_y', true, 'number'],
  ],
  scroll: [
    ['x', true, 'number'],
    ['y', true, 'number'],
    ['direction', true, ['up', 'down', 'left', 'right']],
    ['amount', false, 'number'],
  ],
  type_text: [
    ['text', true, 'string'],
    ['x', false, 'number'],
    ['y', false, 'number'],
  ],
  hotkey: [['keys', true, 'array']],
  wait: [['seconds', true, 'number']],
  launch_app: [
    ['name', true, 'string'],
    ['args', false, 'any'],
  ],
  focus_window: [['id', true, 'string']],
  list_windows: [],
  screenshot: [['window_id', false, 'string']],
  execute_command: [
    ['command', true, 'string'],
    ['cwd', false, 'string'],
    ['timeout_s', false, 'number'],
  ],
};

function typeOf(schema: JsonSchema): string | string[] {
  if (schema.enum) return schema.enum.map(String);
  if (schema.anyOf) return 'any';
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  return type === 'integer' ? 'number' : (type ?? 'any');
}

async function waitForText(path: string, test: (text: string) => boolean, timeoutMs = 8_000): Promise<string> {
  return eventually(`${path} to be written`, timeoutMs, async () => {
    const text = await readFile(path, 'utf8').catch(() => '');
    return test(text) ? text : undefined;
  });
}

async function windows(device: DeviceHandle): Promise<WindowInfo[]> {
  const result = await device.callOk('list_windows');
  // The contract's result: a list of {id, title, app, bounds}. The text says it; structuredContent.windows too.
  const list = JSON.parse(textOf(result)) as unknown[];
  return list.map((w) => WindowInfo.parse(w));
}

let x: XDisplay;
let device: DeviceHandle;
let dir: string;
const programs: XProgram[] = [];

beforeAll(async () => {
  x = await startXvfb({ width: 1280, height: 800 });
  dir = await mkdtemp(join(tmpdir(), 'deskhand-contract-device-'));
  device = await startDevice(x);
});

afterAll(async () => {
  await device?.close();
  for (const program of programs.reverse()) await program.stop().catch(() => undefined);
  await x?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('section 5: tool names and arguments as published over MCP', () => {
  it('lists every contract tool with exactly the contract\'s arguments, required ones required and optional ones optional', async () => {
    const { tools } = await device.client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const problems: string[] = [];
    const extras: string[] = [];
    for (const [name, args] of Object.entries(CONTRACT)) {
      const tool = byName.get(name);
      if (!tool) {
        problems.push(`${name}: missing`);
        continue;
      }
      const schema = tool.inputSchema as JsonSchema;
      const properties = schema.properties ?? {};
      const required = new Set(schema.required ?? []);
      for (const [arg, isRequired, type] of args) {
        const property = properties[arg];
        if (!property) {
          problems.push(`${name}.${arg}: missing`);
          continue;
        }
        if (required.has(arg) !== isRequired) problems.push(`${name}.${arg}: ${isRequired ? 'should be required' : 'should be optional'}`);
        const actual = typeOf(property);
        if (type !== 'any' && JSON.stringify(actual) !== JSON.stringify(type)) problems.push(`${name}.${arg}: type ${JSON.stringify(actual)}, contract ${JSON.stringify(type)}`);
      }
      for (const arg of Object.keys(properties)) {
        if (!args.some(([listed]) => listed === arg)) {
          extras.push(`${name}.${arg}`);
          // An argument the contract does not list must not be needed: callers that follow the contract never send it.
          if (required.has(arg)) problems.push(`${name}.${arg}: required, but not in the contract`);
        }
      }
    }
    // hotkey keys is a list of strings.
    const keys = (byName.get('hotkey')?.inputSchema as JsonSchema | undefined)?.properties?.keys;
    if (keys?.items?.type !== 'string') problems.push(`hotkey.keys: items ${JSON.stringify(keys?.items)}`);
    expect(problems).toEqual([]);
    // Reported, not refused: optional extras beyond the table (more is welcome, as long as it is optional).
    console.log(`optional arguments beyond the contract: ${extras.join(', ') || 'none'}`);
  });
});

describe('section 5: results and effects', () => {
  it('list_windows -> [{id, title, app, bounds}]; focus_window id gives the window the keyboard', async () => {
    const a = await startXterm(x, { geometry: '60x15+0+0', cwd: dir, env: { XT: 'A' }, title: 'contract-A' });
    const b = await startXterm(x, { geometry: '60x15+640+0', cwd: dir, env: { XT: 'B' }, title: 'contract-B' });
    programs.push(a, b);
    const list = await windows(device);
    expect(list.find((w) => w.id === a.windowId)).toMatchObject({ title: 'contract-A', app: 'xterm', bounds: { x: 0, y: 0 } });
    for (const w of list) expect(Object.keys(w)).toEqual(expect.arrayContaining(['id', 'title', 'app', 'bounds']));

    for (const [term, name] of [
      [b, 'B'],
      [a, 'A'],
    ] as const) {
      await device.callOk('focus_window', { id: term.windowId });
      const out = join(dir, `focus-${name}.txt`);
      await device.callOk('type_text', { text: `echo $XT > ${out}\n` });
      expect((await waitForText(out, (t) => t.includes('\n'))).trim()).toBe(name);
    }
  });

  it('execute_command command, cwd?, timeout_s? -> {exit_code, stdout, stderr, truncated}', async () => {
    const plain = await device.callOk('execute_command', { command: 'echo out; echo err >&2; exit 3' });
    expect(plain.structuredContent).toMatchObject({ exit_code: 3, stdout: 'out\n', stderr: 'err\n', truncated: false });
    expect(JSON.parse(textOf(plain))).toMatchObject({ exit_code: 3, stdout: 'out\n', stderr: 'err\n', truncated: false });

    const inDir = await device.callOk('execute_command', { command: 'pwd', cwd: dir });
    expect(inDir.structuredContent).toMatchObject({ exit_code: 0, stdout: `${dir}\n` });

    const big = await device.callOk('execute_command', { command: 'head -c 3000000 /dev/zero | tr "\\0" a' });
    expect(big.structuredContent).toMatchObject({ exit_code: 0, truncated: true });

    const started = Date.now();
    const slow = await device.call('execute_command', { command: 'sleep 20', timeout_s: 1 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(slow.structuredContent).toMatchObject({ truncated: false });
    expect(Object.keys(slow.structuredContent ?? {})).toEqual(expect.arrayContaining(['exit_code', 'stdout', 'stderr', 'truncated']));
  });

  it('launch_app name, args? starts the program with its arguments', async () => {
    const out = join(dir, 'launched.txt');
    const launched = await device.callOk('launch_app', { name: 'xterm', args: ['-title', 'contract-launched', '-e', 'bash', '-c', `echo launched > ${out}; sleep 30`] });
    expect(textOf(launched)).toMatch(/started xterm/);
    expect((await waitForText(out, (t) => t.includes('\n'))).trim()).toBe('launched');
    const window = (await windows(device)).find((w) => w.title === 'contract-launched');
    expect(window).toBeDefined();
    if (window) {
      const pid = (launched.structuredContent as { pid?: number | null }).pid;
      if (pid) {
        try {
          process.kill(-pid, 'SIGTERM');
        } catch {
          process.kill(pid, 'SIGTERM');
        }
      }
    }
  });
});

describe('section 5: key names', () => {
  it('accepts every listed key name, and each reaches a real program', async () => {
    const out = join(dir, 'keys.txt');
    // A terminal in raw mode that writes every byte it gets, made visible (cat -v).
    const term = await startXProgram(x, 'xterm', ['-geometry', '80x10+0+400', '-title', 'contract-keys', '-e', 'bash', '-c', `stty raw -echo; exec cat -v > ${out}`], {
      env: { LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' },
    });
    programs.push(term);
    await device.callOk('focus_window', { id: term.windowId });
    const chords: string[][] = [
      ['a'],
      ['z'],
      ['0'],
      ['9'],
      ['/'],
      ['-'],
      ['space'],
      ['tab'],
      ['enter'],
      ['esc'],
      ['backspace'],
      ['delete'],
      ['up'],
      ['down'],
      ['left'],
      ['right'],
      ['home'],
      ['end'],
      ['pageup'],
      ['pagedown'],
      ...Array.from({ length: 12 }, (_, i) => [`f${i + 1}`]),
      ['ctrl', 'a'],
      ['shift', 'b'],
      ['alt', 'c'],
    ];
    const refused: string[] = [];
    for (const chord of chords) {
      const result = await device.call('hotkey', { keys: chord });
      if (result.isError) refused.push(`${chord.join('+')}: ${textOf(result)}`);
      await device.callOk('hotkey', { keys: ['.'] });
    }
    // Modifiers alone, and meta (cmd/win), are names too (nothing to see in a terminal).
    for (const chord of [['ctrl'], ['alt'], ['shift'], ['meta']]) {
      const result = await device.call('hotkey', { keys: chord });
      if (result.isError) refused.push(`${chord.join('+')}: ${textOf(result)}`);
    }
    await device.callOk('hotkey', { keys: ['.'] });
    expect(refused).toEqual([]);
    const text = await waitForText(out, (t) => t.split('.').length > chords.length + 1);
    const pieces = text.split('.');
    const seen = Object.fromEntries(chords.map((chord, i) => [chord.join('+'), pieces[i]]));
    expect(seen).toMatchObject({
      a: 'a',
      z: 'z',
      '0': '0',
      '9': '9',
      '/': '/',
      '-': '-',
      space: ' ',
      tab: '\t',
      enter: '^M',
      esc: '^[',
      up: '^[[A',
      down: '^[[B',
      right: '^[[C',
      left: '^[[D',
      pageup: '^[[5~',
      pagedown: '^[[6~',
      delete: '^[[3~',
      f1: '^[OP',
      f12: '^[[24~',
      'ctrl+a': '^A',
      'shift+b': 'B',
    });
    // Every key that types something typed something.
    const empty = chords.map((chord) => chord.join('+')).filter((name) => !seen[name]);
    expect(empty).toEqual([]);
  });
});

describe('section 5: coordinates are pixels of the last image (after crop and downscale)', () => {
  it('a window screenshot scaled down is the frame of reference for the next click', async () => {
    const small = await startDevice(x, { config: { maxEdge: 320 } });
    try {
      const left = await startXterm(x, { geometry: '80x24+0+0', cwd: dir, env: { XT: 'L' }, title: 'crop-L' });
      const right = await startXterm(x, { geometry: '80x24+640+0', cwd: dir, env: { XT: 'R' }, title: 'crop-R' });
      programs.push(left, right);
      // Focus the left one, then aim at the right one only through its cropped, scaled image.
      await small.callOk('focus_window', { id: left.windowId });
      const shot = await small.callOk('screenshot', { window_id: right.windowId });
      const meta = ScreenshotMeta.parse(shot.structuredContent);
      expect(meta.width).toBeLessThanOrEqual(320);
      expect(meta.region.width).toBeGreaterThan(meta.width); // downscaled
      expect(meta.region.x).toBeGreaterThanOrEqual(600); // cropped to the right window
      const out = join(dir, 'crop-scale.txt');
      await small.callOk('type_text', { text: `echo $XT > ${out}\n`, x: Math.round(meta.width / 2), y: Math.round(meta.height / 2) });
      expect((await waitForText(out, (t) => t.includes('\n'))).trim()).toBe('R');
      // A point outside that image is refused, even though it is on the screen.
      const outside = await small.call('click', { x: meta.width + 5, y: 5 });
      expect(outside.isError).toBe(true);
    } finally {
      await small.close();
    }
  });
});
