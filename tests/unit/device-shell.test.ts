import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandOutput } from '../../src-main/device/contract';
import { deviceLaunchSpec, isSecretEnvName } from '../../src-main/device/launch';
import { CappedOutput, childEnv, loginEnvironment, parseEnv0, parseProbeOutput, runShellCommand, withLogin } from '../../src-main/device/shell';

/** execute_command's engine, on real processes (no display needed). */

/** Running, as opposed to gone or a zombie (killed, waiting for PID 1, which here reaps slowly). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) [ZX] /.test(stat);
  } catch {
    return false;
  }
}

describe('CappedOutput', () => {
  it('keeps everything under the cap', () => {
    const out = new CappedOutput(100);
    out.push(Buffer.from('hello '));
    out.push(Buffer.from('world'));
    expect(out.text()).toBe('hello world');
    expect(out.truncated).toBe(false);
  });

  it('keeps the head and the tail over the cap, and says how much is missing', () => {
    const out = new CappedOutput(40);
    for (let i = 0; i < 100; i++) out.push(Buffer.from(`${String(i).padStart(3, '0')}\n`));
    const text = out.text();
    expect(out.truncated).toBe(true);
    expect(out.totalBytes).toBe(400);
    expect(text.startsWith('000\n001\n')).toBe(true);
    expect(text.endsWith('098\n099\n')).toBe(true);
    expect(text).toMatch(/\[\.\.\. 360 bytes of output left out \.\.\.\]/);
  });

  it('never cuts a UTF-8 character in half', () => {
    const out = new CappedOutput(16);
    out.push(Buffer.from('ü'.repeat(50)));
    const text = out.text();
    expect(text).not.toContain('\uFFFD');
    const [head, tail] = text.split(/\n\[\.\.\. \d+ bytes of output left out \.\.\.\]\n/);
    expect(head).toMatch(/^ü+$/);
    expect(tail).toMatch(/^ü+$/);
  });
});

describe('runShellCommand', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'deskhand-shell-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('returns exit code, stdout and stderr', async () => {
    const out = await runShellCommand({ command: 'echo out; echo err >&2; exit 7', timeoutMs: 10_000 });
    expect(CommandOutput.parse(out)).toEqual({ exit_code: 7, stdout: 'out\n', stderr: 'err\n', truncated: false, timed_out: false });
  });

  it('runs in the working directory (home by default)', async () => {
    expect((await runShellCommand({ command: 'pwd', cwd: dir, timeoutMs: 10_000 })).stdout.trim()).toBe(dir);
    await expect(runShellCommand({ command: 'pwd', cwd: join(dir, 'nope'), timeoutMs: 10_000 })).rejects.toThrow(
      /working directory .*nope does not exist/,
    );
  });

  it('gives the programs a command runs PWD naming its working directory, whatever PWD the device has', async () => {
    // bash (and sh) set PWD to the folder they start in when the one they inherit names another.
    const command = `exec ${JSON.stringify(process.execPath)} -e 'console.log(process.env.PWD)'`;
    const out = await runShellCommand({ command, cwd: dir, env: { ...process.env, PWD: '/somewhere/else' }, timeoutMs: 10_000 });
    expect(out.stdout.trim()).toBe(dir);
  });

  it('caps each stream and flags it', async () => {
    const out = await runShellCommand({
      command: 'head -c 300000 /dev/zero | tr "\\0" a; head -c 10 /dev/zero | tr "\\0" b >&2',
      timeoutMs: 10_000,
      maxOutputBytes: 1024,
    });
    expect(out.truncated).toBe(true);
    expect(out.stdout.length).toBeLessThan(1200);
    expect(out.stdout).toMatch(/^a+\n\[\.\.\. 298976 bytes of output left out \.\.\.\]\na+$/);
    expect(out.stderr).toBe('bbbbbbbbbb');
  });

  it('kills the whole process tree on timeout', async () => {
    const pidFile = join(dir, 'grandchild.pid');
    const started = Date.now();
    const out = await runShellCommand({
      command: `bash -c 'sleep 60 & echo $! > ${pidFile}; wait' ; echo not-reached`,
      timeoutMs: 700,
    });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(out).toMatchObject({ timed_out: true, exit_code: null });
    expect(out.stdout).not.toContain('not-reached');
    const grandchild = Number(readFileSync(pidFile, 'utf8').trim());
    expect(grandchild).toBeGreaterThan(0);
    // Killed with the tree; gone once whoever adopted it has reaped it (a moment, under load).
    await expect.poll(() => alive(grandchild), { timeout: 2_000 }).toBe(false);
  });

  // coreutils timeout and a shell with job control (set -m) put what they run in process groups of
  // their own, inside the command's session.
  const ownGroups = (pids: string): string =>
    `timeout 30 sleep 30 & echo $! > ${pids}; set -m; sleep 30 & echo $! >> ${pids}; wait`;

  it('on timeout, kills what the command started in process groups of its own', async () => {
    const pidFile = join(dir, 'own-groups-timeout.pid');
    const out = await runShellCommand({ command: ownGroups(pidFile), timeoutMs: 500 });
    expect(out.timed_out).toBe(true);
    const pids = readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
    expect(pids).toHaveLength(2);
    for (const pid of pids) await expect.poll(() => alive(pid), { timeout: 2_000, message: `pid ${pid}` }).toBe(false);
  });

  it('on a cancel, kills what the command started in process groups of its own', async () => {
    const pidFile = join(dir, 'own-groups-cancel.pid');
    const controller = new AbortController();
    const run = runShellCommand({ command: ownGroups(pidFile), timeoutMs: 10_000, signal: controller.signal });
    await expect.poll(() => readFileSync(pidFile, { encoding: 'utf8', flag: 'a+' }).trim().split('\n').length, { timeout: 5_000 }).toBe(2);
    controller.abort();
    await expect(run).rejects.toThrow(/cancelled/);
    const pids = readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
    for (const pid of pids) await expect.poll(() => alive(pid), { timeout: 2_000, message: `pid ${pid}` }).toBe(false);
  });

  it('stops a command that ignores SIGTERM', async () => {
    const out = await runShellCommand({ command: `trap '' TERM; sleep 30`, timeoutMs: 300 });
    expect(out.timed_out).toBe(true);
  });

  it('does not wait for background jobs that keep the pipes open', async () => {
    const started = Date.now();
    const out = await runShellCommand({ command: 'sleep 5 & echo started', timeoutMs: 10_000 });
    expect(out).toMatchObject({ exit_code: 0, stdout: 'started\n', timed_out: false });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('cancels through an AbortSignal', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    await expect(runShellCommand({ command: 'sleep 30', timeoutMs: 10_000, signal: controller.signal })).rejects.toThrow(/cancelled/);
  });

  it('reports a command that had already ended when the cancel came, and stops what it left running', async () => {
    const pidFile = join(dir, 'ended-before-cancel.pid');
    const controller = new AbortController();
    // The background sleep keeps the output pipe open, so the result waits a moment after the shell ends.
    const run = runShellCommand({ command: `sleep 30 & echo "$$ $PPID $!" > ${pidFile}; echo finished`, timeoutMs: 10_000, signal: controller.signal });
    await expect.poll(() => readFileSync(pidFile, { encoding: 'utf8', flag: 'a+' }).trim().split(' ').length, { timeout: 5_000 }).toBe(3);
    const [shellPid = 0, parentPid = 0, straggler = 0] = readFileSync(pidFile, 'utf8').trim().split(' ').map(Number);
    // The process the device client started is the shell, or the `timeout` that runs it.
    const started = parentPid === process.pid ? shellPid : parentPid;
    // Gone from /proc only once reaped, that is once the device client has seen it exit.
    await expect.poll(() => existsSync(`/proc/${started}`), { timeout: 5_000, interval: 2 }).toBe(false);
    controller.abort();
    await expect(run).resolves.toMatchObject({ exit_code: 0, stdout: 'finished\n', timed_out: false });
    await expect.poll(() => alive(straggler), { timeout: 2_000 }).toBe(false);
  });

  it('gives stdin end-of-file instead of waiting', async () => {
    const out = await runShellCommand({ command: 'cat; echo done', timeoutMs: 5_000 });
    expect(out.stdout).toBe('done\n');
  });

  it('passes the environment on without secrets', async () => {
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, OPENAI_API_KEY: 'sk-x', GITHUB_TOKEN: 'g', AWS_SECRET_ACCESS_KEY: 'a', DB_PASSWORD: 'p', KEEP_ME: 'yes', ELECTRON_RUN_AS_NODE: '1' };
    const out = await runShellCommand({ command: 'env', timeoutMs: 5_000, env });
    const names = out.stdout.split('\n').map((line) => line.split('=')[0]);
    expect(names).toContain('KEEP_ME');
    for (const secret of ['OPENAI_API_KEY', 'GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'DB_PASSWORD', 'ELECTRON_RUN_AS_NODE']) {
      expect(names).not.toContain(secret);
    }
  });

  it('leaves out secrets by more names, and URLs with a password whatever their name', () => {
    for (const name of ['STRIPE_KEY', 'MISTRAL_KEY', 'SIGNING_KEY', 'KEY', 'GH_PAT', 'NPM_AUTH', 'DOCKER_AUTH_CONFIG', 'SESSION_COOKIE']) {
      expect(isSecretEnvName(name), name).toBe(true);
    }
    // Passwords by the short names programs read: MySQL's client, sshpass, the usual .env spellings.
    for (const name of ['MYSQL_PWD', 'SSHPASS', 'DB_PASS', 'SMTP_PASS', 'REDIS_PASS_WORD']) {
      expect(isSecretEnvName(name), name).toBe(true);
    }
    // A webhook's URL is what lets anyone post to the channel; a JWT is a bearer credential.
    for (const name of ['SLACK_WEBHOOK_URL', 'DISCORD_WEBHOOK', 'CI_JOB_JWT', 'CI_JOB_JWT_V2']) expect(isSecretEnvName(name), name).toBe(true);
    // A password manager's unlocked session opens the whole vault; a desktop session's variables are no secret.
    for (const name of ['BW_SESSION', 'OP_SESSION_my_team']) expect(isSecretEnvName(name), name).toBe(true);
    for (const name of ['XDG_SESSION_TYPE', 'DBUS_SESSION_BUS_ADDRESS', 'DESKTOP_SESSION', 'SESSION_MANAGER']) expect(isSecretEnvName(name), name).toBe(false);
    for (const name of ['PWD', 'OLDPWD', 'PASSENGER_ROOT', 'COMPASS_HOME', 'BYPASS_PROXY']) {
      expect(isSecretEnvName(name), name).toBe(false);
    }
    for (const name of ['MONKEY_PATH', 'KEYBOARD_LAYOUT', 'PATH', 'XAUTHORITY', 'SSH_AUTH_SOCK', 'AUTHOR_NAME', 'PATTERN']) {
      expect(isSecretEnvName(name), name).toBe(false);
    }
    expect(
      childEnv({ DATABASE_URL: 'postgres://me:hunter2@db/app', PUBLIC_URL: 'https://example.com/x', PROXY: 'http://user@proxy:8080', STRIPE_KEY: 'k' }),
    ).toEqual({ PUBLIC_URL: 'https://example.com/x', PROXY: 'http://user@proxy:8080' });
  });

  it('leaves out a URL whose password has no user name before it (redis://:pw@host)', () => {
    expect(childEnv({ REDIS_URL: 'redis://:hunter2@cache:6379/0', CACHE: 'rediss://:hunter2@cache' })).toEqual({});
    expect(childEnv({ SITE: 'https://example.com:8443/', SOCKET: 'unix:///run/x.sock' })).toEqual({ SITE: 'https://example.com:8443/', SOCKET: 'unix:///run/x.sock' });
  });

  it('keeps the variables X and ssh need', () => {
    for (const name of ['DISPLAY', 'XAUTHORITY', 'SSH_AUTH_SOCK', 'HOME', 'PATH', 'DBUS_SESSION_BUS_ADDRESS']) {
      expect(isSecretEnvName(name), name).toBe(false);
    }
    expect(childEnv({ XAUTHORITY: '/x', API_KEY: 'k' })).toEqual({ XAUTHORITY: '/x' });
  });

  it('runs with the login shell\'s PATH and variables, without running the profile for every command', async () => {
    const home = join(dir, 'home');
    await mkdir(join(home, 'bin'), { recursive: true });
    await writeFile(join(home, 'bin', 'deskhand-hello'), '#!/bin/sh\necho hello from the profile PATH\n');
    await chmod(join(home, 'bin', 'deskhand-hello'), 0o755);
    await writeFile(
      join(home, '.profile'),
      'export PATH="$HOME/bin:$PATH"\nexport FROM_PROFILE=yes\nexport PROFILE_TOKEN=secret\necho run >> "$HOME/profile-runs"\n',
    );
    const env = { PATH: process.env.PATH, HOME: home };
    for (let i = 0; i < 3; i++) {
      const out = await runShellCommand({ command: 'deskhand-hello; echo "$FROM_PROFILE:${PROFILE_TOKEN:-none}"', timeoutMs: 10_000, env });
      expect(out.stdout).toBe('hello from the profile PATH\nyes:none\n');
    }
    expect(readFileSync(join(home, 'profile-runs'), 'utf8')).toBe('run\n');
  });

  it('keeps a variable the host withholds (an MCP server\'s token) out of commands when the login profile sets it again', async () => {
    const home = join(dir, 'withheld-home');
    await mkdir(home, { recursive: true });
    await writeFile(join(home, '.profile'), 'export TRACKER_ACCESS=from-profile\nexport FROM_PROFILE=yes\n');
    const spec = deviceLaunchSpec({
      root: '/r',
      mode: 'built',
      env: { PATH: process.env.PATH, HOME: home, TRACKER_ACCESS: 'from-session' },
      secretNames: new Set(['TRACKER_ACCESS']),
    });
    expect(spec.env.TRACKER_ACCESS).toBeUndefined();
    const out = await runShellCommand({ command: 'echo "$FROM_PROFILE:${TRACKER_ACCESS:-none}"; env', timeoutMs: 10_000, env: spec.env });
    expect(out.stdout.split('\n')[0]).toBe('yes:none');
    expect(out.stdout).not.toContain('from-profile');
    expect(out.stdout).not.toMatch(/^DESKHAND_/m);
  });

  it('ends a login probe still running when the device client exits gently, so its profile releases what it holds', async () => {
    // Like pyenv's rehash: a lock taken with noclobber, released by an EXIT trap. Killed outright, the
    // probe would leave it, and every later login shell would wait for it.
    const home = join(dir, 'locking-home');
    const lock = join(home, 'rehash.lock');
    await mkdir(home, { recursive: true });
    await writeFile(join(home, '.profile'), `set -o noclobber; : > ${JSON.stringify(lock)}; trap 'rm -f ${lock}' EXIT; sleep 30\n`);
    // A device client in its own process: it starts the probe, and exits once the profile holds the lock.
    const client = [
      "import { existsSync } from 'node:fs';",
      `import { loginEnvironment } from ${JSON.stringify(join(process.cwd(), 'src-main/device/shell.ts'))};`,
      `void loginEnvironment('bash', { PATH: process.env.PATH, HOME: ${JSON.stringify(home)} }, 60_000);`,
      'const started = Date.now();',
      `setInterval(() => { if (existsSync(${JSON.stringify(lock)}) || Date.now() - started > 20_000) process.exit(0); }, 20);`,
    ].join('\n');
    const exited = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', client], { encoding: 'utf8' });
    expect(exited.status, exited.stderr).toBe(0);
    // The probe's shell got SIGTERM as the client exited, and ran its EXIT trap.
    const deadline = Date.now() + 5_000;
    while (existsSync(lock) && Date.now() < deadline) await new Promise((done) => setTimeout(done, 50));
    expect(existsSync(lock)).toBe(false);
  });

  it('goes on without the login environment when the profile hangs', async () => {
    const home = join(dir, 'slow-home');
    await mkdir(home, { recursive: true });
    await writeFile(join(home, '.profile'), 'sleep 30\n');
    const started = Date.now();
    expect(await loginEnvironment('bash', { PATH: process.env.PATH, HOME: home }, 300)).toEqual({});
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('login environment helpers', () => {
  it('parses env -0 output', () => {
    expect(parseEnv0('A=1\0B=x=y\0EMPTY=\0\0')).toEqual({ A: '1', B: 'x=y', EMPTY: '' });
  });

  it('reads the probe output after its marker only', () => {
    expect(parseProbeOutput('Welcome!\nmotd=x\0no newline: M-1\nPATH=/bin\0A=1\0', 'M-1')).toEqual({ PATH: '/bin', A: '1' });
    expect(parseProbeOutput('PATH=/bin\0', 'M-1'), 'no marker, no environment').toEqual({});
  });

  it('takes PATH and missing variables from the login shell, keeps the rest', () => {
    expect(withLogin({ PATH: '/bin', HOME: '/h', KEEP: 'base' }, { PATH: '/opt/bin:/bin', KEEP: 'login', EXTRA: 'e', SHLVL: '2', _: '/usr/bin/env' })).toEqual({
      PATH: '/opt/bin:/bin',
      HOME: '/h',
      KEEP: 'base',
      EXTRA: 'e',
    });
  });
});
