import { basename } from 'node:path';
import type { LaunchMatch, WindowInfo } from './contract';
import type { WindowOwnerInfo } from './windows';

/**
 * Which of the windows that appeared during launch_app is the launched program's (pure; apps.ts reads
 * the facts from the X server and /proc). A new window is not the program's just because it is new: a
 * notification, or another program opening at that moment, would have the agent act on the wrong
 * window. So each new window is tied to the launch by its owner process first, its class second:
 *
 * - launched_process: its owner is the started process or runs in its process tree;
 * - same_program: its owner is another process of the same program (a single-instance program, such
 *   as Mousepad or Firefox, that the started process handed the request to before it exited);
 * - handed_over: the started program is a launcher (xdg-open, gio, ...) that exited cleanly, and the
 *   window appeared after that (or just before): what it opened, as far as timing can tell;
 * - window_class: no owner process is known (no _NET_WM_PID, no X-Resource pid), and its WM_CLASS
 *   names the program;
 * - unverified: no owner process is known and the class does not name the program: taken only when
 *   the wait is over and nothing better came, and the result says so;
 * - other_program: its owner is a process of some other program: never taken, but for a launcher's
 *   hand-over.
 */

export type WindowTie = LaunchMatch | 'other_program';

/** Programs that open something in another program and exit: the window they cause is not theirs. */
const LAUNCHERS = new Set(['xdg-open', 'gio', 'gtk-launch', 'gvfs-open', 'gnome-open', 'kde-open', 'kde-open5', 'kioclient', 'kioclient5', 'exo-open', 'mimeopen', 'see', 'sensible-browser', 'x-www-browser']);

export interface WindowFacts {
  /** The owner's pids on this machine (the X server's record and the window's own claim), none when unknown. */
  pids: number[];
  /** Whether one of `pids` is the launched process or in its process tree. */
  inLaunch: boolean;
  /** WM_CLASS instance and class. */
  wmClass: string[];
  /** The names of the owner processes (/proc/<pid>/comm). */
  commands: string[];
}

export interface LaunchCandidate {
  window: WindowInfo;
  tie: WindowTie;
  /** The owner process on this machine, when known. */
  pid: number | null;
  /** When the window was first seen (ms, Date.now()). */
  seenAt: number;
}

export type LaunchDecision =
  | { kind: 'window'; chosen: LaunchCandidate; match: LaunchMatch; others: LaunchCandidate[] }
  | { kind: 'wait' }
  | { kind: 'none'; others: LaunchCandidate[] };

export interface LaunchState {
  /** The started process's exit code: undefined while it runs, null when a signal ended it. */
  exitCode: number | null | undefined;
  /** The wait is over (its deadline, or the hand-over time after a clean exit). */
  waitOver: boolean;
  /** When the started process was seen to have exited (ms, Date.now()); undefined while it runs. */
  exitedAt?: number;
}

/**
 * How long before a launcher's exit was seen a window may have been seen and still be what it handed
 * over to: a look (100 ms apart) may see the window just before the exit, as a launcher may wait for
 * the program's answer. A window seen earlier than that came before the hand-over.
 */
export const HANDED_OVER_LEAD_MS = 250;

/** The program word of argv: `env A=b prog` runs prog. */
function programWord(argv: readonly string[]): string {
  let i = 0;
  if (basename(argv[0] ?? '') === 'env') {
    i = 1;
    while (i < argv.length && (/^\w+=/.test(argv[i] ?? '') || (argv[i] ?? '').startsWith('-'))) i++;
  }
  return argv[i] ?? '';
}

/** The launched program's names, lower case, that a window's class or owner process may carry. */
export function programNames(name: string, argv: readonly string[]): string[] {
  const names = new Set<string>();
  const add = (word: string): void => {
    const base = basename(word.trim()).toLowerCase().replace(/\.desktop$/, '');
    if (!base) return;
    names.add(base);
    // A desktop file id's last part ("org.xfce.mousepad"), a script's stem ("tool.py"); not the id's
    // domain ("org") nor the extension ("py"), which other programs' classes share.
    const tail = base.split('.').filter(Boolean);
    if (tail.length > 2) names.add(tail[tail.length - 1] as string);
    else if (tail.length === 2) names.add(tail[0] as string);
  };
  add(name);
  add(programWord(argv));
  return [...names];
}

/** Whether the started program is a launcher that opens things in other programs. */
export function isLauncher(argv: readonly string[]): boolean {
  return LAUNCHERS.has(basename(programWord(argv)).toLowerCase());
}

function sameHost(machine: string, hostname: string): boolean {
  const a = machine.trim().toLowerCase();
  const b = hostname.trim().toLowerCase();
  return a === '' || a === 'localhost' || a === b || a.split('.')[0] === b.split('.')[0];
}

/**
 * The window owner's pids that mean something here: the X server's record of the client, and the
 * window's _NET_WM_PID unless WM_CLIENT_MACHINE says it runs on another host.
 */
