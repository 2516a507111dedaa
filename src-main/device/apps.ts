import { spawn } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import { homedir, hostname } from 'node:os';
import { basename, isAbsolute, join } from 'node:path';
import { throwIfAborted } from './abort';
import type { LaunchResult, WindowInfo } from './contract';
import { hasCommand } from './exec';
import { chooseWindow, isLauncher, launchNote, localPids, programNames, tieOf, type LaunchCandidate, type WindowFacts } from './launch-window';
import { inProcessTree, readProcStat } from './proc-tree';
import { childEnv, loginChildEnv } from './shell';
import { splitArgs } from './split-args';
import { LAUNCH_WINDOW_WAIT_MS } from './timeouts';
import { getWindow, windowIds, windowOwner, type DesktopWindow } from './windows';

/**
 * launch_app: starts a program by name and reports its new window.
 *
 * `name` is tried, in order, as (1) a path (a program, or a .desktop file), (2) a program on PATH
 * ("mousepad", "xterm", "chromium"), (3) an installed application's desktop entry: its id
 * ("org.xfce.mousepad"), the id's last part ("mousepad"), its Name ("Mousepad") or GenericName
 * ("Text Editor"), case-insensitively; the entry's Exec line is run with the arguments in place of its
 * %f/%u field codes. Programs start detached (their own session, no pipes to us) and outlive the device
 * client. On Linux and macOS they are found and started with execute_command's environment (the
 * device's without secrets, plus the login shell's PATH and variables), so a program in ~/.local/bin
 * that a command can run can be launched too.
 *
 * The new window is a top-level window that was not there before the launch and belongs to the
 * program (launch-window.ts): owned by the started process or one it started (the X server's record
 * of the client's pid, else _NET_WM_PID on this host, checked against the process tree in /proc);
 * else by an already running process of the same program that it handed over to before it exited
 * (single-instance programs such as Mousepad); for a launcher such as xdg-open, what appeared once it
 * exited; for a window whose owner is unknown, one whose WM_CLASS names the program, and at the end of
 * the wait any (marked unverified). A window of another program that appears meanwhile (a
 * notification, something else opening) is never reported as the program's: it is listed in
 * other_windows, and when nothing of the program's came the result says so. No window after
 * LAUNCH_WINDOW_WAIT_MS, or 3 s after the program exited cleanly (a command-line program), gives
 * window: null. Windows and macOS start programs
 * (`Start-Process`, `open -a`) but do not report the window yet (window: null).
 */

export class AppNotFoundError extends Error {
  override name = 'AppNotFoundError';
}

export interface DesktopEntry {
  /** Desktop file id, e.g. "org.xfce.mousepad" (without ".desktop"). */
  id: string;
  path: string;
  name: string;
  genericName: string;
  exec: string;
  /** The Icon key, '' when there is none: what %i passes as `--icon ICON`. */
  icon: string;
  terminal: boolean;
  /** Hidden or NoDisplay entries, and non-Application types, are not offered by name. */
  listed: boolean;
}

const VALUE_ESCAPES: Record<string, string> = { s: ' ', n: '\n', t: '\t', r: '\r', '\\': '\\' };

/**
 * A value's string escapes (\s \n \t \r \\), read before the Exec line's own quoting as the spec says:
 * Wine's entries write one backslash of a Windows path as four. Other escapes are left for the quoting.
 */
function unescapeValue(value: string): string {
  return value.replace(/\\([sntr\\])/g, (_, code: string) => VALUE_ESCAPES[code] ?? code);
}

