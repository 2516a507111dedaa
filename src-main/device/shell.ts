import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { signalGroup } from '../common/process-group';
import { unlessAborted } from '../common/unless-aborted';
import type { CommandRecorder } from './command-record';
import type { CommandOutput } from './contract';
import { hasCommand } from './exec';
import { deviceEnv, WITHHELD_ENV, withheldNames } from './launch';

/**
 * execute_command: one shell command, run to completion or killed with everything it started.
 *
 * - Linux and macOS: `bash -c COMMAND` (`sh -c` where there is no bash) with the environment of a
 *   login shell: `bash -lc env` runs once per device client (loginEnvironment) and its PATH and any
 *   variables the device lacks are added, so commands find what the user's terminal finds. Not
 *   `bash -lc COMMAND` for every command: login profiles can be slow or block, e.g. pyenv's rehash
 *   takes a lock in every login shell, and a command killed while its profile ran left the lock
 *   behind, so every later login shell waited 60 s for it (measured here).
 *   Windows: `powershell.exe -NoProfile -NonInteractive -Command COMMAND`.
 * - The command runs in its own process group (POSIX: a new session); a timeout, a cancellation, or
 *   the device client exiting kills the whole group, so a `sleep` grandchild dies with its parent, and
 *   on Linux the rest of the session too (killTree). On Windows `taskkill /T /F` kills the tree.
 * - stdin is /dev/null: a command that waits for input gets end-of-file instead of hanging.
 * - stdout and stderr are kept up to a cap each (default 64 KiB): the first three quarters and the last
 *   quarter, with a marker saying how much was left out between them, and `truncated: true`.
 * - The environment is the device client's without anything named like a secret (see deviceEnv).
 * - Background jobs (`cmd &`) that outlive the shell keep running; their output is no longer read once
 *   the shell has exited, so they should redirect it (`cmd > log 2>&1 &`).
 * - On Linux the shell runs under coreutils `timeout` with a slightly longer limit, so a command still
 *   ends if the device client is killed with SIGKILL (which leaves no chance to clean up). Sooner than
 *   that, the host ends it: each running command is recorded (`record`, see command-record.ts) for the
 *   host to end once it sees the device client gone (host/orphan-commands.ts).
 */

export const DEFAULT_OUTPUT_CAP_BYTES = 64 * 1024;
/** After SIGTERM, how long a process group gets before SIGKILL. */
export const KILL_GRACE_MS = 1_000;
/** coreutils `timeout` ends the command this many seconds after its own timeout if we could not. */
const HARD_LIMIT_SLACK_S = 3;
/** After the shell exits, how long we keep reading output that its children still write. */
const DRAIN_MS = 250;

export interface ShellRunOptions {
  command: string;
  /** Working directory: absolute, or relative to the home directory; default the home directory. */
  cwd?: string;
  timeoutMs: number;
  /** Bytes kept per stream (stdout, stderr). */
  maxOutputBytes?: number;
  /** Base environment (default process.env); secrets are removed from it either way. */
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  platform?: NodeJS.Platform;
  /** Told when the command's first process starts and exits, so the host can end it if we are killed. */
  record?: CommandRecorder;
}

export interface ShellRunResult extends CommandOutput {
  /** The signal that ended the shell (POSIX), e.g. "SIGKILL" after a timeout. */
  signal: string | null;
  duration_ms: number;
}

export class ShellError extends Error {
  override name = 'ShellError';
}

/**
 * Keeps the head and tail of a byte stream within `limit` bytes. Cuts fall on UTF-8 character
 * boundaries, so the kept text never starts or ends with half a character.
 */
export class CappedOutput {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer = Buffer.alloc(0);
  private total = 0;

  constructor(readonly limit: number) {
    this.headLimit = Math.floor((limit * 3) / 4);
    this.tailLimit = limit - this.headLimit;
  }

  get truncated(): boolean {
    return this.total > this.limit;
  }

