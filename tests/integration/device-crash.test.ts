import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScreenshotMeta } from '../../src-main/device/contract';
import { eventually, processAlive, startDevice, startXvfb, type DeviceHandle, type XDisplay } from '../support/xvfb';

/**
 * The device client killed with SIGKILL in the middle of a call (what an X error abort looks like from
 * outside): the MCP client gets a clear error at once instead of waiting for its timeout, the
 * command the device was running does not live on, and a new device client on the same display works.
 * (Restarting it and recording the ERROR step is the host's job.)
 */

describe('device client killed mid-call', () => {
  let x: XDisplay;
  let dir: string;
  let replacement: DeviceHandle | null = null;

  beforeAll(async () => {
    x = await startXvfb({ width: 800, height: 600, windowManager: false });
    dir = await mkdtemp(join(tmpdir(), 'deskhand-crash-'));
  });

  afterAll(async () => {
    await replacement?.close();
    await x?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('fails the call in flight with a clear error, leaves no command behind, and a new client works', async () => {
    const device = await startDevice(x);
    let closed = false;
    device.client.onclose = () => {
      closed = true;
    };
    const pidFile = join(dir, 'sleep.pid');
    const call = device.call('execute_command', { command: `sleep 60 & echo $! > ${pidFile}; wait`, timeout_s: 1 }, { timeout: 30_000 });
    const outcome = call.then(
      () => 'resolved',
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    const sleepPid = await eventually('the command to start', 10_000, async () => {
      const text = await readFile(pidFile, 'utf8').catch(() => '');
      return text.trim() ? Number(text.trim()) : undefined;
    });
    expect(processAlive(sleepPid)).toBe(true);

    const killedAt = Date.now();
    process.kill(device.pid, 'SIGKILL');
    const message = await outcome;
    expect(Date.now() - killedAt).toBeLessThan(2_000);
    expect(message).toMatch(/connection closed/i);
    expect(closed).toBe(true);
    await eventually('the device process to be gone', 2_000, async () => (processAlive(device.pid) ? undefined : true));
    await expect(device.call('pointer')).rejects.toThrow(/not connected|connection closed/i);

    // The device could not clean up; coreutils timeout ends the command soon after its own limit.
    await eventually('the orphaned command to end', 8_000, async () => (processAlive(sleepPid) ? undefined : true));

    replacement = await startDevice(x);
    const shot = await replacement.callOk('screenshot');
    expect(ScreenshotMeta.parse(shot.structuredContent)).toMatchObject({ width: 800, height: 600 });
    expect((await replacement.callOk('execute_command', { command: 'echo back' })).structuredContent).toMatchObject({
      exit_code: 0,
      stdout: 'back\n',
    });
  });

  it('also fails a wait in progress at once', async () => {
    const device = await startDevice(x);
    const started = Date.now();
    const call = device.call('wait', { seconds: 20 }, { timeout: 30_000 });
    await new Promise((r) => setTimeout(r, 300));
    process.kill(device.pid, 'SIGKILL');
    await expect(call).rejects.toThrow(/connection closed/i);
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
