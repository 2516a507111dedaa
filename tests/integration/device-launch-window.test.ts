import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LaunchResult, WindowInfo } from '../../src-main/device/contract';
import { eventually, processAlive, startDevice, startXterm, textOf, type DeviceHandle, type XDisplay, type XProgram, startXvfb } from '../support/xvfb';

/**
 * launch_app while other windows appear (Xvfb + openbox): the program is slow to show its window and
 * another program's window comes first. The result must name the launched program's window (checked
 * against the real window list: its title and owner process), list the other one apart, and, when the
 * program shows no window at all, say so rather than report the other program's window as its own.
 */

interface ListedWindow extends WindowInfo {
  pid: number | null;
}

const execFileP = promisify(execFile);

describe('launch_app among windows of other programs (Xvfb + openbox)', () => {
  let x: XDisplay;
  let device: DeviceHandle;
  let home: string;
  const launched: number[] = [];
  const others: ChildProcess[] = [];
  const programs: XProgram[] = [];

  async function windows(): Promise<ListedWindow[]> {
    return ((await device.callOk('list_windows')).structuredContent as { windows: ListedWindow[] }).windows;
  }

  /**
   * A window of another program, started by the test (xmessage: no shell, no relation to the launch);
   * resolves once the window manager lists it (wmctrl, as the device client is busy with the launch).
   */
  async function showXmessage(title: string): Promise<void> {
    const child = spawn('xmessage', ['-title', title, '-geometry', '+400+300', 'an unrelated window'], { env: x.env, stdio: 'ignore' });
    others.push(child);
    await eventually(`the window "${title}"`, 10_000, async () => ((await execFileP('wmctrl', ['-l'], { env: x.env })).stdout.includes(title) ? true : undefined));
  }

  /**
   * Shell lines that say the script runs, then wait until the test says go: the other program's window
   * comes after the launch started (windows there before it are not new) and before the program's own.
   */
  function waitForGo(name: string): { lines: string; started: () => Promise<void>; go: () => Promise<void> } {
    const running = join(home, `${name}.running`);
    const file = join(home, `${name}.go`);
    return {
      lines: `: > '${running}'\nwhile [ ! -e '${file}' ]; do sleep 0.05; done\n`,
      started: async () => {
        await eventually(`${name} to start`, 20_000, async () => (existsSync(running) ? true : undefined));
      },
      go: () => writeFile(file, ''),
    };
  }

  /** A script that shows an xterm once told to, from a child process (not the started one itself). */
  async function slowXterm(name: string, title: string): Promise<{ path: string } & ReturnType<typeof waitForGo>> {
    const path = join(home, name);
    const gate = waitForGo(name);
    await writeFile(path, `#!/bin/sh\n${gate.lines}xterm -geometry 40x10+0+0 -title '${title}'\n`);
    await chmod(path, 0o755);
    return { path, ...gate };
  }

  beforeAll(async () => {
    x = await startXvfb({ width: 1024, height: 768 });
    home = await mkdtemp(join(tmpdir(), 'deskhand-launch-window-'));
    device = await startDevice(x, { env: { HOME: home, LANG: 'C.UTF-8' } });
  });

  afterEach(async () => {
    for (const child of others.splice(0)) child.kill('SIGTERM');
    for (const program of programs.splice(0)) await program.stop();
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

  it('reports the launched program\'s window, not another program\'s that appeared first', async () => {
    const script = await slowXterm('slow-xterm', 'launched-late');
    const call = device.callOk('launch_app', { name: script.path });
    await script.started();
    await showXmessage('unrelated-note');
    await script.go();
    const result = LaunchResult.parse((await call).structuredContent);
    if (result.pid) launched.push(result.pid);
    const listed = await windows();
    const note = listed.find((w) => w.title === 'unrelated-note');
    expect(result.window?.title).toBe('launched-late');
    expect(result.window_match).toBe('launched_process');
    expect(result.other_windows?.map((w) => w.id)).toContain(note?.id);
    // The real window: the one listed with that id is the xterm the script started.
    const real = listed.find((w) => w.id === result.window?.id);
    expect(real?.title).toBe('launched-late');
    expect(real?.app).toBe('xterm');
    expect(real?.pid).not.toBe(note?.pid);
  });

  it('waits past a window of another instance of the same program that someone else opened', async () => {
    const script = await slowXterm('slow-xterm-2', 'launched-second');
    const call = device.callOk('launch_app', { name: script.path });
    await script.started();
    const other = await startXterm(x, { title: 'someone-elses-xterm', geometry: '40x10+500+0' });
    programs.push(other);
    await script.go();
    const result = LaunchResult.parse((await call).structuredContent);
    if (result.pid) launched.push(result.pid);
    expect(result.window?.title).toBe('launched-second');
    expect(result.window?.id).not.toBe(other.windowId);
    expect(result.other_windows?.map((w) => w.title)).toContain('someone-elses-xterm');
  });

  it('reports the window of a running instance the program handed over to, not another program\'s that came first', async () => {
    // A single-instance program, as Mousepad with D-Bus: a running "deskpad" opens a window for each
    // request on its FIFO, and the launched deskpad only passes the request on and exits.
    const fifo = join(home, 'deskpad.fifo');
    await execFileP('mkfifo', [fifo]);
    const server = join(home, 'deskpad-server');
    await writeFile(
      server,
      `#!/bin/sh\nwhile true; do\n  if read line < '${fifo}'; then xterm -name deskpad -geometry 40x10+0+300 -title 'deskpad document' & fi\ndone\n`,
    );
    await chmod(server, 0o755);
    const instance = spawn(server, [], { env: x.env, stdio: 'ignore', detached: true });
    const client = join(home, 'deskpad');
    const gate = waitForGo('deskpad');
    await writeFile(client, `#!/bin/sh\n${gate.lines}echo open > '${fifo}'\n`);
    await chmod(client, 0o755);
    try {
      const call = device.callOk('launch_app', { name: client });
      await gate.started();
      await showXmessage('meanwhile-note');
      await gate.go();
      const reply = await call;
      const result = LaunchResult.parse(reply.structuredContent);
      expect(result.window?.title).toBe('deskpad document');
      expect(result.window_match).toBe('same_program');
      expect(result.other_windows?.map((w) => w.title)).toContain('meanwhile-note');
      expect(textOf(reply)).toMatch(/the window belongs to an already running .*deskpad \(pid \d+\), which .*deskpad \(pid \d+\) handed over to/);
      const real = (await windows()).find((w) => w.id === result.window?.id);
      expect(real).toMatchObject({ title: 'deskpad document', app: 'deskpad' });
      expect(real?.pid).not.toBe(result.pid);
    } finally {
      if (instance.pid) process.kill(-instance.pid, 'SIGTERM');
    }
  });

  it('takes what a launcher such as xdg-open handed over to, not the window of another program that was up before it exited', async () => {
    // A stand-in xdg-open: the program it "opens" runs apart from it (its own session, reparented once
    // the launcher exits), as a D-Bus activated or already running program would.
    const bin = join(home, 'bin');
    await mkdir(bin, { recursive: true });
    const launcher = join(bin, 'xdg-open');
    const gate = waitForGo('xdg-open');
    await writeFile(launcher, `#!/bin/sh\n${gate.lines}setsid xterm -geometry 40x10+0+400 -title 'opened-by-launcher' &\n`);
    await chmod(launcher, 0o755);
    const call = device.callOk('launch_app', { name: launcher, args: ['report.txt'] });
    await gate.started();
    await showXmessage('before-the-hand-over');
    // Long enough for the device client to have seen it (it looks every 100 ms).
    await new Promise((resolve) => setTimeout(resolve, 600));
    await gate.go();
    const reply = await call;
    const result = LaunchResult.parse(reply.structuredContent);
    expect(result.window?.title).toBe('opened-by-launcher');
    expect(result.window_match).toBe('handed_over');
    expect(result.other_windows?.map((w) => w.title)).toContain('before-the-hand-over');
    const real = (await windows()).find((w) => w.id === result.window?.id);
    expect(real?.title).toBe('opened-by-launcher');
    if (real?.pid) launched.push(real.pid);
  });

  it('says no window of the program appeared when only another program\'s did', async () => {
    const script = join(home, 'windowless');
    const gate = waitForGo('windowless');
    await writeFile(script, `#!/bin/sh\n${gate.lines}`);
    await chmod(script, 0o755);
    const call = device.call('launch_app', { name: script });
    await gate.started();
    await showXmessage('while-windowless');
    await gate.go();
    const reply = await call;
    expect(reply.isError).toBeFalsy();
    const result = LaunchResult.parse(reply.structuredContent);
    expect(result.window).toBeNull();
    expect(result.other_windows?.map((w) => w.title)).toContain('while-windowless');
    expect(textOf(reply)).toMatch(/^started .*windowless \(pid \d+\) but no window of it appeared within [\d.]+ s; a window of another program appeared: "while-windowless" \(xmessage, pid \d+\)$/);
  });
});
