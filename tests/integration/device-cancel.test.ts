import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceLaunchSpec } from '../../src-main/device/launch';
import {
  eventually,
  processAlive,
  startDevice,
  startXterm,
  startXvfb,
  textOf,
  type DeviceHandle,
  type XDisplay,
  type XProgram,
} from '../support/xvfb';

/**
 * Stop on the real device client: a cancelled MCP request stops typing that is under way, an action
 * cancelled while it waits in the device's queue never runs, typing cut off part way says how much went
 * out, and a device client ended by a signal takes the commands it started with it.
 */

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function sizeOf(path: string): Promise<number> {
  return (await stat(path).catch(() => null))?.size ?? 0;
}

/** Calls a tool and cancels the request after `afterMs`; resolves once the client has given up on it. */
async function callThenCancel(device: DeviceHandle, name: string, args: Record<string, unknown>, afterMs: number): Promise<void> {
  const controller = new AbortController();
  const call = device.client.callTool({ name, arguments: args }, undefined, { signal: controller.signal, timeout: 120_000 });
  setTimeout(() => controller.abort(new Error('stopped by the test')), afterMs);
  await expect(call).rejects.toThrow(/stopped by the test/);
}

describe('cancelling device actions (Xvfb + openbox + xterm)', () => {
  let x: XDisplay;
  let term: XProgram;
  let device: DeviceHandle;
  let dir: string;

  beforeAll(async () => {
    x = await startXvfb({ width: 1024, height: 768 });
    dir = await mkdtemp(join(tmpdir(), 'deskhand-cancel-'));
    term = await startXterm(x, { geometry: '100x30+0+0', cwd: dir, title: 'cancel-target' });
    device = await startDevice(x);
    await device.callOk('focus_window', { id: term.windowId });
  });

  afterAll(async () => {
    await device?.close();
    await term?.stop();
    await x?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('never runs an action cancelled while it waited behind another', async () => {
    const out = join(dir, 'queued.txt');
    const waiting = device.callOk('wait', { seconds: 3 });
    await callThenCancel(device, 'type_text', { text: `echo ran > ${out}\n` }, 300);
    await waiting;
    await sleep(1_500);
    await expect(readFile(out, 'utf8'), 'the cancelled text was typed after the wait').rejects.toThrow(/ENOENT/);

    // The same text, not cancelled, does arrive: the test would notice typing that went nowhere.
    const control = join(dir, 'control.txt');
    await device.callOk('type_text', { text: `echo ran > ${control}\n` });
    expect(await eventually('the control file', 5_000, async () => (await readFile(control, 'utf8').catch(() => '')) || undefined)).toBe('ran\n');
  });

  it('says a launch cancelled while it waited for a window left the program running, with its pid', async () => {
    // Programs start with the login shell's environment, probed once per device client: done here first.
    await device.callOk('execute_command', { command: 'true' }, { timeout: 30_000 });
    await callThenCancel(device, 'launch_app', { name: 'sleep', args: ['30'] }, 500);
    const logged = await eventually('the cancelled launch in the device log', 5_000, async () =>
      /launch_app failed: cancelled while waiting for its window; sleep was started \(pid (\d+)\) and keeps running/.exec(device.stderr()) ?? undefined,
    );
    const pid = Number(logged[1]);
    expect(processAlive(pid)).toBe(true);
    process.kill(pid, 'SIGTERM');
  });

  it('never starts a program whose launch was cancelled while its menu name was looked up', async () => {
    // Many desktop entries, so looking up a menu name takes a while; the one asked for writes a file.
    const data = join(dir, 'many-apps');
    const apps = join(data, 'applications');
    await mkdir(apps, { recursive: true });
    for (let i = 0; i < 4_000; i++) {
      await writeFile(join(apps, `filler-${i}.desktop`), `[Desktop Entry]\nType=Application\nName=Filler ${i}\nExec=true\n`);
    }
    const marker = join(dir, 'launched.txt');
    await writeFile(join(apps, 'marker.desktop'), `[Desktop Entry]\nType=Application\nName=Deskhand Marker\nExec=touch ${marker}\n`);
    const lookingUp = await startDevice(x, { env: { XDG_DATA_HOME: data } });
    try {
      await lookingUp.callOk('execute_command', { command: 'true' }, { timeout: 30_000 });
      const started = Date.now();
      await callThenCancel(lookingUp, 'launch_app', { name: 'Deskhand Marker' }, 100);
      await eventually('the cancelled launch in the device log', 20_000, async () => /launch_app failed/.exec(lookingUp.stderr()) ?? undefined);
      expect(Date.now() - started, 'the lookup outlasted the cancel').toBeGreaterThan(300);
      await sleep(500);
      await expect(stat(marker), 'the program started after the cancel').rejects.toThrow(/ENOENT/);

      // Not cancelled, the same launch does run the program: the test would notice one that never could.
      await lookingUp.callOk('launch_app', { name: 'Deskhand Marker' }, { timeout: 30_000 });
      await eventually('the marker file', 5_000, async () => (await stat(marker).catch(() => undefined)) ?? undefined);
    } finally {
      await lookingUp.close();
    }
  }, 60_000);

  it('stops typing that is under way soon after the cancel', async () => {
    const file = join(dir, 'typed.txt');
    await device.callOk('type_text', { text: `cat > ${file}\n`, method: 'type' });
    await sleep(300);
    // Lines, because cat gets a line from the terminal only at its newline.
    const line = `${'abcdefghij'.repeat(5)}\n`;
    const full = line.repeat(Math.ceil(3_000 / line.length)).slice(0, 3_000);

    await callThenCancel(device, 'type_text', { text: full, method: 'type' }, 1_500);
    const atCancel = await sizeOf(file);
    await sleep(2_500);
    const later = await sizeOf(file);
    await device.callOk('hotkey', { keys: ['ctrl', 'd'] });

    expect(atCancel, 'typing had begun before the cancel').toBeGreaterThan(0);
    // At most a short piece (and the line it completes) after the cancel; uncancelled, 2.5 s add ~300.
    expect(later - atCancel, `grew from ${atCancel} to ${later} bytes after the cancel`).toBeLessThanOrEqual(2 * line.length);
    expect(later).toBeLessThan(full.length / 2);
  });

  it('says how much of the text went out when typing fails part way', async () => {
    // An xdotool that types two pieces and then fails, as one does when the X server goes away.
    const bin = join(dir, 'failing-bin');
    await mkdir(bin);
    const wrapper = join(bin, 'xdotool');
    await writeFile(
      wrapper,
      `#!/bin/sh\nif [ "$1" = type ]; then\n  n=$(cat "${bin}/typed" 2>/dev/null || echo 0)\n  echo $((n + 1)) > "${bin}/typed"\n` +
        `  if [ "$n" -ge 2 ]; then echo "xdotool: lost the display" >&2; exit 1; fi\nfi\nexec /usr/bin/xdotool "$@"\n`,
    );
    await chmod(wrapper, 0o755);
    const failing = await startDevice(x, { env: { PATH: `${bin}:${process.env.PATH ?? ''}` } });
    try {
      const file = join(dir, 'partial.txt');
      // A clean prompt: an earlier test may leave a program reading the terminal.
      await device.callOk('hotkey', { keys: ['ctrl', 'c'] });
      await device.callOk('type_text', { text: `cat > ${file}\n`, method: 'type' });
      await sleep(300);
      const result = await failing.call('type_text', { text: 'a'.repeat(100), method: 'type' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/lost the display.*64 of 100 characters had gone out/s);

      // The terminal got exactly those 64: cat writes the line once Enter ends it.
      await device.callOk('hotkey', { keys: ['enter'] });
      await device.callOk('hotkey', { keys: ['ctrl', 'd'] });
      expect(await eventually('the partial line', 5_000, async () => (await readFile(file, 'utf8').catch(() => '')) || undefined)).toBe(
        `${'a'.repeat(64)}\n`,
      );
    } finally {
      await failing.close();
    }
  });

  it('stops focusing a window soon after the cancel, and does not ask the window manager again', async () => {
    // A wmctrl that is asked but never activates anything, so focus_window keeps waiting for the window.
    const bin = join(dir, 'deaf-bin');
    await mkdir(bin);
    const asked = join(bin, 'asked');
    await writeFile(join(bin, 'wmctrl'), `#!/bin/sh\necho "$@" >> "${asked}"\n`);
    await chmod(join(bin, 'wmctrl'), 0o755);
    // Another window takes the focus, so the terminal is not the active one.
    const other = await startXterm(x, { geometry: '40x10+300+300', cwd: dir, title: 'cancel-other' });
    const deaf = await startDevice(x, { env: { PATH: `${bin}:${process.env.PATH ?? ''}` } });
    try {
      await eventually('the other window active', 5_000, async () => {
        const listed = (await device.callOk('list_windows')).structuredContent as { windows: { id: string; active: boolean }[] } | undefined;
        return listed?.windows.find((window) => window.active)?.id === other.windowId ? true : undefined;
      });
      await callThenCancel(deaf, 'focus_window', { id: term.windowId }, 300);
      const cancelled = Date.now();
      // The next action waits in the queue until the cancelled one has stopped.
      await deaf.callOk('wait', { seconds: 0 });
      expect(Date.now() - cancelled, 'the next action waited for the cancelled focus_window').toBeLessThan(700);
      await eventually('the cancelled focus in the device log', 5_000, async () => /focus_window failed: cancelled/.exec(deaf.stderr()) ?? undefined);
      await sleep(1_000);
      expect((await readFile(asked, 'utf8')).trim().split('\n'), 'the window manager was asked again after the cancel').toHaveLength(1);
    } finally {
      await deaf.close();
      await other.stop();
      await device.callOk('focus_window', { id: term.windowId });
    }
  });
});

describe('a device client ended by a signal', () => {
  let x: XDisplay;
  let dir: string;

  beforeAll(async () => {
    x = await startXvfb({ width: 800, height: 600, windowManager: false });
    dir = await mkdtemp(join(tmpdir(), 'deskhand-signal-'));
  });

  afterAll(async () => {
    await x?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    it(`kills the commands it runs on ${signal}`, async () => {
      const device = await startDevice(x);
      const pidFile = join(dir, `${signal}.pid`);
      const running = device.call('execute_command', { command: `sleep 300 & echo $! > ${pidFile}; wait`, timeout_s: 120 }).catch(() => null);
      const sleeper = await eventually('the sleep to start', 10_000, async () => {
        const text = await readFile(pidFile, 'utf8').catch(() => '');
        return text.endsWith('\n') ? Number(text) : undefined;
      });
      expect(processAlive(sleeper)).toBe(true);

      process.kill(device.pid, signal);
      await eventually('the sleep to end', 2_000, async () => (processAlive(sleeper) ? undefined : true)).catch(() => {
        process.kill(sleeper, 'SIGKILL');
        throw new Error(`sleep ${sleeper} outlived the device client's ${signal}`);
      });
      await running;
      await device.close();
    });
  }

  it('exits with 128 + the signal number', async () => {
    const spec = deviceLaunchSpec({ root: process.cwd(), mode: 'source', env: x.env });
    const child = spawn(spec.command, spec.args, { env: spec.env, cwd: spec.cwd, stdio: ['pipe', 'ignore', 'pipe'] });
    let log = '';
    child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    await eventually('the device client to be ready', 20_000, async () => (log.includes('ready') ? true : undefined));
    child.kill('SIGTERM');
    expect(await exited).toEqual({ code: 143, signal: null });
  });
});
