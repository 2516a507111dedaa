import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
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

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

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

  /** A window of another program, started by the test (xmessage: no shell, no relation to the launch). */
  function startXmessage(title: string): ChildProcess {
    const child = spawn('xmessage', ['-title', title, '-geometry', '+400+300', 'an unrelated window'], { env: x.env, stdio: 'ignore' });
    others.push(child);
    return child;
  }

  /** A script that shows an xterm only after a while, from a child process (not the started one itself). */
  async function slowXterm(name: string, title: string, delay: number): Promise<string> {
    const path = join(home, name);
    await writeFile(path, `#!/bin/sh\nsleep ${delay}\nxterm -geometry 40x10+0+0 -title '${title}'\n`);
    await chmod(path, 0o755);
    return path;
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
    const script = await slowXterm('slow-xterm', 'launched-late', 1.5);
    const call = device.callOk('launch_app', { name: script });
    await sleep(300);
    startXmessage('unrelated-note');
    const result = LaunchResult.parse((await call).structuredContent);
    if (result.pid) launched.push(result.pid);
    const listed = await windows();
    const note = listed.find((w) => w.title === 'unrelated-note');
    expect(note, 'the unrelated window was up before the launched one').toBeDefined();
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
    const script = await slowXterm('slow-xterm-2', 'launched-second', 1.5);
    const call = device.callOk('launch_app', { name: script });
    await sleep(200);
    const other = await startXterm(x, { title: 'someone-elses-xterm', geometry: '40x10+500+0' });
    programs.push(other);
    const result = LaunchResult.parse((await call).structuredContent);
    if (result.pid) launched.push(result.pid);
    expect(result.window?.title).toBe('launched-second');
    expect(result.window?.id).not.toBe(other.windowId);
    expect(result.other_windows?.map((w) => w.title)).toContain('someone-elses-xterm');
  });

  it('says no window of the program appeared when only another program\'s did', async () => {
    const script = join(home, 'windowless');
    await writeFile(script, '#!/bin/sh\nsleep 1\n');
    await chmod(script, 0o755);
    const call = device.call('launch_app', { name: script });
    await sleep(300);
    startXmessage('while-windowless');
    const reply = await call;
    expect(reply.isError).toBeFalsy();
    const result = LaunchResult.parse(reply.structuredContent);
    expect(result.window).toBeNull();
    expect(result.other_windows?.map((w) => w.title)).toContain('while-windowless');
    expect(textOf(reply)).toMatch(/^started .*windowless \(pid \d+\) but no window of it appeared within [\d.]+ s; a window of another program appeared: "while-windowless" \(xmessage, pid \d+\)$/);
  });
});
