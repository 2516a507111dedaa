import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { descendantsOf, processIdentity, stillRunning } from '../../src-main/common/process-identity';

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

async function until<T>(check: () => T | null | undefined | false): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = check();
    if (value) return value;
    await new Promise((done) => setTimeout(done, 25));
  }
  throw new Error('timed out');
}

describe.runIf(existsSync('/proc/self/stat'))('process identity (Linux /proc)', () => {
  it('tells the running process from another one given its pid', () => {
    const own = processIdentity(process.pid);
    expect(own).toMatchObject({ pid: process.pid, startTime: expect.stringMatching(/^\d+$/) });
    expect(stillRunning(own!)).toBe(true);
    expect(stillRunning({ ...own!, startTime: String(Number(own!.startTime) + 1) })).toBe(false);
    expect(stillRunning({ ...own!, bootId: 'another boot' })).toBe(false);
    // Above the largest pid Linux gives.
    expect(processIdentity(2 ** 22 + 1)).toBeNull();
  });

  it("reads the start time past a command name holding ') ' and spaces, and finds a process's children", async () => {
    const parent = spawn(
      process.execPath,
      ['-e', "require('child_process').spawn(process.execPath, ['-e', \"process.title = 'x) 1 2 3'; setInterval(() => {}, 1000)\"], { stdio: 'inherit' }); setInterval(() => {}, 1000)"],
      { stdio: 'ignore' },
    );
    children.push(parent);
    const identity = await until(() => parent.pid !== undefined && processIdentity(parent.pid));
    const [child] = await until(() => {
      const found = descendantsOf(identity);
      return found.length === 1 && readFileSync(`/proc/${found[0]!.pid}/stat`, 'utf8').includes('x) 1 2 3') && found;
    });
    const stat = readFileSync(`/proc/${child!.pid}/stat`, 'utf8');
    expect(child!.startTime).toBe(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    expect(Number(child!.startTime)).toBeGreaterThanOrEqual(Number(identity.startTime));
    process.kill(child!.pid, 'SIGKILL');
  });
});