/** Reads the [Desktop Entry] group of a .desktop file; null when it has no Exec. */
export function parseDesktopEntry(text: string, id: string, path: string): DesktopEntry | null {
  const fields = new Map<string, string>();
  let inEntry = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('[')) {
      inEntry = line === '[Desktop Entry]';
      continue;
    }
    if (!inEntry || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    if (!fields.has(key)) fields.set(key, unescapeValue(line.slice(eq + 1).trim()));
  }
  const exec = fields.get('Exec');
  if (!exec) return null;
  const yes = (key: string): boolean => fields.get(key) === 'true';
  return {
    id,
    path,
    name: fields.get('Name') ?? id,
    genericName: fields.get('GenericName') ?? '',
    exec,
    icon: fields.get('Icon') ?? '',
    terminal: yes('Terminal'),
    listed: !yes('Hidden') && !yes('NoDisplay') && (fields.get('Type') ?? 'Application') === 'Application',
  };
}

/** What the entry-specific field codes expand to: %c its Name, %k its file, %i `--icon` and its Icon. */
export type EntryFields = Pick<DesktopEntry, 'name' | 'path' | 'icon'>;

/**
 * Exec line -> argv (Desktop Entry spec: double quotes with backslash escapes, field codes). The first
 * file code (%f %F %u %U) gets `args`: as a word of its own it is replaced by all of them, inside a word
 * by the first one, the others following as words of their own; without args it is removed, and so is
 * any later file code. Without a file code the args are appended. %i as a word of its own becomes the
 * two words `--icon ICON` (none without an icon); %c and %k become the entry's name and file.
 */
export function execToArgv(exec: string, args: readonly string[] = [], entry?: EntryFields): string[] {
  // The spec's escaping inside quotes is a subset of the shell's, so splitArgs reads it right.
  const words = splitArgs(exec);
  const argv: string[] = [];
  let pending: readonly string[] | null = args;
  const takeFiles = (): readonly string[] => {
    const files = pending ?? [];
    pending = null;
    return files;
  };
  for (const word of words) {
    if (/^%[fFuU]$/.test(word)) {
      argv.push(...takeFiles());
      continue;
    }
    if (word === '%i') {
      if (entry?.icon) argv.push('--icon', entry.icon);
      continue;
    }
    let others: readonly string[] = [];
    const text = expandFieldCodes(word, entry, () => {
      const [first = '', ...rest] = takeFiles();
      others = rest;
      return first;
    });
    // A word that was nothing but field codes (a deprecated %d, %f without files) goes with them.
    if (text !== '' || !/^(%[a-zA-Z])+$/.test(word)) argv.push(text);
    argv.push(...others);
  }
  argv.push(...takeFiles());
  return argv.filter((word, i) => i > 0 || word !== '');
}

/**
 * One Exec word's field codes, read left to right in one pass, so the "%f" that "%%f" leaves is text:
 * %% is a percent sign, a file code is replaced by `file()`, %c and %k by the entry's name and file,
 * any other letter code is removed (the deprecated %d %D %n %N %v %m, and %i inside a word, which the
 * spec does not allow). A % before anything else is kept as it is.
 */
function expandFieldCodes(word: string, entry: EntryFields | undefined, file: () => string): string {
  let out = '';
  for (let i = 0; i < word.length; i++) {
    const char = word.charAt(i);
    const code = word.charAt(i + 1);
    if (char !== '%' || code === '') {
      out += char;
      continue;
    }
    i++;
    if (code === '%') out += '%';
    else if ('fFuU'.includes(code)) out += file();
    else if (code === 'c') out += entry?.name ?? '';
    else if (code === 'k') out += entry?.path ?? '';
    else if (!/[a-zA-Z]/.test(code)) out += char + code;
  }
  return out;
}

/** XDG application directories, most specific first. */
export function applicationDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const dataHome = env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  const dataDirs = (env.XDG_DATA_DIRS || '/usr/local/share:/usr/share').split(':').filter(Boolean);
  return [dataHome, ...dataDirs].map((dir) => join(dir, 'applications'));
}

