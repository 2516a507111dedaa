import { readFile } from 'node:fs/promises';
import type { WindowInfo } from './contract';
import { CommandMissingError, runFile } from './exec';

/**
 * Top-level windows through EWMH, read with xprop and xwininfo (x11-utils). nut.js getWindows() is not
 * used: without a window manager it aborts the process with BadWindow, and under openbox it returns
 * empty titles. wmctrl and xdotool are not used for geometry either: both add the frame extents to the
 * client's position a second time under reparenting window managers.
 */

export class UnsupportedError extends Error {
  override name = 'UnsupportedError';
}

export class WindowNotFoundError extends Error {
  override name = 'WindowNotFoundError';
}

/** WindowInfo plus what EWMH tells us for free; extra keys are ignored by WindowInfo.parse. */
export interface DesktopWindow extends WindowInfo {
  pid: number | null;
  active: boolean;
  minimized: boolean;
}

const TIMEOUT_MS = 5_000;
const PARALLEL = 6;
const TEXT_PROPS = ['_NET_WM_NAME', 'WM_NAME', 'WM_CLASS'] as const;

function assertX11(): void {
  if (process.platform !== 'linux' || !process.env.DISPLAY) {
    throw new UnsupportedError(`listing windows is not supported on this platform yet (${process.platform})`);
  }
}

// xprop/xwininfo print whatever the locale says; the hex format below sidesteps it for strings.
const xEnv = (): NodeJS.ProcessEnv => ({ ...process.env, LC_ALL: 'C' });

async function x11(command: string, args: string[]): Promise<string> {
  try {
    return await runFile(command, args, { timeoutMs: TIMEOUT_MS, env: xEnv() });
  } catch (error) {
    if (error instanceof CommandMissingError) {
      throw new UnsupportedError(`${error.message}; install x11-utils (xprop, xwininfo) to list windows`);
    }
    throw error;
  }
}

/** "0x20000c" / "2097164" -> 2097164; null when not a window id. */
export function parseWindowId(id: string): number | null {
  const text = id.trim();
  const value = /^0x[0-9a-f]+$/i.test(text) ? parseInt(text, 16) : /^\d+$/.test(text) ? Number(text) : NaN;
  return Number.isSafeInteger(value) && value > 0 ? value : null;
}

/** Same spelling as wmctrl: 0x plus eight hex digits. */
export function formatWindowId(id: number): string {
  return `0x${id.toString(16).padStart(8, '0')}`;
}

export interface XpropValue {
  type: string;
  /** Raw bytes for properties printed in the 8x format, else the text after " = ". */
  bytes?: Buffer;
  text?: string;
}

/**
 * Parses xprop output produced with `-f PROP 8x ' $0+\n'` for string properties (lines like
 * `WM_NAME(STRING) 0x47, 0x72`) and the default format for the rest (`_NET_WM_PID(CARDINAL) = 42`).
 */
export function parseXprop(output: string): Map<string, XpropValue> {
  const props = new Map<string, XpropValue>();
  for (const line of output.split('\n')) {
    const match = /^([A-Za-z0-9_]+)\(([A-Za-z0-9_]+)\)(.*)$/.exec(line);
    if (!match) continue;
    const [, name = '', type = '', rest = ''] = match;
    if (rest.startsWith(' = ') || rest === ' =') {
      props.set(name, { type, text: rest.slice(3).trim() });
    } else {
      const bytes = rest
        .split(',')
        .map((part) => part.trim())
        .filter((part) => /^0x[0-9a-f]+$/i.test(part))
        .map((part) => parseInt(part, 16));
      props.set(name, { type, bytes: Buffer.from(bytes) });
    }
  }
  return props;
}

function decodeText(value: XpropValue | undefined): string[] {
  if (!value?.bytes) return [];
  // STRING is Latin-1 by the ICCCM; COMPOUND_TEXT is mostly Latin-1 in practice.
  const text = value.bytes.toString(value.type === 'UTF8_STRING' ? 'utf8' : 'latin1');
  return text.split('\0').filter((part, i, all) => part !== '' || i < all.length - 1);
}

function numbers(value: XpropValue | undefined): number[] {
  return (value?.text ?? '')
    .split(',')
    .map((part) => Number(part.trim()))
    .filter((n) => Number.isFinite(n));
}

export interface XwininfoGeometry {
  x: number;
  y: number;
  width: number;
  height: number;
  mapState: string;
}

export function parseXwininfo(output: string): XwininfoGeometry | null {
  const field = (label: string): string | undefined =>
    new RegExp(`^\\s*${label}:\\s*(.+)$`, 'm').exec(output)?.[1]?.trim();
  const x = Number(field('Absolute upper-left X'));
  const y = Number(field('Absolute upper-left Y'));
  const width = Number(field('Width'));
  const height = Number(field('Height'));
  if (![x, y, width, height].every(Number.isFinite)) return null;
  return { x, y, width, height, mapState: field('Map State') ?? 'IsViewable' };
}

/** Window ids of the root's EWMH list, top of the stack first, and the active one. */
export function parseRootProps(output: string): { ids: number[]; active: number | null } {
  const idsOf = (prop: string): number[] => {
    const line = output.split('\n').find((l) => l.startsWith(`${prop}(`));
    if (!line) return [];
    return [...line.matchAll(/0x[0-9a-f]+/gi)].map((m) => parseInt(m[0], 16)).filter((n) => n > 0);
  };
  const stacking = idsOf('_NET_CLIENT_LIST_STACKING');
  const ids = stacking.length > 0 ? stacking.reverse() : idsOf('_NET_CLIENT_LIST');
  return { ids, active: idsOf('_NET_ACTIVE_WINDOW')[0] ?? null };
}

