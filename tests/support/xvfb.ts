import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import type { DeviceConfig } from '../../src-main/device/config';
import { deviceLaunchSpec } from '../../src-main/device/launch';

/**
 * A private X display for desktop tests: Xvfb on a free display number, openbox as the window manager
 * (EWMH needs one), and helpers to start X programs on it. Everything started here dies on stop() and,
 * as a last resort, when the test process exits.
 */

const execFileP = promisify(execFile);

export interface XDisplay {
  /** e.g. ":90" */
  display: string;
  /** process.env with DISPLAY set to this display (and no Wayland). */
  env: NodeJS.ProcessEnv;
  width: number;
  height: number;
  stop(): Promise<void>;
}

export interface XDisplayOptions {
  width?: number;
  height?: number;
  depth?: number;
  /** First display number tried; the helper walks upward from here. */
  firstDisplay?: number;
  /** Start openbox (default true). */
  windowManager?: boolean;
  /** An Xauthority file: the server admits only clients with its cookie (XAUTHORITY is set in `env`). */
  authFile?: string;
}

export interface XProgram {
  pid: number;
  /** Hex X window id as wmctrl prints it, e.g. "0x00a0000c". */
  windowId: string;
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function track(child: ChildProcess): ChildProcess {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // SIGTERM rather than SIGKILL: Xvfb removes its socket and lock file on SIGTERM.
    process.once('exit', () => {
      for (const c of live) c.kill('SIGTERM');
    });
  }
  return child;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function waitFor(what: string, timeoutMs: number, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

async function succeeds(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<boolean> {
  try {
    await execFileP(cmd, args, { env, timeout: 5_000 });
    return true;
  } catch {
    return false;
  }
}

async function stopChild(child: ChildProcess, graceMs = 2_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

function displayInUse(n: number): boolean {
  return existsSync(`/tmp/.X11-unix/X${n}`) || existsSync(`/tmp/.X${n}-lock`);
}

/** Starts Xvfb; resolves once the server accepts connections, rejects if it exits first. */
function launchXvfb(n: number, screen: string, authFile?: string): Promise<ChildProcess | null> {
  return new Promise((resolve) => {
    // -displayfd: Xvfb writes the display number to fd 3 once it is ready for clients.
    // -noreset: otherwise the server resets whenever its last client leaves (e.g. the xdpyinfo probe),
    // and a client connecting during the reset fails with "cannot open display".
    const child = track(
      spawn('Xvfb', [`:${n}`, '-screen', '0', screen, '-nolisten', 'tcp', '-noreset', '-displayfd', '3', ...(authFile ? ['-auth', authFile] : [])], {
        stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
      }),
    );
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const readyPipe = child.stdio[3];
    let settled = false;
    const finish = (value: ChildProcess | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(null);
    }, 10_000);
    readyPipe?.on('data', () => finish(child));
    child.once('exit', () => {
      if (!settled && process.env.DESKHAND_TEST_DEBUG) process.stderr.write(`Xvfb :${n} exited: ${stderr}\n`);
      finish(null);
    });
    child.once('error', () => finish(null));
  });
}

export async function startXvfb(options: XDisplayOptions = {}): Promise<XDisplay> {
  const width = options.width ?? 1280;
  const height = options.height ?? 800;
  const depth = options.depth ?? 24;
  const first = options.firstDisplay ?? 90;

  let xvfb: ChildProcess | null = null;
  let n = first;
  for (; n < first + 100 && !xvfb; n++) {
    if (displayInUse(n)) continue;
    xvfb = await launchXvfb(n, `${width}x${height}x${depth}`, options.authFile);
  }
  if (!xvfb) throw new Error(`could not start Xvfb on any display :${first}..:${first + 99}`);
  const display = `:${n - 1}`;

  const env: NodeJS.ProcessEnv = { ...process.env, DISPLAY: display, ...(options.authFile ? { XAUTHORITY: options.authFile } : {}) };
  delete env.WAYLAND_DISPLAY;
  const children: ChildProcess[] = [xvfb];

  const stop = async (): Promise<void> => {
    for (const child of [...children].reverse()) await stopChild(child);
  };

  try {
    await waitFor(`X server ${display}`, 10_000, () => succeeds('xdpyinfo', ['-display', display], env));
    if (options.windowManager !== false) {
      const args = process.env.DESKHAND_TEST_DEBUG ? ['--sm-disable', '--debug'] : ['--sm-disable'];
      const wm = track(spawn('openbox', args, { env, stdio: ['ignore', 'pipe', 'pipe'] }));
      children.push(wm);
      let wmOutput = '';
      wm.stdout?.on('data', (d: Buffer) => (wmOutput += d.toString()));
      wm.stderr?.on('data', (d: Buffer) => (wmOutput += d.toString()));
      // wmctrl -m succeeds once _NET_SUPPORTING_WM_CHECK is set, i.e. the window manager is managing.
      await waitFor(`openbox on ${display}`, 10_000, async () => {
        if (wm.exitCode !== null) throw new Error(`openbox exited with code ${wm.exitCode}`);
        return succeeds('wmctrl', ['-m'], env);
      }).catch((error: unknown) => {
        throw new Error(`${error instanceof Error ? error.message : String(error)}; openbox said: ${wmOutput.trim()}`);
      });
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { display, env, width, height, stop };
}

/**
 * Changes the screen's size through RandR, as a new monitor resolution does. Xvfb's framebuffer cannot
 * grow past the size the display was started with: start it at the largest size a test needs.
 */
export async function setScreenSize(x: XDisplay, width: number, height: number): Promise<void> {
  const mode = `${width}x${height}`;
  const xrandr = async (...args: string[]): Promise<string> => (await execFileP('xrandr', args, { env: x.env, timeout: 5_000 })).stdout;
  const state = await xrandr();
  const output = /^(\S+) connected/m.exec(state)?.[1];
  if (!output) throw new Error(`xrandr shows no connected output on ${x.display}: ${state}`);
  if (!new RegExp(`^\\s+${mode}\\s`, 'm').test(state)) {
    const w = String(width);
    const h = String(height);
    await xrandr('--newmode', mode, '60', w, w, w, w, h, h, h, h);
    await xrandr('--addmode', output, mode);
  }
  await xrandr('--output', output, '--mode', mode, '--fb', mode);
}

interface WmctrlRow {
  id: string;
  pid: number;
}

async function listWindows(env: NodeJS.ProcessEnv): Promise<WmctrlRow[]> {
  try {
    const { stdout } = await execFileP('wmctrl', ['-lp'], { env, timeout: 5_000 });
    return stdout
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter((cols) => cols.length >= 3 && cols[0]?.startsWith('0x'))
      .map((cols) => ({ id: cols[0] ?? '', pid: Number(cols[2]) }));
  } catch {
    return [];
  }
}

/**
 * Starts an X program and waits until the window manager has mapped a window owned by it
 * (matched on _NET_WM_PID).
 */
export async function startXProgram(
  x: XDisplay,
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<XProgram> {
  const env = { ...x.env, ...options.env };
  const child = track(spawn(command, args, { env, cwd: options.cwd, stdio: 'ignore' }));
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${command}`);
  const stop = (): Promise<void> => stopChild(child);
  let windowId = '';
  try {
    await waitFor(`a window of ${command} (pid ${pid})`, options.timeoutMs ?? 15_000, async () => {
      if (child.exitCode !== null) throw new Error(`${command} exited with code ${child.exitCode}`);
      const match = (await listWindows(x.env)).find((w) => w.pid === pid);
      if (match) windowId = match.id;
      return match !== undefined;
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { pid, windowId, stop };
}

export interface XtermOptions {
  /** xterm -geometry, e.g. "100x30+0+0"; ignored when maximized. */
  geometry?: string;
  maximized?: boolean;
  cwd?: string;
  /** Extra environment for the shell inside. */
  env?: NodeJS.ProcessEnv;
  title?: string;
  /** xterm -name: the instance name, which the window's WM_CLASS (its application) then says. */
  name?: string;
}

/**
 * xterm running an interactive bash without rc files, in a UTF-8 locale so non-ASCII text typed into
 * it reaches programs intact. History goes nowhere.
 */
export function startXterm(x: XDisplay, options: XtermOptions = {}): Promise<XProgram> {
  const args = options.maximized ? ['-maximized'] : ['-geometry', options.geometry ?? '100x30+0+0'];
  if (options.name) args.push('-name', options.name);
  args.push('-title', options.title ?? 'deskhand-xterm', '-e', 'bash', '--norc', '--noprofile', '-i');
  return startXProgram(x, 'xterm', args, {
    cwd: options.cwd,
    env: { LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', HISTFILE: '/dev/null', PS1: '$ ', ...options.env },
  });
}

// ---------------------------------------------------------------------------------------------------
// The device client on a test display, as the host runs it: a child process speaking MCP over stdio.

export interface DeviceHandle {
  client: Client;
  /** The device client's process id. */
  pid: number;
  stderr: () => string;
  /** `meta` goes in the request's MCP `_meta`, as the host's checks do. */
  call(name: string, args?: Record<string, unknown>, options?: { timeout?: number; meta?: Record<string, unknown> }): Promise<CallToolResult>;
  /** Like call, but throws with the tool's message and the device log when the tool failed. */
  callOk(name: string, args?: Record<string, unknown>, options?: { timeout?: number; meta?: Record<string, unknown> }): Promise<CallToolResult>;
  close(): Promise<void>;
}

export interface DeviceOptions {
  config?: Partial<DeviceConfig>;
  /** Extra environment for the device client (and so for what it launches). */
  env?: NodeJS.ProcessEnv;
}

export async function startDevice(x: XDisplay, options: DeviceOptions = {}): Promise<DeviceHandle> {
  const spec = deviceLaunchSpec({ root: process.cwd(), mode: 'source', env: { ...x.env, ...options.env }, config: options.config ?? {} });
  const transport = new StdioClientTransport({ ...spec, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'deskhand-test', version: '0.0.0' });
  await client.connect(transport);
  const pid = transport.pid;
  if (pid === null) throw new Error('the device client has no pid');
  const call = async (
    name: string,
    args: Record<string, unknown> = {},
    opts: { timeout?: number; meta?: Record<string, unknown> } = {},
  ): Promise<CallToolResult> =>
    (await client.callTool(
      { name, arguments: args, ...(opts.meta ? { _meta: opts.meta } : {}) },
      undefined,
      opts.timeout ? { timeout: opts.timeout } : {},
    )) as CallToolResult;
  return {
    client,
    pid,
    stderr: () => stderr,
    call,
    async callOk(name, args = {}, opts = {}) {
      const result = await call(name, args, opts);
      if (result.isError) throw new Error(`${name} failed: ${textOf(result)}\n${stderr}`);
      return result;
    },
    close: () => client.close(),
  };
}

export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** The image of a screenshot result, decoded to raw RGB with its size. */
export async function screenshotPixels(
  result: CallToolResult,
): Promise<{ data: Buffer; width: number; height: number; at: (x: number, y: number) => [number, number, number] }> {
  const image = result.content.find((c) => c.type === 'image');
  if (image?.type !== 'image') throw new Error('the result has no image');
  const { data, info } = await sharp(Buffer.from(image.data, 'base64')).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    data,
    width: info.width,
    height: info.height,
    at: (x, y) => {
      const i = (y * info.width + x) * 3;
      return [data[i] as number, data[i + 1] as number, data[i + 2] as number];
    },
  };
}

/** Polls `probe` until it returns a value (not undefined) or the time is up. */
export async function eventually<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

/** Running, as opposed to gone or a zombie waiting to be reaped (Linux /proc). */
export function processAlive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
