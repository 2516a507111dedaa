import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DeviceCommandsFile } from '../../src-main/common/device-commands-file';
import { CommandRecord } from '../../src-main/device/command-record';
import { chooseOrphanCommands, recordOwnerRunning, stillOrphaned } from '../../src-main/host/orphan-commands-choice';
import { readCommandRecords } from '../../src-main/host/orphan-commands';
import type { ProcessEntry } from '../../src-main/host/process-table';

const BOOT = 'boot-1';
const DEVICE = { pid: 100, startTime: '5000', bootId: BOOT };

function proc(pid: number, startTime: string, group = pid, session = pid, zombie = false): ProcessEntry {
  return { pid, startTime, group, session, zombie };
}

function record(commands: DeviceCommandsFile['commands']): DeviceCommandsFile {
  return { device: DEVICE, commands };
}

const sleeper = { pid: 200, startTime: '6000', command: 'sleep 600 && rm x' };

describe('which recorded commands a dead device client left to end', () => {
  it('ends a command whose first process is still the recorded one, with its group and session', () => {
    const processes = [
      proc(200, '6000'),
      proc(201, '6001', 200, 200),
      // `set -m` in the command: a group of its own, still in the command's session.
      proc(202, '6002', 202, 200),
      proc(300, '1000'),
    ];
    const chosen = chooseOrphanCommands(record([sleeper]), processes, BOOT);
    expect(chosen).toHaveLength(1);
    expect(chosen[0]?.command).toEqual(sleeper);
    expect(chosen[0]?.members.map((member) => member.pid)).toEqual([200, 201, 202]);
  });

  it('leaves everything alone while the device client that recorded them still runs', () => {
    const processes = [proc(100, '5000', 90, 90), proc(200, '6000')];
    expect(recordOwnerRunning(record([sleeper]), processes, BOOT)).toBe(true);
    expect(chooseOrphanCommands(record([sleeper]), processes, BOOT)).toEqual([]);
  });

  it('does not take a later process given the device client\'s pid for it', () => {
    const processes = [proc(100, '9999', 90, 90), proc(200, '6000')];
    expect(recordOwnerRunning(record([sleeper]), processes, BOOT)).toBe(false);
    expect(chooseOrphanCommands(record([sleeper]), processes, BOOT)).toHaveLength(1);
  });

  it('never ends a process that got the recorded pid later (another start time), nor its group', () => {
    const processes = [proc(200, '7777'), proc(201, '7778', 200, 200)];
    expect(chooseOrphanCommands(record([sleeper]), processes, BOOT)).toEqual([]);
  });

  it('leaves a command that already exited (a zombie) with what it left in the background', () => {
    const processes = [proc(200, '6000', 200, 200, true), proc(201, '6001', 200, 200)];
    expect(chooseOrphanCommands(record([sleeper]), processes, BOOT)).toEqual([]);
  });

  it('ends nothing recorded in an earlier boot', () => {
    const processes = [proc(200, '6000')];
    expect(chooseOrphanCommands(record([sleeper]), processes, 'boot-2')).toEqual([]);
    expect(recordOwnerRunning(record([sleeper]), [proc(100, '5000')], 'boot-2')).toBe(false);
  });

  it('never ends a launched app or a program the command detached on purpose: they have sessions of their own', () => {
    const processes = [
      proc(200, '6000'),
      // launch_app's program: started by the device client in a session of its own; never recorded.
      proc(400, '6500', 400, 400),
      // The command ran `setsid firefox &`: its own session and group, though the command started it.
      proc(401, '6501', 401, 401),
    ];
    const chosen = chooseOrphanCommands(record([sleeper]), processes, BOOT);
    expect(chosen.flatMap((orphan) => orphan.members.map((member) => member.pid))).toEqual([200]);
  });

  it('sends SIGKILL after the grace only while a process seen in the group is still in it', () => {
    const [orphan] = chooseOrphanCommands(record([sleeper]), [proc(200, '6000'), proc(201, '6001', 200, 200)], BOOT);
    expect(stillOrphaned(orphan!, [proc(201, '6001', 200, 200)])).toBe(true);
    // All gone, the pid given to a new session leader meanwhile: not the command's.
    expect(stillOrphaned(orphan!, [proc(200, '8000')])).toBe(false);
    expect(stillOrphaned(orphan!, [proc(201, '6001', 200, 200, true)])).toBe(false);
    expect(stillOrphaned(orphan!, [])).toBe(false);
  });
});

describe('reading the device clients\' records back', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const folder = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'deskhand-cmdrec-'));
    dirs.push(dir);
    return dir;
  };

  it('reads a valid record, and reports and removes damaged ones without throwing', () => {
    const dir = folder();
    writeFileSync(join(dir, 'good.json'), JSON.stringify(record([sleeper])));
    writeFileSync(join(dir, 'torn.json'), '{"device": {"pid": 1');
    writeFileSync(join(dir, 'wrong.json'), JSON.stringify({ device: DEVICE, commands: [{ pid: -1, startTime: 'x', command: 'ls' }] }));
    writeFileSync(join(dir, 'notes.txt'), 'not a record');
    // Temporary files: one of a writer killed before its rename (above any pid Linux gives), one of a running writer.
    writeFileSync(join(dir, `a.json.${2 ** 22 + 1}.tmp`), '{');
    writeFileSync(join(dir, `b.json.${process.pid}.tmp`), '{');
    const logged: string[] = [];
    const found = readCommandRecords(dir, (message) => logged.push(message));
    expect(found.map(({ record: read }) => read)).toEqual([record([sleeper])]);
    expect(logged).toHaveLength(2);
    expect(logged.join('\n')).toMatch(/torn\.json is not a record/);
    expect(logged.join('\n')).toMatch(/wrong\.json is not a record .*commands\.0\.pid/);
    // Without /proc no writer can be told running: both go (nothing is recorded there anyway).
    const running = existsSync('/proc/self/stat') ? [`b.json.${process.pid}.tmp`] : [];
    expect(readdirSync(dir).sort()).toEqual([...running, 'good.json', 'notes.txt']);
  });

  it('finds nothing, quietly, where no device client recorded anything', () => {
    const logged: string[] = [];
    expect(readCommandRecords(join(folder(), 'missing'), (message) => logged.push(message))).toEqual([]);
    expect(logged).toEqual([]);
  });
});

describe.runIf(existsSync('/proc/self/stat'))('the device client\'s record of its running commands', () => {
  it('records a command while it runs with its start time, and removes the file once none runs', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'deskhand-cmdrec-')), 'device-commands');
    mkdirSync(dir);
    const commands = new CommandRecord(dir);
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    try {
      commands.started(child.pid!, `sleep 30 ${'x'.repeat(500)}`);
      const written = DeviceCommandsFile.parse(JSON.parse(readFileSync(commands.path, 'utf8')));
      expect(written.device.pid).toBe(process.pid);
      expect(written.commands).toHaveLength(1);
      expect(written.commands[0]).toMatchObject({ pid: child.pid, startTime: expect.stringMatching(/^\d+$/) });
      expect(written.commands[0]?.command.length).toBe(200);
      commands.ended(child.pid!);
      expect(existsSync(commands.path)).toBe(false);
    } finally {
      child.kill('SIGKILL');
      rmSync(join(dir, '..'), { recursive: true, force: true });
    }
  });
});
