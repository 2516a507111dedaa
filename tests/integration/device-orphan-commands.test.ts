import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeviceCommandsFile } from '../../src-main/common/device-commands-file';
import { DeskhandConfig } from '../../src-main/host/config';
import { createHost } from '../../src-main/host/create-host';
import { deviceCommandsDir, endOrphanCommands } from '../../src-main/host/orphan-commands';
import { processIdentity, type ProcessIdentity } from '../../src-main/common/process-identity';
import { startModelServer } from '../fixtures/model-server';
import { fakeDeviceLaunch, replies, runRequest } from '../support/host-harness';
import { eventually, processAlive } from '../support/xvfb';

/**
 * A device client killed with SIGKILL cannot end the shell commands it runs (each in a session of its
 * own). The host ends them from the client's record once it sees the client gone, and at its next
 * start for the clients of a host that was killed too; programs started in sessions of their own and
 * unrelated processes live on.
 */

const started: ChildProcess[] = [];
const kept: number[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.pid) killGroup(child.pid);
  for (const pid of kept.splice(0)) killGroup(pid);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone.
    }
  }
}

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A process in a session and group of its own (as the device client starts a command), running `script`. */
function detached(script: string): ChildProcess {
  const child = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  started.push(child);
  return child;
}

async function pidIn(file: string): Promise<number> {
  return eventually(`${file} to be written`, 20_000, async () => {
    const text = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
    return /^\d+$/.test(text) ? Number(text) : undefined;
  });
}

/** The identity of a process that has ended since: a device client killed before. */
async function deadIdentity(): Promise<ProcessIdentity> {
  const child = spawn('sleep', ['5'], { stdio: 'ignore' });
  const identity = processIdentity(child.pid!);
  child.kill('SIGKILL');
  await new Promise((done) => child.once('exit', done));
  expect(identity).not.toBeNull();
  return identity!;
}