  get totalBytes(): number {
    return this.total;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const take = Math.min(rest.length, this.headLimit - this.headBytes);
      this.head.push(rest.subarray(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    const joined = this.tail.length === 0 ? rest : Buffer.concat([this.tail, rest]);
    // Copy so a huge chunk is not kept alive by a small view of it.
    this.tail = Buffer.from(joined.subarray(Math.max(0, joined.length - this.tailLimit)));
  }

  text(): string {
    const head = Buffer.concat(this.head);
    if (!this.truncated) return Buffer.concat([head, this.tail]).toString('utf8');
    const headEnd = completeUtf8Length(head);
    let tailStart = 0;
    while (tailStart < this.tail.length && isContinuation(this.tail[tailStart] as number)) tailStart++;
    const omitted = this.total - headEnd - (this.tail.length - tailStart);
    return (
      head.subarray(0, headEnd).toString('utf8') +
      `\n[... ${omitted} bytes of output left out ...]\n` +
      this.tail.subarray(tailStart).toString('utf8')
    );
  }
}

function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/** Length of the longest prefix of `bytes` that does not end inside a UTF-8 sequence. */
function completeUtf8Length(bytes: Buffer): number {
  let start = bytes.length;
  let back = 0;
  while (start > 0 && back < 4 && isContinuation(bytes[start - 1] as number)) {
    start--;
    back++;
  }
  if (start === 0) return bytes.length;
  const lead = bytes[start - 1] as number;
  const needed = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc0 ? 1 : 0;
  return needed > back ? start - 1 : bytes.length;
}

// Device-internal switches that would change how launched programs behave.
const INTERNAL_ENV = ['ELECTRON_RUN_AS_NODE', 'DESKHAND_DEVICE_DEBUG', WITHHELD_ENV];

/** The environment commands and launched programs get: no secrets, none the host withholds, no Deskhand internals. */
export function childEnv(base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env = deviceEnv(base, withheldNames(base));
  for (const name of INTERNAL_ENV) delete env[name];
  return env;
}

/**
 * Running commands (and login probes), each with the platform its tree is killed for and the signal it
 * gets when the device client exits: SIGKILL for a command, SIGTERM for a login probe, so that the
 * profile's scripts release what they hold (pyenv's rehash lock, left by a SIGKILL, makes every later
 * login shell on the machine wait 60 s for it).
 */
const live = new Map<ChildProcess, { platform: NodeJS.Platform; atExit: NodeJS.Signals }>();
let exitHook = false;

function trackChild(child: ChildProcess, platform: NodeJS.Platform, atExit: NodeJS.Signals = 'SIGKILL'): void {
  live.set(child, { platform, atExit });
  child.once('exit', () => live.delete(child));
  if (exitHook) return;
  exitHook = true;
  // A device client that exits (the host closed it, or a signal: exit-signals.ts) takes its commands
  // with it. SIGKILL of the client itself cannot be caught; see the coreutils `timeout` note above.
  process.once('exit', stopLiveCommands);
}

/** Kills every running command with everything it started, and ends the login probes. */
export function stopLiveCommands(): void {
  for (const [child, { platform, atExit }] of live) killTree(child, atExit, platform);
}

/**
 * Signals the child's whole process group (POSIX: see signalGroup, which on Linux reaches the rest of
 * its session too) or tree (Windows). Never throws.
 */
export function killTree(child: ChildProcess, signal: NodeJS.Signals, platform: NodeJS.Platform = process.platform): void {
  const pid = child.pid;
  if (pid === undefined) return;
  if (platform === 'win32') {
    try {
      spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => undefined);
    } catch {
      // No taskkill to start: nothing more to try.
    }
    return;
  }
  signalGroup(pid, signal, platform);
}

let bashAvailable: boolean | null = null;

async function posixShell(): Promise<string> {
  if (bashAvailable === null) {
    bashAvailable = await new Promise<boolean>((done) => {
      const probe = spawn('bash', ['-c', 'exit 0'], { stdio: 'ignore' });
      probe.once('error', () => done(false));
      probe.once('exit', (code) => done(code === 0));
    });
  }
  return bashAvailable ? 'bash' : 'sh';
}

/** How long the one-time login environment probe may take before commands go on without it. */
export const LOGIN_PROBE_TIMEOUT_MS = 5_000;
/** Far more than any environment: a profile that prints this much is not giving us one. */
export const LOGIN_PROBE_MAX_BYTES = 1024 * 1024;
/** After the probe's shell exits, how long to wait for the rest of its output when a child holds the pipe. */
const PROBE_DRAIN_MS = 100;

const loginEnvs = new Map<string, Promise<Record<string, string>>>();

/** Parses `env -0` output. */
export function parseEnv0(output: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of output.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

/**
 * The login probe's output: whatever the profile printed (a banner, a fortune), the marker line, then
 * `env -0`'s output. Only what follows the marker is the environment; {} when the marker never came.
 */
export function parseProbeOutput(output: string, marker: string): Record<string, string> {
  const at = output.indexOf(`${marker}\n`);
  return at < 0 ? {} : parseEnv0(output.slice(at + marker.length + 1));
}

/**
 * The environment a login shell sets up (`SHELL -lc 'env -0'`), once per base HOME and PATH; {} (so
 * commands get the plain environment) when the profile fails, prints more than LOGIN_PROBE_MAX_BYTES
 * or takes longer than `timeoutMs`. A slow probe gets SIGTERM first, so profile scripts can release
 * what they hold, and SIGKILL KILL_GRACE_MS later. The shell's exit ends the probe: a program the
 * profile started in the background may hold the output pipe open indefinitely.
 */
export function loginEnvironment(
  shell: string,
  base: NodeJS.ProcessEnv,
  timeoutMs = LOGIN_PROBE_TIMEOUT_MS,
): Promise<Record<string, string>> {
  const key = `${shell}\0${base.HOME ?? ''}\0${base.PATH ?? ''}`;
  let probe = loginEnvs.get(key);
  if (!probe) {
    probe = probeLoginEnvironment(shell, base, timeoutMs);
    loginEnvs.set(key, probe);
  }
  return probe;
}

function probeLoginEnvironment(shell: string, base: NodeJS.ProcessEnv, timeoutMs: number): Promise<Record<string, string>> {
  return new Promise((resolvePromise) => {
    // A profile may print to stdout too; the marker says where env's output starts.
    const marker = `deskhand-env-${randomBytes(8).toString('hex')}`;
    const command = `printf '%s\\n' ${marker} && env -0`;
    const child = spawn(shell, ['-lc', command], { env: childEnv(base), stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    trackChild(child, process.platform, 'SIGTERM');
    const chunks: Buffer[] = [];
    let bytes = 0;
    let settled = false;
    let drainTimer: NodeJS.Timeout | undefined;
    let graceTimer: NodeJS.Timeout | undefined;

    const finish = (env: Record<string, string>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drainTimer);
      child.stdout?.destroy();
      resolvePromise(env);
    };
    const output = (code: number | null): Record<string, string> =>
      code === 0 ? parseProbeOutput(Buffer.concat(chunks).toString('utf8'), marker) : {};
    const timer = setTimeout(() => {
      killTree(child, 'SIGTERM');
      // Also ends what the profile started and left behind, which SIGTERM may not.
      graceTimer = setTimeout(() => {
        killTree(child, 'SIGKILL');
        finish({});
      }, KILL_GRACE_MS);
    }, timeoutMs);

    child.stdout?.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= LOGIN_PROBE_MAX_BYTES) {
        chunks.push(chunk);
        return;
      }
      killTree(child, 'SIGKILL');
      finish({});
    });
    child.once('error', () => finish({}));
    child.once('exit', (code) => {
      if (graceTimer) return finish({});
      drainTimer = setTimeout(() => finish(output(code)), PROBE_DRAIN_MS);
    });
    child.once('close', (code: number | null) => finish(output(code)));
  });
}