/** Every desktop entry in `dirs`; a file id found in an earlier directory hides later ones. */
export async function loadDesktopEntries(dirs: readonly string[]): Promise<DesktopEntry[]> {
  const seen = new Set<string>();
  const entries: DesktopEntry[] = [];
  const visit = async (dir: string, prefix: string, depth: number): Promise<void> => {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return;
    }
    for (const name of names.sort()) {
      const path = join(dir, name);
      if (name.endsWith('.desktop')) {
        const id = prefix + name.slice(0, -'.desktop'.length);
        if (seen.has(id)) continue;
        seen.add(id);
        const text = await readFile(path, 'utf8').catch(() => '');
        const entry = parseDesktopEntry(text, id, path);
        if (entry) entries.push(entry);
      } else if (depth < 2 && (await stat(path).catch(() => null))?.isDirectory()) {
        await visit(path, `${prefix}${name}-`, depth + 1);
      }
    }
  };
  for (const dir of dirs) await visit(dir, '', 0);
  return entries;
}

/**
 * The entry `name` means, by id, id tail, Name, GenericName, then program name; entries that need a
 * terminal lose ties. Throws when several entries match equally well.
 */
export function findDesktopEntry(entries: readonly DesktopEntry[], name: string): DesktopEntry | null {
  const wanted = name.trim().toLowerCase().replace(/\.desktop$/, '');
  const ranks: ((e: DesktopEntry) => boolean)[] = [
    (e) => e.id.toLowerCase() === wanted,
    (e) => e.id.toLowerCase().split('.').pop() === wanted,
    (e) => e.listed && e.name.toLowerCase() === wanted,
    (e) => e.listed && e.genericName.toLowerCase() === wanted,
    (e) => e.listed && basename(splitArgsSafe(e.exec)[0] ?? '').toLowerCase() === wanted,
  ];
  for (const rank of ranks) {
    const matches = entries.filter(rank);
    const preferred = matches.filter((e) => !e.terminal);
    const pool = preferred.length > 0 ? preferred : matches;
    if (pool.length === 1) return pool[0] as DesktopEntry;
    if (pool.length > 1) {
      const names = pool.map((e) => `${e.name} (${e.id})`).join(', ');
      throw new AppNotFoundError(`several applications match "${name}": ${names}; name one of them`);
    }
  }
  return null;
}

function splitArgsSafe(line: string): string[] {
  try {
    return splitArgs(line);
  } catch {
    return [];
  }
}

