import { readFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginEnvironment, runShellCommand } from '../../src-main/device/shell';

/**
 * The one-time login environment probe (`bash -lc 'env -0'`) against profiles that misbehave: it must
 * end on time and fall back to the plain environment, or every later execute_command waits on it.
 */

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('login environment probe', () => {
  let dir: string;
  const leftovers: number[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'deskhand-probe-'));
  });

  afterAll(async () => {
    for (const pid of leftovers) if (alive(pid)) process.kill(pid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  const homeWith = async (name: string, profile: string): Promise<string> => {
    const home = join(dir, name);
    await mkdir(home, { recursive: true });
    await writeFile(join(home, '.profile'), profile);
    return home;
  };

  it('ends when the shell exits, though a program the profile started holds its output and ignores SIGTERM', async () => {
    const home = await homeWith('holder', 'export FROM_PROFILE=yes\n(trap "" TERM; sleep 8) &\necho $! > "$HOME/holder.pid"\n');
    const base = { PATH: process.env.PATH, HOME: home };
    const started = Date.now();
    const env = await loginEnvironment('bash', base, 1_000);
    leftovers.push(Number(await readFile(join(home, 'holder.pid'), 'utf8')));
    expect(Date.now() - started).toBeLessThan(900);
    expect(env.FROM_PROFILE).toBe('yes');

    const out = await runShellCommand({ command: 'echo "$FROM_PROFILE"', timeoutMs: 5_000, env: base });
    expect(out.stdout).toBe('yes\n');
  });

  it('reads the environment after what the profile printed, so a banner is not glued to a variable', async () => {
    const home = await homeWith(
      'banner',
      'echo "Welcome!"\nprintf "Last login: today; no newline="\nexport PATH="$HOME/bin:$PATH"\nexport FROM_PROFILE=yes\n',
    );
    const env = await loginEnvironment('bash', { PATH: process.env.PATH, HOME: home }, 5_000);
    expect(Object.keys(env).filter((name) => /Welcome|Last login|\n/.test(name))).toEqual([]);
    // /etc/profile may set its own PATH first; the user's profile puts its folder in front.
    expect(env.PATH?.startsWith(`${home}/bin:`), env.PATH).toBe(true);
    expect(env.HOME).toBe(home);
    expect(env.FROM_PROFILE).toBe('yes');
  });

  it('kills a profile that ignores SIGTERM and goes on with the plain environment', async () => {
    const home = await homeWith('stubborn', 'echo $$ > "$HOME/shell.pid"\ntrap "" TERM\nexport FROM_PROFILE=yes\nsleep 8\n');
    const base = { PATH: process.env.PATH, HOME: home, KEEP: 'base' };
    const started = Date.now();
    expect(await loginEnvironment('bash', base, 300)).toEqual({});
    expect(Date.now() - started).toBeLessThan(2_500);
    const shell = Number(await readFile(join(home, 'shell.pid'), 'utf8'));
    leftovers.push(shell);
    // Killed, not waited for: it is gone once the kernel has ended it and Node has reaped it (a moment, under load).
    await expect.poll(() => alive(shell), { message: 'the profile shell was killed', timeout: 2_000 }).toBe(false);

    const out = await runShellCommand({ command: 'echo "${FROM_PROFILE:-none}:$KEEP"', timeoutMs: 5_000, env: base });
    expect(out.stdout).toBe('none:base\n');
  });

  it('gives up on a profile that prints more than any environment', async () => {
    const home = await homeWith('chatty', 'export FROM_PROFILE=yes\nhead -c 3000000 /dev/zero | tr "\\0" x\n');
    const started = Date.now();
    expect(await loginEnvironment('bash', { PATH: process.env.PATH, HOME: home }, 5_000)).toEqual({});
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('a command cancelled while the probe is still running never starts, and the cancel does not wait for the probe', async () => {
    const home = await homeWith('slow', 'sleep 3\nexport FROM_PROFILE=yes\n');
    const marker = join(home, 'ran.txt');
    const cancel = new AbortController();
    setTimeout(() => cancel.abort(), 200);
    const started = Date.now();
    await expect(
      runShellCommand({ command: `touch ${marker}`, timeoutMs: 10_000, env: { PATH: process.env.PATH, HOME: home }, signal: cancel.signal }),
    ).rejects.toThrow(/cancelled before it started/);
    expect(Date.now() - started).toBeLessThan(1_500);
    // Long after the probe has ended, the command has still not run.
    await new Promise((done) => setTimeout(done, 3_500));
    await expect(readFile(marker, 'utf8')).rejects.toThrow(/ENOENT/);
  });
});