async function processName(pid: number | null): Promise<string> {
  if (pid === null) return '';
  try {
    return (await readFile(`/proc/${pid}/comm`, 'utf8')).trim();
  } catch {
    return '';
  }
}

/** One window's info, or null when it vanished while we looked. */
async function describe(id: number, active: number | null): Promise<DesktopWindow | null> {
  const hex = `0x${id.toString(16)}`;
  const stringFormats = TEXT_PROPS.flatMap((prop) => ['-f', prop, '8x', ' $0+\n']);
  let propsOut: string;
  let infoOut: string;
  try {
    [propsOut, infoOut] = await Promise.all([
      x11('xprop', ['-id', hex, ...stringFormats, ...TEXT_PROPS, '_NET_FRAME_EXTENTS', '_NET_WM_PID', '_NET_WM_STATE']),
      x11('xwininfo', ['-id', hex]),
    ]);
  } catch (error) {
    if (error instanceof UnsupportedError) throw error;
    return null; // BadWindow: it closed between listing and describing
  }
  const props = parseXprop(propsOut);
  const geometry = parseXwininfo(infoOut);
  if (!geometry) return null;

  const [left = 0, right = 0, top = 0, bottom = 0] = numbers(props.get('_NET_FRAME_EXTENTS'));
  const pid = numbers(props.get('_NET_WM_PID'))[0] ?? null;
  const title = decodeText(props.get('_NET_WM_NAME'))[0] ?? decodeText(props.get('WM_NAME'))[0] ?? '';
  const [instance = '', klass = ''] = decodeText(props.get('WM_CLASS'));
  const app = instance || klass || (await processName(pid));
  const hidden = (props.get('_NET_WM_STATE')?.text ?? '').includes('_NET_WM_STATE_HIDDEN');
  return {
    id: formatWindowId(id),
    title,
    app,
    bounds: {
      x: geometry.x - left,
      y: geometry.y - top,
      width: geometry.width + left + right,
      height: geometry.height + top + bottom,
    },
    pid,
    active: id === active,
    minimized: hidden || geometry.mapState !== 'IsViewable',
  };
}

async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

async function rootState(): Promise<{ ids: number[]; active: number | null }> {
  const out = await x11('xprop', ['-root', '_NET_CLIENT_LIST_STACKING', '_NET_CLIENT_LIST', '_NET_ACTIVE_WINDOW']);
  if (!/_NET_CLIENT_LIST(_STACKING)?\(WINDOW\)/.test(out) && !out.includes('_NET_ACTIVE_WINDOW(WINDOW)')) {
    throw new UnsupportedError('no EWMH window manager is running on this display (no _NET_CLIENT_LIST)');
  }
  return parseRootProps(out);
}

/** All managed top-level windows, topmost first. */
export async function listWindows(): Promise<DesktopWindow[]> {
  assertX11();
  const { ids, active } = await rootState();
  const windows = await mapLimited(ids, PARALLEL, (id) => describe(id, active));
  return windows.filter((w): w is DesktopWindow => w !== null);
}

/** One window by id (as list_windows spells it, or decimal). */
export async function getWindow(id: string): Promise<DesktopWindow> {
  assertX11();
  const numeric = parseWindowId(id);
  if (numeric === null) throw new WindowNotFoundError(`"${id}" is not a window id; use an id from list_windows`);
  const { active } = await rootState();
  const window = await describe(numeric, active);
  if (!window) throw new WindowNotFoundError(`no window with id ${id}; call list_windows for current ids`);
  return window;
}

/** Ids of the managed top-level windows (cheap: one xprop call) and the active one. */
export async function windowIds(): Promise<{ ids: string[]; active: string | null }> {
  assertX11();
  const { ids, active } = await rootState();
  return { ids: ids.map(formatWindowId), active: active === null ? null : formatWindowId(active) };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** How long focus_window waits for the window manager to make the window active. */
export const FOCUS_WAIT_MS = 2_000;

async function activate(hex: string): Promise<void> {
  // wmctrl -a sends _NET_ACTIVE_WINDOW (the window manager switches desktop, un-minimises and raises);
  // xdotool windowactivate sends the same message and is the fallback.
  try {
    await x11('wmctrl', ['-i', '-a', hex]);
  } catch (error) {
    if (!(error instanceof UnsupportedError)) throw error;
    try {
      await x11('xdotool', ['windowactivate', hex]);
    } catch (second) {
      if (second instanceof UnsupportedError) {
        throw new UnsupportedError('focusing windows needs wmctrl or xdotool (apt install wmctrl)');
      }
      throw second;
    }
  }
}

/**
 * Activates a window through EWMH and checks that the window manager made it the active one;
 * resolves with the window as it is now.
 */
export async function focusWindow(id: string): Promise<DesktopWindow> {
  assertX11();
  const numeric = parseWindowId(id);
  if (numeric === null) throw new WindowNotFoundError(`"${id}" is not a window id; use an id from list_windows`);
  const { ids } = await rootState();
  if (!ids.includes(numeric)) throw new WindowNotFoundError(`no window with id ${id}; call list_windows for current ids`);
  const hex = formatWindowId(numeric);
  const deadline = Date.now() + FOCUS_WAIT_MS;
  let attempts = 0;
  for (;;) {
    if (attempts === 0 || attempts === 10) await activate(hex);
    attempts++;
    const { active } = await rootState();
    if (active === numeric) return getWindow(hex);
    if (Date.now() > deadline) {
      throw new Error(
        `the window manager did not activate window ${hex} within ${FOCUS_WAIT_MS} ms ` +
          `(the active window is ${active === null ? 'none' : formatWindowId(active)})`,
      );
    }
    await sleep(50);
  }
}
