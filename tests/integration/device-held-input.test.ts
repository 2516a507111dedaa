import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, processAlive, startDevice, startXvfb, type XDisplay } from '../support/xvfb';

/**
 * A device client that goes away in the middle of a drag (the host closed it: the app quit, the
 * session ended) must not leave the mouse button held down for the whole desktop. xev is the program
 * that tells: it prints every ButtonPress and ButtonRelease its window gets.
 */

/** Where xev's window is: without a window manager, exactly where it asks. */
const XEV = { x: 0, y: 0, width: 1000, height: 700 };

describe('a device client closed while it holds the mouse button', () => {
  let x: XDisplay;
  let dir: string;
  let xev: ChildProcess | undefined;

  beforeAll(async () => {
    // No window manager: xev's window is where it asks to be, and nothing else (a window manager still
    // starting, say) can grab the pointer or hide the window from a list.
    x = await startXvfb({ width: 1024, height: 768, windowManager: false });
    dir = await mkdtemp(join(tmpdir(), 'deskhand-held-'));
  });

  afterAll(async () => {
    xev?.kill('SIGKILL');
    await x?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('lets go of the button before it exits', async () => {
    const log = join(dir, 'xev.log');
    const out = await open(log, 'w');
    let xevErrors = '';
    xev = spawn('xev', ['-geometry', `${XEV.width}x${XEV.height}+${XEV.x}+${XEV.y}`], { env: x.env, stdio: ['ignore', out.fd, 'pipe'] });
    xev.stderr?.on('data', (chunk: Buffer) => (xevErrors += chunk.toString()));
    await out.close();
    const running = xev;
    // xev prints MapNotify once its window shows; if it died instead, say why rather than wait.
    await eventually('the xev window to show', 30_000, async () => {
      if (running.exitCode !== null) throw new Error(`xev exited with code ${running.exitCode}: ${xevErrors.trim()}`);
      return (await readFile(log, 'utf8')).includes('MapNotify') ? true : undefined;
    });
    const device = await startDevice(x);
    const { x: left, y: top, width, height } = XEV;
    const drag = device
      .call('drag', { from_x: left + 100, from_y: top + 100, to_x: left + width - 100, to_y: top + height - 100 })
      .catch(() => null);
    await eventually('the button press in xev', 10_000, async () => ((await readFile(log, 'utf8')).includes('ButtonPress') ? true : undefined));
    const pid = device.pid;
    // What the host does when it closes the device client: it ends the client's stdin.
    await device.close();
    await drag;
    await eventually('the device client to exit', 5_000, async () => (processAlive(pid) ? undefined : true));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const events = (await readFile(log, 'utf8')).split('\n').filter((line) => /^Button(Press|Release) event/.test(line));
    expect(events.at(-1), `xev saw: ${events.join(' | ')}`).toMatch(/^ButtonRelease/);
  });
});
