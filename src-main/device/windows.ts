import { readFile } from 'node:fs/promises';
import { abortableSleep, throwIfAborted } from './abort';
import type { WindowInfo } from './contract';
import { CommandMissingError, runFile } from './exec';
import type { Rect } from './coords';
import { MAP_STATE, WINDOW_GONE, X11Connection, X11Error, type PropertyValue } from './x11/connection';
import { activeMonitors } from './x11/randr';
import { windowClientPid } from './x11/xres';

/**
 * Top-level windows through EWMH, asked of the X server over our own connection (./x11). nut.js
 * getWindows() is not used: without a window manager it aborts the process with BadWindow, and under
 * openbox it returns empty titles. Geometry is the client's absolute origin (TranslateCoordinates to the
 * root) widened by _NET_FRAME_EXTENTS; wmctrl and xdotool add the extents a second time under reparenting
 * window managers.
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
// Requests are pipelined on one connection; this only bounds how many are outstanding at once.
const PARALLEL = 16;

function assertX11(): void {
  if (process.platform !== 'linux' || !process.env.DISPLAY) {
    throw new UnsupportedError(`listing windows is not supported on this platform yet (${process.platform})`);
  }
}

// wmctrl and xdotool print whatever the locale says.
const xEnv = (): NodeJS.ProcessEnv => ({ ...process.env, LC_ALL: 'C' });

async function x11Tool(command: string, args: string[]): Promise<string> {
  return runFile(command, args, { timeoutMs: TIMEOUT_MS, env: xEnv() });
}

/** "0x20000c" / "2097164" -> 2097164; null when not a window id. */
export function parseWindowId(id: string): number | null {
  const text = id.trim();
  const value = /^0x[0-9a-f]+$/i.test(text) ? parseInt(text, 16) : /^\d+$/.test(text) ? Number(text) : NaN;
  return Number.isSafeInteger(value) && value > 0 && value <= 0xffffffff ? value : null;
}

/** Same spelling as wmctrl: 0x plus eight hex digits. */
export function formatWindowId(id: number): string {
  return `0x${id.toString(16).padStart(8, '0')}`;
}

/** The strings of a STRING / UTF8_STRING / COMPOUND_TEXT property (NUL-separated). */
export function decodeTextProperty(value: PropertyValue, utf8Atom: number): string[] {
  if (value.format !== 8 || value.data.length === 0) return [];
  // STRING is Latin-1 by the ICCCM; COMPOUND_TEXT is mostly Latin-1 in practice.
  const text = value.data.toString(value.type === utf8Atom ? 'utf8' : 'latin1');
  return text.split('\0').filter((part, i, all) => part !== '' || i < all.length - 1);
}

/** The 32-bit items of a CARDINAL / WINDOW / ATOM property. */
export function cardinals(value: PropertyValue): number[] {
  if (value.format !== 32) return [];
  const items: number[] = [];
  for (let offset = 0; offset + 4 <= value.data.length; offset += 4) items.push(value.data.readUInt32LE(offset));
  return items;
}

// One connection for the device client's life, opened on first use and again after it breaks (or when
// DISPLAY changes, as it does between test desktops).
let shared: { display: string; connection: Promise<X11Connection> } | null = null;

