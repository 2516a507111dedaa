import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WindowInfo } from '../../src-main/device/contract';
import { eventually, processAlive, startDevice, startXvfb, type XDisplay } from '../support/xvfb';

/**
 * A device client that goes away in the middle of a drag (the host closed it: the app quit, the
 * session ended) must not leave the mouse button held down for the whole desktop. xev is the program
 * that tells: it prints every ButtonPress and ButtonRelease its window gets.
 */

describe('a device client closed while it holds the mouse button', () => {
  let x: XDisplay;
  let dir: string;
  let xev: ChildProcess | undefined;

  beforeAll(async () => {
    x = await startXvfb({ width: 1024, height: 768 });
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
    xev = spawn('xev', ['-geometry', '1000x700+0+0'], { env: x.env, stdio: ['ignore', out.fd, 'ignore'] });
    await out.close();
    const device = await startDevice(x);
    const window = await eventually('the xev window', 30_000, async () => {
      const listed = (await device.callOk('list_windows')).structuredContent as { windows: unknown[] };
      return listed.windows.map((w) => WindowInfo.parse(w)).find((w) => w.title === 'Event Tester');
    });
    const { x: left, y: top, width, height } = window.bounds;
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
