// The device client's own X11 client (src-main/device/x11) against a real X server with access control:
// the window list it reads must match what xprop and xwininfo say, titles in any script, and a client
// without the right cookie must be refused with a clear error.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getWindow, listWindows, windowBounds, windowIds, WindowNotFoundError, windowOwner } from '../../src-main/device/windows';
import { X11Connection } from '../../src-main/device/x11/connection';
import { eventually, startXProgram, startXvfb, type XDisplay, type XProgram } from '../support/xvfb';

const run = promisify(execFile);
// xterm sets a Latin-1 STRING title; mousepad (GTK) sets _NET_WM_NAME as UTF8_STRING.
const TITLE = 'Grüße deskhand';
const FILE_NAME = '日本語 — ✓.txt';

function xauthority(cookie: Buffer): Buffer {
  // One wildcard entry (family 65535, any address, any display) with an MIT-MAGIC-COOKIE-1.
  const field = (value: Buffer): Buffer => Buffer.concat([Buffer.from([value.length >> 8, value.length & 0xff]), value]);
  return Buffer.concat([Buffer.from([0xff, 0xff]), field(Buffer.alloc(0)), field(Buffer.alloc(0)), field(Buffer.from('MIT-MAGIC-COOKIE-1')), field(cookie)]);
}

describe('X11 window listing (own protocol client)', () => {
  let scratch: string;
  let x: XDisplay;
  const programs: XProgram[] = [];
  const saved = { DISPLAY: process.env.DISPLAY, XAUTHORITY: process.env.XAUTHORITY };

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'deskhand-x11-'));
    const authFile = join(scratch, 'Xauthority');
    writeFileSync(authFile, xauthority(randomBytes(16)));
    x = await startXvfb({ authFile });
    programs.push(await startXProgram(x, 'xterm', ['-geometry', '60x20+10+10', '-title', TITLE]));
    const file = join(scratch, FILE_NAME);
    writeFileSync(file, 'hello\n');
    programs.push(await startXProgram(x, 'mousepad', [file], { env: { LC_ALL: 'C.UTF-8', HOME: scratch }, timeoutMs: 30_000 }));
    programs.push(await startXProgram(x, 'xterm', ['-geometry', '40x10+500+300', '-title', 'second']));
    process.env.DISPLAY = x.display;
    process.env.XAUTHORITY = authFile;
  }, 60_000);

  afterAll(async () => {
    for (const program of programs.reverse()) await program.stop();
    await x?.stop();
    process.env.DISPLAY = saved.DISPLAY;
    process.env.XAUTHORITY = saved.XAUTHORITY;
    if (saved.DISPLAY === undefined) delete process.env.DISPLAY;
    if (saved.XAUTHORITY === undefined) delete process.env.XAUTHORITY;
    rmSync(scratch, { recursive: true, force: true });
  });

  it('lists every window with the bounds, title, app and pid that xwininfo and xprop report', async () => {
    const windows = await listWindows();
    expect(windows.map((w) => w.title)).toHaveLength(3);
    expect(windows.map((w) => w.title)).toContain(TITLE);
    expect(windows.find((w) => w.app === 'mousepad')?.title).toContain(FILE_NAME);
    for (const program of programs) {
      const listed = windows.find((w) => parseInt(w.id, 16) === parseInt(program.windowId, 16));
      expect(listed, `window ${program.windowId}`).toBeDefined();
      const info = (await run('xwininfo', ['-id', program.windowId], { env: x.env })).stdout;
      const field = (label: string): number => Number(new RegExp(`${label}:\\s*(-?\\d+)`).exec(info)?.[1]);
      const extents = (await run('xprop', ['-id', program.windowId, '_NET_FRAME_EXTENTS'], { env: x.env })).stdout;
      const [left = 0, right = 0, top = 0, bottom = 0] = (/= (.*)$/m.exec(extents)?.[1] ?? '').split(',').map(Number);
      expect(listed?.bounds).toEqual({
        x: field('Absolute upper-left X') - left,
        y: field('Absolute upper-left Y') - top,
        width: field('Width') + left + right,
        height: field('Height') + top + bottom,
      });
      expect(listed).toMatchObject({ pid: program.pid, minimized: false });
    }
    expect(windows.filter((w) => w.app === 'xterm')).toHaveLength(2);
    // Topmost first: the window started last (the second xterm) is on top and active.
    expect(parseInt(windows[0]?.id ?? '', 16)).toBe(parseInt(programs[2]?.windowId ?? '', 16));
    expect(windows[0]?.active).toBe(true);
    const ids = await windowIds();
    expect(ids.ids).toEqual(windows.map((w) => w.id));
  });

  it('reads one window by id, and says which ids are not windows', async () => {
    const first = programs[0] as XProgram;
    const one = await getWindow(first.windowId);
    expect(one.title).toBe(TITLE);
    await expect(getWindow('0x7ffffff0')).rejects.toThrow(WindowNotFoundError);
    await expect(getWindow('notepad')).rejects.toThrow(/not a window id/);
    // The screenshot's lookup: the same bounds, from fewer requests.
    expect(await windowBounds(first.windowId)).toEqual(one.bounds);
    await expect(windowBounds('0x7ffffff0')).rejects.toThrow(WindowNotFoundError);
    await expect(windowBounds('notepad')).rejects.toThrow(/not a window id/);
  });

  it('reads who owns a window: the X server\'s record of the client pid, the window\'s own _NET_WM_PID, its host and class', async () => {
    const first = programs[0] as XProgram;
    const owner = await windowOwner(first.windowId);
    expect(owner).toEqual({ netWmPid: first.pid, clientMachine: hostname(), clientPid: first.pid, wmClass: ['xterm', 'XTerm'] });
    expect(await windowOwner('0x7ffffff0')).toBeNull();
  });

  it('reports a minimised window as minimised', async () => {
    const second = programs[2] as XProgram;
    await run('xdotool', ['windowminimize', '--sync', second.windowId], { env: x.env });
    // The window manager hides the window in its own time.
    // It also stops being the active window, once the window manager has moved the focus on.
    const listed = await eventually('the window to be minimised and no longer active', 5_000, async () => {
      const window = (await listWindows()).find((w) => w.title === 'second');
      return window?.minimized && !window.active ? window : undefined;
    });
    expect(listed).toMatchObject({ minimized: true, active: false });
  });

  it('refuses with a clear error when the cookie is wrong, and lists nothing', async () => {
    const wrong = join(scratch, 'wrong');
    writeFileSync(wrong, xauthority(randomBytes(16)));
    await expect(X11Connection.open(x.display, { ...process.env, XAUTHORITY: wrong })).rejects.toThrow(/refused the connection/);
    await expect(X11Connection.open(':9999', process.env)).rejects.toThrow(/cannot reach the X server/);
  });
});