export function localPids(owner: WindowOwnerInfo, hostname: string): number[] {
  const pids: number[] = [];
  if (owner.clientPid !== null) pids.push(owner.clientPid);
  if (owner.netWmPid !== null && owner.netWmPid > 0 && sameHost(owner.clientMachine, hostname) && !pids.includes(owner.netWmPid)) {
    pids.push(owner.netWmPid);
  }
  return pids;
}

/** `word` is `name`, or `name` and a part after a separator ("libreoffice-writer" for "libreoffice"). */
function namedBy(word: string, name: string): boolean {
  return word === name || (word.startsWith(name) && /^[-._ ]/.test(word.slice(name.length)));
}

/**
 * Whether a window's class or owner process is named like the program: the same name, or the name and
 * a part ("libreoffice-writer", "gnome-terminal-server"); process names are cut to 15 characters.
 */
export function namesProgram(facts: Pick<WindowFacts, 'wmClass' | 'commands'>, names: readonly string[]): boolean {
  const classes = facts.wmClass.map((c) => c.toLowerCase());
  const commands = facts.commands.map((c) => c.toLowerCase()).filter(Boolean);
  return names.some(
    (name) => classes.some((c) => namedBy(c, name)) || commands.some((c) => namedBy(c, name.slice(0, 15)) || (c.length === 15 && name.startsWith(c))),
  );
}

/** How a new window is tied to the launch. */
export function tieOf(facts: WindowFacts, names: readonly string[]): WindowTie {
  if (facts.pids.length > 0 && facts.inLaunch) return 'launched_process';
  if (namesProgram(facts, names)) return facts.pids.length > 0 ? 'same_program' : 'window_class';
  return facts.pids.length > 0 ? 'other_program' : 'unverified';
}

/**
 * What to do after one look at the new windows (topmost first): take one, wait on, or give up with
 * none of the program's. `launcher`: the started program hands things to other programs (isLauncher).
 */
export function chooseWindow(candidates: readonly LaunchCandidate[], state: LaunchState, launcher = false): LaunchDecision {
  const take = (chosen: LaunchCandidate | undefined, match?: LaunchMatch): LaunchDecision | null =>
    chosen ? { kind: 'window', chosen, match: match ?? (chosen.tie as LaunchMatch), others: candidates.filter((c) => c !== chosen) } : null;
  const first = (tie: WindowTie): LaunchCandidate | undefined => candidates.find((c) => c.tie === tie);
  const exited = state.exitCode !== undefined;
  const decided =
    take(first('launched_process')) ??
    take(first('window_class')) ??
    (exited ? take(first('same_program')) : null) ??
    (launcher && state.exitCode === 0 ? take(handedOver(candidates, state.exitedAt), 'handed_over') : null) ??
    (state.waitOver ? (take(first('same_program')) ?? take(first('unverified'))) : null);
  if (decided) return decided;
  return state.waitOver ? { kind: 'none', others: [...candidates] } : { kind: 'wait' };
}

/** A launcher's hand-over: the first other program's window that appeared once it was (about to be) gone. */
function handedOver(candidates: readonly LaunchCandidate[], exitedAt: number | undefined): LaunchCandidate | undefined {
  if (exitedAt === undefined) return undefined;
  return candidates.find((c) => c.tie === 'other_program' && c.seenAt >= exitedAt - HANDED_OVER_LEAD_MS);
}

function describeWindow(candidate: LaunchCandidate): string {
  const owner = [candidate.window.app, candidate.pid !== null ? `pid ${candidate.pid}` : ''].filter(Boolean).join(', ');
  return `"${candidate.window.title}"${owner ? ` (${owner})` : ''}`;
}

/**
 * What the result says beyond "its window": how a window not of the started process itself was told
 * to be the program's, or why there is none though windows appeared. Undefined when nothing needs saying.
 */
export function launchNote(program: string, pid: number | null, decision: LaunchDecision, waitedMs: number): string | undefined {
  const started = `${program} (pid ${pid ?? 'unknown'})`;
  const seconds = `${Math.round(waitedMs / 100) / 10} s`;
  if (decision.kind === 'none') {
    if (decision.others.length === 0) return undefined;
    const which = decision.others.length === 1 ? 'a window of another program appeared' : 'windows of other programs appeared';
    return `started ${started} but no window of it appeared within ${seconds}; ${which}: ${decision.others.map(describeWindow).join(', ')}`;
  }
  if (decision.kind === 'wait') return undefined;
  const { chosen, match } = decision;
  switch (match) {
    case 'launched_process':
      return undefined;
    case 'same_program':
      return `the window belongs to an already running ${program} (pid ${chosen.pid ?? 'unknown'}), which ${started} handed over to`;
    case 'handed_over':
      return `${started} exited after handing over; the window, of ${chosen.window.app || 'another program'}, is the first new one after that, so most likely what it opened`;
    case 'window_class':
      return `the window does not say which process owns it; its class (${chosen.window.app}) names ${program}`;
    case 'unverified':
      return `no window that could be told to be ${program}'s appeared within ${seconds}; this new window does not say which process owns it, so it may belong to another program`;
  }
}