/** `base` plus the login shell's PATH and the variables `base` does not set itself. */
export function withLogin(base: NodeJS.ProcessEnv, login: Record<string, string>): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...login, ...base };
  if (login.PATH) merged.PATH = login.PATH;
  // Shell bookkeeping of the probe, not environment worth passing on.
  for (const name of ['SHLVL', '_', 'OLDPWD', 'PWD']) {
    if (base[name] === undefined) delete merged[name];
    else merged[name] = base[name];
  }
  return merged;
}

/**
 * What execute_command's commands get on Linux and macOS, and launch_app's programs too: childEnv of
 * `base` with the login shell's PATH and variables. The probe runs once per device client
 * (loginEnvironment keeps its promise), so only the first caller waits for it.
 */
export async function loginChildEnv(base: NodeJS.ProcessEnv = process.env, signal?: AbortSignal): Promise<Record<string, string>> {
  const shell = await posixShell();
  // The first probe can take seconds: a cancel must not wait for it.
  const login = await unlessAborted(loginEnvironment(shell, base), signal, () => new ShellError('cancelled before it started'));
  return childEnv(withLogin(base, login));
}

async function resolveCwd(cwd: string | undefined): Promise<string> {
  const home = homedir();
  if (!cwd) return home;
  const expanded = cwd === '~' ? home : cwd.startsWith('~/') ? resolve(home, cwd.slice(2)) : cwd;
  const path = isAbsolute(expanded) ? expanded : resolve(home, expanded);
  const info = await stat(path).catch(() => null);
  if (!info) throw new ShellError(`the working directory ${path} does not exist`);
  if (!info.isDirectory()) throw new ShellError(`the working directory ${path} is not a directory`);
  return path;
}

