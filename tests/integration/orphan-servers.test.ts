import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeskhandConfig } from '../../src-main/host/config';
import { createHost } from '../../src-main/host/create-host';
import { processIdentity, stillRunning, type ProcessIdentity } from '../../src-main/common/process-identity';
import { SERVER_PROCESSES_DIR, type ServerProcessesFile } from '../../src-main/host/server-process-record';
import { fakeDeviceLaunch } from '../support/host-harness';

/**
 * A stdio MCP server that ignores its closed input outlives a host killed with SIGKILL (nothing in the
 * host runs then to end it); the next host to start on the data folder ends it, and nothing else.
 */

const started: ChildProcess[] = [];
/** The left-over server and what it started, ended here when the test fails. */
const leftOver: ProcessIdentity[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
  for (const identity of leftOver.splice(0)) if (stillRunning(identity)) process.kill(identity.pid, 'SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  vi.restoreAllMocks();
});

/** Not running: gone, or a zombie its new parent has not reaped yet. */
function ended(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

async function until<T>(check: () => T | null | undefined | false, what: string, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

const records = (dataDir: string): string[] => {
  const dir = join(dataDir, SERVER_PROCESSES_DIR);
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.json')) : [];
};

describe.runIf(existsSync('/proc/self/stat'))('MCP servers left running by a host killed with SIGKILL', () => {
  it('are ended, with what they started, by the next host; a reused pid and a running host\'s servers are not touched', { timeout: 60_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'deskhand-orphans-'));
    dirs.push(dataDir);
    const pidFile = join(dataDir, 'server.pids');
    const host = spawn(
      process.execPath,
      ['--import', 'tsx', resolve('tests/support/server-recording-host.ts'), dataDir, resolve('tests/support/stdin-ignoring-server.mjs'), pidFile],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    started.push(host);
    let stderr = '';
    host.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [server, serverChild, orphaned] = await until(
      () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').split(' ').map(Number),
      `the server's pid file (host stderr: ${stderr})`,
    );
    for (const pid of [server, serverChild, orphaned]) {
      const identity = pid === undefined ? null : processIdentity(pid);
      if (identity) leftOver.push(identity);
    }
    const recorded = (name: string): ServerProcessesFile => JSON.parse(readFileSync(join(dataDir, SERVER_PROCESSES_DIR, name), 'utf8')) as ServerProcessesFile;
    await until(() => records(dataDir).some((name) => recorded(name).servers.some((entry) => entry.pid === server)), 'the record of the server');
    host.kill('SIGKILL');
    await new Promise((done) => host.once('exit', done));
    // Its input closed with the host, yet it runs on, as do the processes it started.
    await new Promise((done) => setTimeout(done, 300));
    expect(ended(server!)).toBe(false);
    expect(ended(serverChild!)).toBe(false);
    expect(ended(orphaned!)).toBe(false);

    // An unrelated process given a pid a dead host recorded (its start time differs), and one recorded
    // by a host that still runs (this process): neither is touched.
    const unrelated = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    started.push(unrelated);
    const identity = await until(() => unrelated.pid !== undefined && processIdentity(unrelated.pid), 'the unrelated process');
    const deadHost = { pid: 2 ** 22 + 1, startTime: '1', bootId: identity.bootId };
    const reused: ServerProcessesFile = { host: deadHost, servers: [{ ...identity, startTime: String(Number(identity.startTime) - 1), server: 'reused' }] };
    const ownHost = processIdentity(process.pid);
    if (!ownHost) throw new Error('no identity for this process');
    const running: ServerProcessesFile = { host: ownHost, servers: [{ ...identity, server: 'running' }] };
    mkdirSync(join(dataDir, SERVER_PROCESSES_DIR), { recursive: true });
    writeFileSync(join(dataDir, SERVER_PROCESSES_DIR, 'reused.json'), JSON.stringify(reused));
    writeFileSync(join(dataDir, SERVER_PROCESSES_DIR, 'running.json'), JSON.stringify(running));
    writeFileSync(join(dataDir, SERVER_PROCESSES_DIR, 'damaged.json'), '{"host": 12');

    const logged: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => void logged.push(String(line)));
    const next = createHost({ dataDir, config: DeskhandConfig.parse({}), env: process.env, deviceLaunch: fakeDeviceLaunch({}) });
    try {
      // The grandchild is no longer a descendant of the server (its parent exited), but it is in the server's session.
      await until(() => ended(server!) && ended(serverChild!) && ended(orphaned!), 'the left-over server and what it started to end', 5_000);
      expect(ended(identity.pid)).toBe(false);
      expect(records(dataDir)).toEqual(['running.json']);
      expect(logged).toContainEqual(expect.stringMatching(new RegExp(`ended the MCP server stubborn \\(process ${server} and 2 it started\\), left running by a Deskhand that was killed`)));
      expect(logged).toContainEqual(expect.stringMatching(/damaged\.json is not a record of MCP server processes; removed/));
      expect(logged.join('\n')).not.toMatch(/MCP server (reused|running)/);
    } finally {
      await next.close();
    }
  });
});