describe.runIf(process.platform === 'linux')('commands left running by a device client that was killed', () => {
  it('the host ends the running command of its real device client killed with SIGKILL, and nothing else', async () => {
    const work = tempDir('deskhand-orphan-cmd-');
    const sleepFile = join(work, 'sleep.pid');
    const keptFile = join(work, 'kept.pid');
    // Runs long; the command also detaches a program on purpose (setsid), which is the user's to keep.
    const command =
      `setsid sh -c 'echo $$ > ${keptFile}; exec sleep 601' >/dev/null 2>&1 </dev/null & ` +
      `sleep 600 & echo $! > ${sleepFile}; wait`;
    const model = await startModelServer({
      name: 'device killed during a long command',
      steps: [
        replies.app({ Function: 'execute_command', Args: { command, timeout_s: 900 }, Status: 'CONTINUE' }),
        replies.app({ Function: '', Status: 'FINISH', Comment: 'done' }),
      ],
    });
    const unrelated = detached('exec sleep 602');
    const env: NodeJS.ProcessEnv = { ...process.env, OPENAI_API_KEY: 'x', HOME: tempDir('deskhand-orphan-home-') };
    delete env.DISPLAY;
    delete env.WAYLAND_DISPLAY;
    const config = DeskhandConfig.parse({
      safety: { confirmation: 'never' },
      models: { host: { baseUrl: model.baseUrl, model: 'scripted', maxRetries: 0, timeoutMs: 10_000 } },
    });
    const dataDir = tempDir('deskhand-orphan-data-');
    const deskhand = createHost({ dataDir, config, env });
    try {
      const run = runRequest(deskhand, 'run the long job', 'shell');
      const sleepPid = await pidIn(sleepFile);
      const keptPid = await pidIn(keptFile);
      kept.push(keptPid);
      expect(processAlive(sleepPid)).toBe(true);
      // The command is in the device client's record while it runs (written as the shell starts, so
      // the shell may have written its pid files a moment before).
      await eventually('the command to be recorded', 2_000, async () =>
        readdirSync(deviceCommandsDir(dataDir)).filter((name) => name.endsWith('.json')).length === 1 ? true : undefined,
      );

      const devicePid = deskhand.deviceStatus().pid;
      expect(devicePid).toBeGreaterThan(0);
      process.kill(devicePid!, 'SIGKILL');

      // SIGTERM right away (sleep ends on it); well before the command's own 900 s limit.
      await eventually('the orphaned command to be ended', 8_000, async () => (processAlive(sleepPid) ? undefined : true));
      expect(processAlive(keptPid)).toBe(true);
      expect(processAlive(unrelated.pid!)).toBe(true);
      await eventually('the record to be removed', 8_000, async () =>
        readdirSync(deviceCommandsDir(dataDir)).some((name) => name.endsWith('.json')) ? undefined : true,
      );
      await run;
    } finally {
      await deskhand.close();
      await model.close();
    }
  });

  it('ends what a killed host\'s device client left at the next start: SIGTERM, then SIGKILL after the grace; never a reused pid', async () => {
    const dataDir = tempDir('deskhand-orphan-data-');
    const work = tempDir('deskhand-orphan-cmd-');
    const polite = detached(`sleep 600 & echo $! > ${join(work, 'polite.pid')}; wait`);
    // Ignores SIGTERM, as does what it started: only SIGKILL ends them.
    const stubborn = detached(`trap '' TERM; sleep 600 & echo $! > ${join(work, 'stubborn.pid')}; wait`);
    // Has the pid of a recorded command, but started later: another process that must live on.
    const reused = detached('exec sleep 603');
    const unrelated = detached('exec sleep 604');
    const politeChild = await pidIn(join(work, 'polite.pid'));
    const stubbornChild = await pidIn(join(work, 'stubborn.pid'));
    const identity = (child: ChildProcess): { pid: number; startTime: string } => {
      const found = processIdentity(child.pid!);
      expect(found).not.toBeNull();
      return { pid: found!.pid, startTime: found!.startTime };
    };
    const reusedIdentity = identity(reused);
    const record: DeviceCommandsFile = {
      device: await deadIdentity(),
      commands: [
        { ...identity(polite), command: 'sleep 600 & wait' },
        { ...identity(stubborn), command: "trap '' TERM; sleep 600" },
        { pid: reusedIdentity.pid, startTime: String(Number(reusedIdentity.startTime) - 1), command: 'an earlier process' },
      ],
    };
    mkdirSync(deviceCommandsDir(dataDir), { recursive: true });
    writeFileSync(join(deviceCommandsDir(dataDir), 'killed-client.json'), JSON.stringify(record));
    writeFileSync(join(deviceCommandsDir(dataDir), 'damaged.json'), '{ not json');

    const logged: string[] = [];
    const startedAt = Date.now();
    const ended = await endOrphanCommands(dataDir, { graceMs: 1_000, log: (message) => logged.push(message) });
    expect(ended).toBe(2);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_000);
    for (const pid of [polite.pid!, politeChild, stubborn.pid!, stubbornChild]) {
      await eventually(`process ${pid} to be gone`, 3_000, async () => (processAlive(pid) ? undefined : true));
    }
    expect(processAlive(reused.pid!)).toBe(true);
    expect(processAlive(unrelated.pid!)).toBe(true);
    expect(logged.join('\n')).toMatch(/damaged\.json is not a record/);
    expect(logged.join('\n')).toMatch(/ended the command "sleep 600 & wait" .*\(SIGTERM\)/);
    expect(logged.join('\n')).toMatch(/ended the command "trap '' TERM; sleep 600" .*SIGKILL/);
    expect(readdirSync(deviceCommandsDir(dataDir))).toEqual([]);
  });

  it('a host ends them when it starts', async () => {
    const dataDir = tempDir('deskhand-orphan-data-');
    const command = detached('exec sleep 605');
    const found = processIdentity(command.pid!)!;
    const record: DeviceCommandsFile = { device: await deadIdentity(), commands: [{ pid: found.pid, startTime: found.startTime, command: 'sleep 605' }] };
    mkdirSync(deviceCommandsDir(dataDir), { recursive: true });
    writeFileSync(join(deviceCommandsDir(dataDir), 'killed-client.json'), JSON.stringify(record));
    const deskhand = createHost({ dataDir, config: DeskhandConfig.parse({}), env: process.env, deviceLaunch: fakeDeviceLaunch({}) });
    try {
      await eventually('the command to be ended', 5_000, async () => (processAlive(command.pid!) ? undefined : true));
    } finally {
      await deskhand.close();
    }
  });
});