async function connection(): Promise<X11Connection> {
  const display = process.env.DISPLAY ?? '';
  const current = shared?.display === display ? await shared.connection.catch(() => null) : null;
  if (current && !current.closed) return current;
  if (shared && shared.display !== display) void shared.connection.then((old) => old.close(), () => undefined);
  const opening = X11Connection.open(display);
  shared = { display, connection: opening };
  try {
    return await opening;
  } catch (error) {
    shared = null;
    throw new UnsupportedError(`cannot talk to the X server on ${display}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function processName(pid: number | null): Promise<string> {
  if (pid === null) return '';
  try {
    return (await readFile(`/proc/${pid}/comm`, 'utf8')).trim();
  } catch {
    return '';
  }
}

/** The window's outer corner (border included), then the frame the window manager drew around it. */
function frameBounds(
  geometry: { width: number; height: number; borderWidth: number },
  origin: { x: number; y: number },
  [left = 0, right = 0, top = 0, bottom = 0]: number[],
): DesktopWindow['bounds'] {
  return {
    x: origin.x - geometry.borderWidth - left,
    y: origin.y - geometry.borderWidth - top,
    width: geometry.width + 2 * geometry.borderWidth + left + right,
    height: geometry.height + 2 * geometry.borderWidth + top + bottom,
  };
}

/** One window's info, or null when it vanished while we looked. */
async function describe(x: X11Connection, id: number, active: number | null): Promise<DesktopWindow | null> {
  try {
    const [utf8, hiddenAtom] = await Promise.all([x.atom('UTF8_STRING'), x.atom('_NET_WM_STATE_HIDDEN')]);
    const property = async (name: string, maxLongs = 1024): Promise<PropertyValue> => x.property(id, await x.atom(name), maxLongs);
    const [netName, wmName, wmClass, extents, pidValue, state, geometry, origin, mapState] = await Promise.all([
      property('_NET_WM_NAME'),
      property('WM_NAME'),
      property('WM_CLASS'),
      property('_NET_FRAME_EXTENTS', 4),
      property('_NET_WM_PID', 1),
      property('_NET_WM_STATE', 64),
      x.geometry(id),
      x.translate(id, x.root, 0, 0),
      x.mapState(id),
    ]);
    const pid = cardinals(pidValue)[0] ?? null;
    const title = decodeTextProperty(netName, utf8)[0] ?? decodeTextProperty(wmName, utf8)[0] ?? '';
    const [instance = '', klass = ''] = decodeTextProperty(wmClass, utf8);
    const app = instance || klass || (await processName(pid));
    return {
      id: formatWindowId(id),
      title,
      app,
      bounds: frameBounds(geometry, origin, cardinals(extents)),
      pid,
      active: id === active,
      minimized: cardinals(state).includes(hiddenAtom) || mapState !== MAP_STATE.viewable,
    };
  } catch (error) {
    if (error instanceof X11Error && error.code !== null && WINDOW_GONE.has(error.code)) return null; // it closed while we looked
    throw error;
  }
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

/** Window ids of the root's EWMH list, top of the stack first, and the active one. */
async function rootState(x: X11Connection): Promise<{ ids: number[]; active: number | null }> {
  const [stacking, clients, active] = await Promise.all(
    ['_NET_CLIENT_LIST_STACKING', '_NET_CLIENT_LIST', '_NET_ACTIVE_WINDOW'].map(async (name) => x.property(x.root, await x.atom(name))),
  );
  if (stacking?.type === 0 && clients?.type === 0 && active?.type === 0) {
    throw new UnsupportedError('no EWMH window manager is running on this display (no _NET_CLIENT_LIST)');
  }
  const bottomFirst = cardinals(stacking as PropertyValue).filter((id) => id > 0);
  const ids = bottomFirst.length > 0 ? bottomFirst.reverse() : cardinals(clients as PropertyValue).filter((id) => id > 0);
  const activeId = cardinals(active as PropertyValue)[0];
  return { ids, active: activeId ? activeId : null };
}

/** All managed top-level windows, topmost first. */
export async function listWindows(): Promise<DesktopWindow[]> {
  assertX11();
  const x = await connection();
  const { ids, active } = await rootState(x);
  const windows = await mapLimited(ids, PARALLEL, (id) => describe(x, id, active));
  return windows.filter((w): w is DesktopWindow => w !== null);
}

/** The window that has the keyboard, or null when none does. */
export async function activeWindow(): Promise<DesktopWindow | null> {
  assertX11();
  const x = await connection();
  const { active } = await rootState(x);
  return active === null ? null : describe(x, active, active);
}

/** The topmost shown window whose frame holds a screen point (where a click there goes), or null. */
export async function windowAt(point: { x: number; y: number }): Promise<DesktopWindow | null> {
  const contains = ({ bounds: b }: DesktopWindow): boolean =>
    point.x >= b.x && point.x < b.x + b.width && point.y >= b.y && point.y < b.y + b.height;
  return (await listWindows()).find((window) => !window.minimized && contains(window)) ?? null;
}

/**
 * The windows a window is a dialog of (WM_TRANSIENT_FOR, followed up to `depth` levels), nearest first.
 * A file chooser opened through the desktop portal belongs to another process, and says its parent here.
 */
export async function transientParents(id: string, depth = 3): Promise<string[]> {
  assertX11();
  const x = await connection();
  const parents: string[] = [];
  let current = parseWindowId(id);
  const atom = await x.atom('WM_TRANSIENT_FOR');
  while (current !== null && parents.length < depth) {
    let parent: number | undefined;
    try {
      parent = cardinals(await x.property(current, atom, 1))[0];
    } catch (error) {
      if (error instanceof X11Error && error.code !== null && WINDOW_GONE.has(error.code)) break;
      throw error;
    }
    if (!parent || parents.includes(formatWindowId(parent))) break;
    parents.push(formatWindowId(parent));
    current = parent;
  }
  return parents;
}

/** One window by id (as list_windows spells it, or decimal). */
export async function getWindow(id: string): Promise<DesktopWindow> {
  assertX11();
  const numeric = parseWindowId(id);
  if (numeric === null) throw new WindowNotFoundError(`"${id}" is not a window id; use an id from list_windows`);
  const x = await connection();
  const { active } = await rootState(x);
  const window = await describe(x, numeric, active);
  if (!window) throw new WindowNotFoundError(`no window with id ${id}; call list_windows for current ids`);
  return window;
}

/** What tells which program a window belongs to (launch_app's check that the new window is the launched program's). */
export interface WindowOwnerInfo {
  /** _NET_WM_PID, which the program writes itself; null when it did not. */
  netWmPid: number | null;
  /** WM_CLIENT_MACHINE: the host the program runs on, '' when unset (a pid is only meaningful on this one). */
  clientMachine: string;
  /** The pid of the X client that made the window, as the X server knows it (X-Resource); null when unknown. */
  clientPid: number | null;
  /** WM_CLASS: instance and class name, e.g. ["xterm", "XTerm"]. */
  wmClass: string[];
}

/** The owner hints of one window, or null when it is gone. */
export async function windowOwner(id: string): Promise<WindowOwnerInfo | null> {
  assertX11();
  const numeric = parseWindowId(id);
  if (numeric === null) throw new WindowNotFoundError(`"${id}" is not a window id; use an id from list_windows`);
  const x = await connection();
  try {
    const utf8 = await x.atom('UTF8_STRING');
    const property = async (name: string, maxLongs = 256): Promise<PropertyValue> => x.property(numeric, await x.atom(name), maxLongs);
    const [pidValue, machine, wmClass, clientPid] = await Promise.all([
      property('_NET_WM_PID', 1),
      property('WM_CLIENT_MACHINE'),
      property('WM_CLASS'),
      windowClientPid(x, numeric),
    ]);
    return {
      netWmPid: cardinals(pidValue)[0] ?? null,
      clientMachine: decodeTextProperty(machine, utf8)[0] ?? '',
      clientPid,
      wmClass: decodeTextProperty(wmClass, utf8).filter(Boolean),
    };
  } catch (error) {
    if (error instanceof X11Error && error.code !== null && WINDOW_GONE.has(error.code)) return null;
    throw error;
  }
}

/** Where a window is on screen, frame included (what a screenshot of it covers): fewer requests than getWindow. */
export async function windowBounds(id: string): Promise<DesktopWindow['bounds']> {
  assertX11();
  const numeric = parseWindowId(id);
  if (numeric === null) throw new WindowNotFoundError(`"${id}" is not a window id; use an id from list_windows`);
  const x = await connection();
  try {
    const [extents, geometry, origin] = await Promise.all([
      x.property(numeric, await x.atom('_NET_FRAME_EXTENTS'), 4),
      x.geometry(numeric),
      x.translate(numeric, x.root, 0, 0),
    ]);
    return frameBounds(geometry, origin, cardinals(extents));
  } catch (error) {
    if (error instanceof X11Error && error.code !== null && WINDOW_GONE.has(error.code)) {
      throw new WindowNotFoundError(`no window with id ${id}; call list_windows for current ids`);
    }
    throw error;
  }
}

/**
 * The screen's size as the X server has it now (its root window). nut.js keeps the size the screen had
 * when the process connected, however RandR changed it since.
 */
export async function rootSize(): Promise<{ width: number; height: number }> {
  assertX11();
  const x = await connection();
  const { width, height } = await x.geometry(x.root);
  return { width, height };
}

/**
 * The monitors' bounds now, from RandR over the open connection; null where they cannot be told (no
 * X11, no connection of our own, or an X server without RandR 1.5), as list_displays then falls back
 * to the whole screen.
 */
export async function monitorBounds(): Promise<Rect[] | null> {
  if (process.platform !== 'linux' || !process.env.DISPLAY) return null;
  let x: X11Connection;
  try {
    x = await connection();
  } catch (error) {
    if (error instanceof UnsupportedError) return null;
    throw error;
  }
  // The check this feeds only adds a refusal: a server that answers RandR badly must not stop every action.
  return activeMonitors(x).catch((error: unknown) => {
    if (error instanceof X11Error) return null;
    throw error;
  });
}

/** Ids of the managed top-level windows and the active one. */
export async function windowIds(): Promise<{ ids: string[]; active: string | null }> {
  assertX11();
  const { ids, active } = await rootState(await connection());
  return { ids: ids.map(formatWindowId), active: active === null ? null : formatWindowId(active) };
}

/** How long focus_window waits for the window manager to make the window active. */
export const FOCUS_WAIT_MS = 2_000;

async function activate(hex: string): Promise<void> {
  // wmctrl -a sends _NET_ACTIVE_WINDOW (the window manager switches desktop, un-minimises and raises);
  // xdotool windowactivate sends the same message and is the fallback.
  try {
    await x11Tool('wmctrl', ['-i', '-a', hex]);
  } catch (error) {
    if (!(error instanceof CommandMissingError)) throw error;
    try {
      await x11Tool('xdotool', ['windowactivate', hex]);
    } catch (second) {
      if (second instanceof CommandMissingError) {
        throw new UnsupportedError('focusing windows needs wmctrl or xdotool (apt install wmctrl)');
      }
      throw second;
    }
  }
}

/**
 * Activates a window through EWMH and checks that the window manager made it the active one;
 * resolves with the window as it is now. An aborted `signal` ends the wait at the next check, and the
 * window manager is not asked (again) after it.
 */
export async function focusWindow(id: string, check?: (window: DesktopWindow) => void, signal?: AbortSignal): Promise<DesktopWindow> {
  assertX11();
  const numeric = parseWindowId(id);
  if (numeric === null) throw new WindowNotFoundError(`"${id}" is not a window id; use an id from list_windows`);
  const x = await connection();
  const { ids } = await rootState(x);
  if (!ids.includes(numeric)) throw new WindowNotFoundError(`no window with id ${id}; call list_windows for current ids`);
  const hex = formatWindowId(numeric);
  // Refused before anything changes on screen (the caller's rule, e.g. Deskhand's own window).
  check?.(await getWindow(hex));
  const deadline = Date.now() + FOCUS_WAIT_MS;
  let attempts = 0;
  for (;;) {
    throwIfAborted(signal);
    if (attempts === 0 || attempts === 10) await activate(hex);
    attempts++;
    const { active } = await rootState(x);
    if (active === numeric) return getWindow(hex);
    if (Date.now() > deadline) {
      throw new Error(
        `the window manager did not activate window ${hex} within ${FOCUS_WAIT_MS} ms ` +
          `(the active window is ${active === null ? 'none' : formatWindowId(active)})`,
      );
    }
    await abortableSleep(50, signal);
  }
}