/** Resolves what launch_app runs: argv with the program first; programs are looked for on env.PATH. */
export async function resolveLaunch(name: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const trimmed = name.trim();
  if (trimmed.includes('/')) {
    const path = isAbsolute(trimmed) ? trimmed : join(homedir(), trimmed.replace(/^~\//, ''));
    if (path.endsWith('.desktop')) {
      const text = await readFile(path, 'utf8').catch(() => {
        throw new AppNotFoundError(`cannot read ${path}`);
      });
      const entry = parseDesktopEntry(text, basename(path, '.desktop'), path);
      if (!entry) throw new AppNotFoundError(`${path} has no Exec line`);
      return withTerminal(entry, execToArgv(entry.exec, args, entry), env);
    }
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) throw new AppNotFoundError(`${path} does not exist`);
    return [path, ...args];
  }
  if (/^[\w.+-]+$/.test(trimmed) && (await hasCommand(trimmed, env.PATH))) return [trimmed, ...args];

  const entries = await loadDesktopEntries(applicationDirs(env));
  const entry = findDesktopEntry(entries, trimmed);
  if (entry) return withTerminal(entry, execToArgv(entry.exec, args, entry), env);
  const known = entries
    .filter((e) => e.listed)
    .map((e) => e.name)
    .slice(0, 30)
    .join(', ');
  throw new AppNotFoundError(
    `no program or application named "${name}"; give a program on PATH or one of the installed applications: ${known}`,
  );
}

async function withTerminal(entry: DesktopEntry, argv: string[], env: NodeJS.ProcessEnv): Promise<string[]> {
  if (!entry.terminal) return argv;
  const terminal = (await hasCommand('x-terminal-emulator', env.PATH)) ? 'x-terminal-emulator' : 'xterm';
  return [terminal, '-e', ...argv];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** After the started process exits with 0, how long a running instance gets to show the window. */
const HANDOVER_WAIT_MS = 3_000;

export interface LaunchOptions {
  /** How long to wait for a new window (default LAUNCH_WINDOW_WAIT_MS). */
  windowWaitMs?: number;
  signal?: AbortSignal;
}

function publicWindow(window: DesktopWindow): WindowInfo {
  return { id: window.id, title: window.title, app: window.app, bounds: window.bounds };
}

/**
 * Starts a detached process in the home folder; resolves once it has started (or rejects when it could
 * not). spawn looks the program up on env.PATH. PWD says the folder it starts in: the device client's
 * own PWD (the folder the host started it in) would tell a program that reads $PWD it is elsewhere.
 */
function startDetached(
  argv: readonly string[],
  env: Record<string, string>,
): Promise<{ pid: number | null; exited: () => number | null | undefined }> {
  return new Promise((resolve, reject) => {
    const [file, ...rest] = argv;
    if (!file) return reject(new AppNotFoundError('nothing to launch'));
    const cwd = homedir();
    const child = spawn(file, rest, { detached: true, stdio: 'ignore', env: { ...env, PWD: cwd }, cwd });
    let exitCode: number | null | undefined;
    child.once('exit', (code, signal) => {
      exitCode = code ?? (signal ? -1 : null);
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      reject(error.code === 'ENOENT' ? new AppNotFoundError(`${file} is not installed (not found on PATH)`) : error);
    });
    child.once('spawn', () => {
      child.unref();
      resolve({ pid: child.pid ?? null, exited: () => exitCode });
    });
  });
}

/**
 * Reads, once per window, what ties it to the launch: its owner's pids, their names, its class. A read
 * that failed (the X server busy, a reply cut short) is tried again at the next look: kept, it would
 * leave the window out of the launch for good.
 */
export function ownerFactsReader(launchedPid: number | null): (id: string) => Promise<WindowFacts | null> {
  const cache = new Map<string, Promise<WindowFacts | null>>();
  const host = hostname();
  const read = async (id: string): Promise<WindowFacts | null> => {
    const owner = await windowOwner(id);
    if (!owner) return null;
    const pids = localPids(owner, host);
    const [trees, stats] = await Promise.all([
      Promise.all(pids.map((pid) => (launchedPid === null ? false : inProcessTree(pid, launchedPid)))),
      Promise.all(pids.map(readProcStat)),
    ]);
    return { pids, inLaunch: trees.some(Boolean), wmClass: owner.wmClass, commands: stats.map((stat) => stat?.comm ?? '') };
  };
  return (id) => {
    let facts = cache.get(id);
    if (!facts) {
      const reading = read(id);
      facts = reading;
      cache.set(id, reading);
      reading.catch(() => {
        if (cache.get(id) === reading) cache.delete(id);
      });
    }
    return facts;
  };
}

async function launchX11(name: string, args: readonly string[], options: LaunchOptions): Promise<LaunchResult> {
  // Counted from the call: the first launch may wait seconds for the login probe, and launch_app's
  // tool timeout leaves no room for that on top of the whole window wait.
  const calledAt = Date.now();
  const deadline = calledAt + (options.windowWaitMs ?? LAUNCH_WINDOW_WAIT_MS);
  const env = await loginChildEnv(process.env, options.signal);
  const argv = await resolveLaunch(name, args, env);
  const before = new Set((await windowIds()).ids);
  // Looking up a menu name reads every desktop entry: a Stop meanwhile must not start the program after all.
  throwIfAborted(options.signal);
  const started = await startDetached(argv, env);
  const names = programNames(name, argv);
  const launcher = isLauncher(argv);
  const factsOf = ownerFactsReader(started.pid);
  const program = argv[0] ?? name;
  let exitedAt: number | undefined;
  const seenAt = new Map<string, number>();
  for (;;) {
    if (options.signal?.aborted) {
      // The program runs on: saying only "cancelled" would invite a second launch.
      throw new Error(`cancelled while waiting for its window; ${argv[0]} was started (pid ${started.pid ?? 'unknown'}) and keeps running`);
    }
    // Read first, so that a window first seen in this look counts as seen after an exit seen in it.
    const code = started.exited();
    if (code !== undefined) exitedAt ??= Date.now();
    const fresh = (await windowIds()).ids.filter((id) => !before.has(id));
    const candidates: LaunchCandidate[] = [];
    for (const id of fresh) {
      const window = await getWindow(id).catch(() => null);
      if (!window || window.minimized) continue;
      const facts = await factsOf(id).catch(() => null);
      if (!facts) continue;
      if (!seenAt.has(id)) seenAt.set(id, Date.now());
      candidates.push({ window: publicWindow(window), tie: tieOf(facts, names), pid: facts.pids[0] ?? null, seenAt: seenAt.get(id) ?? Date.now() });
    }
    // A program that exited cleanly either handed over to a running instance (whose window shows up
    // within a moment) or has no window at all: do not wait the full time for it.
    const waitOver = Date.now() > deadline || (code === 0 && exitedAt !== undefined && Date.now() - exitedAt > HANDOVER_WAIT_MS);
    const decision = chooseWindow(candidates, { exitCode: code, waitOver, exitedAt }, launcher);
    if (decision.kind === 'wait' && code !== undefined && code !== 0) {
      const others = candidates.length > 0 ? `; the new windows meanwhile are not its own: ${candidates.map((c) => `"${c.window.title}"`).join(', ')}` : '';
      throw new Error(`${argv[0]} exited with code ${code} before it showed a window${others}`);
    }
    if (decision.kind !== 'wait') {
      const note = launchNote(program, started.pid, decision, Date.now() - calledAt);
      return {
        pid: started.pid,
        command: argv,
        window: decision.kind === 'window' ? decision.chosen.window : null,
        window_match: decision.kind === 'window' ? decision.match : null,
        other_windows: decision.others.map((c) => c.window),
        ...(note ? { note } : {}),
      };
    }
    await sleep(100);
  }
}

/**
 * A PowerShell single-quoted string. PowerShell ends such a string at any of four quote characters,
 * not only the ASCII one (’ ‘ ‚ ‛ too), so each is doubled: one left alone would let an argument close
 * the string and run what follows.
 */
export function powerShellQuote(text: string): string {
  return `'${text.replace(/['\u2018\u2019\u201A\u201B]/g, (quote) => quote + quote)}'`;
}

/** launch_app on this platform. */
export async function launchApp(name: string, args: readonly string[], options: LaunchOptions = {}): Promise<LaunchResult> {
  if (process.platform === 'linux' && process.env.DISPLAY) return launchX11(name, args, options);
  if (process.platform === 'darwin') {
    const env = await loginChildEnv(process.env, options.signal);
    const argv = (await hasCommand(name, env.PATH)) ? [name, ...args] : ['open', '-n', '-a', name, ...(args.length ? ['--args', ...args] : [])];
    throwIfAborted(options.signal);
    const started = await startDetached(argv, env);
    return { pid: started.pid, command: argv, window: null };
  }
  if (process.platform === 'win32') {
    const quote = powerShellQuote;
    const list = args.length ? ` -ArgumentList @(${args.map(quote).join(',')})` : '';
    const argv = ['powershell.exe', '-NoProfile', '-NonInteractive', '-Command', `Start-Process -FilePath ${quote(name)}${list}`];
    const started = await startDetached(argv, childEnv());
    return { pid: started.pid, command: argv, window: null };
  }
  throw new Error(`launching applications is not supported on this platform (${process.platform})`);
}
