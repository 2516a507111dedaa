import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DisplayInfo, LaunchResult, ScreenshotMeta, WindowInfo } from '../../src-main/device/contract';
import { eventually, processAlive, startDevice, startXvfb, textOf, type DeviceHandle, type XDisplay } from '../support/xvfb';

/**
 * A real editor (Mousepad, GTK) driven through the device client: launched by its menu name, Unicode
 * text typed and pasted, saved with Ctrl+S through the GTK save dialog, and the file on disk checked
 * byte for byte. Also focus_window between two applications, and monitors defined with xrandr.
 */

const execFileP = promisify(execFile);

interface ListedWindow extends WindowInfo {
  active: boolean;
}

describe('Mousepad through the device client (Xvfb + openbox)', () => {
  let x: XDisplay;
  let device: DeviceHandle;
  let home: string;
  let docs: string;
  let editor: WindowInfo;
  const launched: number[] = [];

  async function windows(): Promise<ListedWindow[]> {
    const result = await device.callOk('list_windows');
    return (result.structuredContent as { windows: ListedWindow[] }).windows;
  }

  async function fileContent(path: string, expected: string): Promise<string> {
    return eventually(`${path} to hold the expected text`, 8_000, async () => {
      const content = await readFile(path, 'utf8').catch(() => null);
      return content === expected ? content : undefined;
    }).catch(async (error: unknown) => {
      const actual = await readFile(path, 'utf8').catch(() => '(missing)');
      throw new Error(`${error instanceof Error ? error.message : String(error)}; the file holds ${JSON.stringify(actual)}`);
    });
  }

  /** Ctrl+S in an unsaved document opens GTK's Save As dialog; typing a full path and Enter saves there. */
  async function saveAs(path: string): Promise<void> {
    const before = new Set((await windows()).map((w) => w.id));
    await device.callOk('hotkey', { keys: ['ctrl', 's'] });
    const dialog = await eventually('the save dialog', 10_000, async () =>
      (await windows()).find((w) => !before.has(w.id) && w.active),
    );
    expect(dialog.title).toMatch(/save/i);
    // The name field has the focus and accepts a whole path.
    await device.callOk('hotkey', { keys: ['ctrl', 'a'] });
    await device.callOk('type_text', { text: path, method: 'type' });
    // GTK looks the typed folder up asynchronously and ignores Enter until it has: give it a moment, as
    // an agent taking its next screenshot would, and press Enter again if the dialog is still there.
    const closed = async (): Promise<true | undefined> => ((await windows()).some((w) => w.id === dialog.id) ? undefined : true);
    await device.callOk('wait', { seconds: 0.4 });
    await device.callOk('hotkey', { keys: ['enter'] });
    const first = await eventually('the save dialog to close', 2_000, closed).catch(() => undefined);
    if (first) return;
    await device.callOk('hotkey', { keys: ['enter'] });
    await eventually('the save dialog to close', 10_000, closed).catch(async (error: unknown) => {
      if (process.env.DESKHAND_TEST_DEBUG) {
        const shot = await device.callOk('screenshot');
        const image = shot.content.find((c) => c.type === 'image');
        if (image?.type === 'image') await writeFile('/tmp/deskhand-save-dialog.jpg', Buffer.from(image.data, 'base64'));
      }
      throw error;
    });
  }

  beforeAll(async () => {
    x = await startXvfb({ width: 1280, height: 800 });
    home = await mkdtemp(join(tmpdir(), 'deskhand-editor-'));
    docs = join(home, 'docs');
    await mkdir(docs);
    // A program only the login shell's PATH has, as pip or an installer puts it in ~/.local/bin.
    await mkdir(join(home, '.local/bin'), { recursive: true });
    await writeFile(join(home, '.profile'), 'PATH="$HOME/.local/bin:$PATH"\n');
    await writeFile(join(home, '.local/bin/deskhand-login-app'), '#!/bin/sh\nexec xterm -title "from the login PATH"\n');
    await chmod(join(home, '.local/bin/deskhand-login-app'), 0o755);
    // A private home for everything the device launches; no accessibility bus to wait for.
    device = await startDevice(x, {
      env: {
        HOME: home,
        XDG_CONFIG_HOME: join(home, '.config'),
        XDG_CACHE_HOME: join(home, '.cache'),
        XDG_DATA_HOME: join(home, '.local/share'),
        LANG: 'C.UTF-8',
        NO_AT_BRIDGE: '1',
        GTK_A11Y: 'none',
      },
    });
  });

  afterAll(async () => {
    for (const pid of launched) {
      try {
        process.kill(-pid, 'SIGTERM');
      } catch {
        // gone already
      }
    }
    await device?.close();
    await x?.stop();
    for (const pid of launched) await eventually('launched programs to exit', 5_000, async () => (processAlive(pid) ? undefined : true)).catch(() => undefined);
    if (home) await rm(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  });

  it('launches Mousepad by its menu name and reports its window', async () => {
    const result = await device.callOk('launch_app', { name: 'Mousepad' });
    const info = LaunchResult.parse(result.structuredContent);
    if (info.pid) launched.push(info.pid);
    expect(info.command[0]).toBe('mousepad');
    expect(info.window).not.toBeNull();
    editor = info.window as WindowInfo;
    expect(editor.app).toBe('mousepad');
    expect(editor.title).toMatch(/Mousepad/);
    expect((await windows()).find((w) => w.id === editor.id)?.active).toBe(true);
  });

  it('types Unicode text and saves it with Ctrl+S', async () => {
    const text = 'Grüße, 世界 — ok';
    const path = join(docs, 'typed.txt');
    await device.callOk('screenshot', { window_id: editor.id });
    // The middle of the window is the text area; clicking there focuses it.
    const typed = await device.callOk('type_text', { text, x: Math.round(editor.bounds.width / 2), y: Math.round(editor.bounds.height / 2) });
    expect(typed.structuredContent).toMatchObject({ method: 'xdotool' });
    await saveAs(path);
    expect(await fileContent(path, text)).toBe(text);
  });

  it('pastes long text through the clipboard and saves again', async () => {
    const line = 'Zeile mit Ümlauten, 中文, emoji-free symbols <>&"\' {} | ~ and tabs\tend';
    const long = Array.from({ length: 30 }, (_, i) => `${i + 1}: ${line}`).join('\n');
    expect(long.length).toBeGreaterThan(1_000);
    await device.callOk('hotkey', { keys: ['ctrl', 'a'] });
    const started = performance.now();
    const pasted = await device.callOk('type_text', { text: long });
    const pasteMs = performance.now() - started;
    expect(pasted.structuredContent).toMatchObject({ method: 'paste' });
    expect(textOf(pasted)).toMatch(/^pasted \d+ characters/);
    // Typing 2,000+ characters takes over 16 s; the paste is well under one.
    expect(pasteMs).toBeLessThan(3_000);
    await device.callOk('hotkey', { keys: ['ctrl', 's'] });
    expect(await fileContent(join(docs, 'typed.txt'), long)).toBe(long);
  });

  it('focuses one window, then another, and says which is active', async () => {
    const term = LaunchResult.parse((await device.callOk('launch_app', { name: 'xterm', args: '-title "second window"' })).structuredContent);
    if (term.pid) launched.push(term.pid);
    expect(term.window?.title).toBe('second window');
    expect((await windows()).find((w) => w.active)?.id).toBe(term.window?.id);

    const focused = await device.callOk('focus_window', { id: editor.id });
    expect((focused.structuredContent as { window: WindowInfo }).window.id).toBe(editor.id);
    expect((await windows()).find((w) => w.active)?.id).toBe(editor.id);

    await device.callOk('focus_window', { id: term.window?.id });
    expect((await windows()).find((w) => w.active)?.id).toBe(term.window?.id);

    const missing = await device.call('focus_window', { id: '0x7ffffff0' });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/no window with id 0x7ffffff0/);
  });

  it('launches a program on the login PATH (~/.local/bin), as execute_command finds it', async () => {
    const found = await device.callOk('execute_command', { command: 'command -v deskhand-login-app' });
    expect(found.structuredContent).toMatchObject({ exit_code: 0, stdout: `${home}/.local/bin/deskhand-login-app\n` });
    const result = LaunchResult.parse((await device.callOk('launch_app', { name: 'deskhand-login-app' })).structuredContent);
    if (result.pid) launched.push(result.pid);
    expect(result.command).toEqual(['deskhand-login-app']);
    expect(result.window?.title).toBe('from the login PATH');
  });

  it('refuses to launch what does not exist, naming what does', async () => {
    const result = await device.call('launch_app', { name: 'No Such Program' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/no program or application named "No Such Program".*Mousepad/);
    const path = await device.call('launch_app', { name: '/nonexistent/program' });
    expect(textOf(path)).toMatch(/\/nonexistent\/program does not exist/);
  });

  it('reports no window for a program that has none, without waiting long', async () => {
    const started = Date.now();
    const result = LaunchResult.parse((await device.callOk('launch_app', { name: 'true' })).structuredContent);
    expect(result.window).toBeNull();
    expect(Date.now() - started).toBeLessThan(6_000);
    const failed = await device.call('launch_app', { name: 'false' });
    expect(textOf(failed)).toMatch(/false exited with code 1 before it showed a window/);
  });

  describe('with two monitors', () => {
    beforeAll(async () => {
      const run = (args: string[]): Promise<unknown> => execFileP('xrandr', args, { env: x.env });
      // Split Xvfb's one screen into two monitors, as two side-by-side screens would be (giving 'left'
      // the output replaces the automatic monitor).
      await run(['--setmonitor', 'left', '640/169x800/212+0+0', 'screen']);
      await run(['--setmonitor', 'right', '640/169x800/212+640+0', 'none']);
    });

    it('lists them', async () => {
      const result = await device.callOk('list_displays');
      const displays = (result.structuredContent as { displays: unknown[] }).displays.map((d) => DisplayInfo.parse(d));
      expect(displays.map((d) => [d.index, d.bounds])).toEqual([
        [0, { x: 0, y: 0, width: 640, height: 800 }],
        [1, { x: 640, y: 0, width: 640, height: 800 }],
      ]);
    });

    it('takes a screenshot of one and maps its pixels to the screen', async () => {
      const shot = await device.callOk('screenshot', { display: 1 });
      const meta = ScreenshotMeta.parse(shot.structuredContent);
      expect(meta.region).toEqual({ x: 640, y: 0, width: 640, height: 800 });
      expect({ width: meta.width, height: meta.height }).toEqual({ width: 640, height: 800 });
      const moved = await device.callOk('move', { x: 10, y: 20 });
      expect(moved.structuredContent).toMatchObject({ screen: { x: 650, y: 20 }, pointer: { screen: { x: 650, y: 20 }, image: { x: 10, y: 20 } } });

      const bad = await device.call('screenshot', { display: 5 });
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).toMatch(/there is no display 5; displays: 0 \(left, 640x800\), 1 \(right, 640x800\)/);
      const both = await device.call('screenshot', { display: 0, window_id: editor.id });
      expect(textOf(both)).toMatch(/window_id or display, not both/);
    });
  });
});