/** Runs one command; resolves with its output also when it fails or times out. Rejects only when it
 * could not start (bad cwd, no shell) or was cancelled through `signal`. */
export async function runShellCommand(options: ShellRunOptions): Promise<ShellRunResult> {
  const platform = options.platform ?? process.platform;
  const cap = options.maxOutputBytes ?? DEFAULT_OUTPUT_CAP_BYTES;
  const cwd = await resolveCwd(options.cwd);
  if (options.signal?.aborted) throw new ShellError('cancelled before it started');
  const base = options.env ?? process.env;
  let env: Record<string, string>;
  let file: string;
  let args: string[];
  if (platform === 'win32') {
    env = childEnv(base);
    file = 'powershell.exe';
    args = ['-NoLogo', '-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-Command', options.command];
  } else {
    file = await posixShell();
    env = await loginChildEnv(base, options.signal);
    args = ['-c', options.command];
  }
  if (platform === 'linux' && (await hasCommand('timeout'))) {
    // A second, independent limit: if the device client itself is killed (SIGKILL cannot be caught), the
    // command still ends a little after its own timeout instead of running on as an orphan.
    const hardLimitS = Math.ceil(options.timeoutMs / 1000) + HARD_LIMIT_SLACK_S;
    args = ['--kill-after=2', `${hardLimitS}s`, file, ...args];
    file = 'timeout';
  }
  // Each await above gave a cancel its chance; a cancelled command must not start after all.
  if (options.signal?.aborted) throw new ShellError('cancelled before it started');

  const started = performance.now();
  return new Promise<ShellRunResult>((resolvePromise, reject) => {
    const child = spawn(file, args, {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      // POSIX: setsid(), so the shell leads a new process group we can signal as a whole.
      detached: platform !== 'win32',
      windowsHide: true,
    });
    trackChild(child, platform);
    const pid = child.pid;
    if (pid !== undefined) {
      options.record?.started(pid, options.command);
      child.once('exit', () => options.record?.ended(pid));
    }
    const stdout = new CappedOutput(cap);
    const stderr = new CappedOutput(cap);
    child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));

    let timedOut = false;
    let cancelled = false;
    let settled = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let graceTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

    const terminate = (): void => {
      killTree(child, 'SIGTERM', platform);
      graceTimer ??= setTimeout(() => killTree(child, 'SIGKILL', platform), KILL_GRACE_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      terminate();
    }, options.timeoutMs);
    const onAbort = (): void => {
      if (exit !== null) {
        // The command had already ended; only what it left holding the pipes is still running. Its
        // result stands: reporting it as cancelled would hide what it did.
        killTree(child, 'SIGKILL', platform);
        finish();
        return;
      }
      cancelled = true;
      terminate();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drainTimer);
      options.signal?.removeEventListener('abort', onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      if (timedOut || cancelled) {
        // The shell is gone; make sure nothing it started survives the grace period.
        killTree(child, 'SIGKILL', platform);
      }
      clearTimeout(graceTimer);
      if (cancelled) {
        reject(new ShellError('cancelled; the command and the processes of its group were stopped (a program that detached itself, with setsid say, may still run)'));
        return;
      }
      resolvePromise({
        exit_code: timedOut ? null : (exit?.code ?? null),
        stdout: stdout.text(),
        stderr: stderr.text(),
        truncated: stdout.truncated || stderr.truncated,
        timed_out: timedOut,
        signal: exit?.signal ?? null,
        duration_ms: Math.round(performance.now() - started),
      });
    };

    child.once('error', (error: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      options.signal?.removeEventListener('abort', onAbort);
      reject(new ShellError(error.code === 'ENOENT' ? `${file} is not installed (not found on PATH)` : error.message));
    });
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      // Children that inherited the pipes may still hold them open; read what they wrote a moment longer.
      drainTimer = setTimeout(finish, DRAIN_MS);
    });
    child.once('close', finish);
  });
}
