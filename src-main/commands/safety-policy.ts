import { homedir } from 'node:os';
import { compilePattern } from '../common/patterns';
import { oneLineHead } from '../common/text-head';
import { isToolName } from '../device/contract';
import { splitArgs } from '../device/split-args';
import type { SafetyConfig } from '../host/config';
import { wholeTreeCommand } from './whole-tree';
import { windowsTreeCommand } from './windows-tree';

/**
 * The confirmation policy, applied in the trusted command layer to every command
 * whatever status the model gave. Pure: settings in, a decision with reasons in words out.
 *
 * Modes (settings `safety.confirmation`):
 * - `always`: every action waits for approval (tools that only look, such as screenshot, do not).
 * - `sensitive` (default): an action waits when the model said CONFIRM or a local rule matches:
 *   - while `confirmAllShellCommands` is on (the default), anything that runs a shell command: any
 *     `execute_command`, and input to a terminal (`targetApp`, see isTerminalApp) that runs the line:
 *     type_text whose text has a line break or another control character, a hotkey that presses Enter
 *     (enter, return, kp_enter, ctrl+j, ctrl+m, ctrl+o), and a paste (ctrl+shift+v, shift+insert, ...,
 *     or a middle click), whose clipboard the policy cannot see;
 *   - launch_app that can run a command rather than open an application, whatever
 *     `confirmAllShellCommands` says (launching `bash -c` is a shell command by another name): a shell
 *     or interpreter (bash, python, ...), bare or not; a command wrapper (setsid, nohup, timeout, env,
 *     flatpak, ...) or a terminal emulator (xterm, kitty, "Xfce Terminal", ...) given any arguments; any
 *     argument naming a shell, interpreter or wrapper; any option (an argument starting with - or +:
 *     `--renderer-cmd-prefix`, `-e`, `+!cmd` make ordinary programs run code); and a name that is a path,
 *     which can be any executable; a program that acts at once (shutdown, reboot, xkill). While
 *     `confirmAllShellCommands` is on, a program given any arguments waits too (`rm notes.txt` is a
 *     command line); an application opened bare does not;
 *   - while `confirmAllShellCommands` is on, the chords that open a run dialog or a terminal (alt+f2,
 *     win+r, alt+space, ctrl+alt+t), and input that runs a line (as to a terminal) after an earlier
 *     action of the same sequence may have moved the keyboard (`keyboardTargetUnknown`);
 *   - text that would run as a command and matches `sensitiveCommandPatterns`: the command of
 *     execute_command, the command line of launch_app, text typed with type_text (typed into a
 *     terminal, it runs), and every string in an external tool's arguments, nested ones too (up to
 *     MAX_ARG_DEPTH levels; deeper arguments cannot be checked, so the call waits);
 *   - click, type_text or hotkey on a control whose ControlText contains one of
 *     `sensitiveControlWords` (whole words, any case: "Delete" matches "delete all" but not "Undeleted");
 *   - hotkeys that close an application or window (alt+f4, ctrl+w, ctrl+q, cmd+q, ...) or delete
 *     without the bin (shift+delete); a click or key press on a control named Quit or Exit;
 *   - control text is read as shown: full-width letters folded, invisible characters (soft hyphens,
 *     zero-width spaces) dropped;
 *   - a tool of an external MCP server the user has not marked trusted.
 * - `never`: nothing waits.
 * In every mode, text that would run and removes a whole tree (whole-tree.ts: the root, a system folder
 * or home; rm -r, find -delete, rsync --delete, mv, chmod/chown/chgrp/setfacl/chattr -R; on Windows
 * also windows-tree.ts: Remove-Item -Recurse, rd /s, del /s, takeown /r, icacls /t of a drive root, a
 * system folder or home), or matches
 * `denyCommandPatterns`, is denied: it never runs, and no approval can change that. The patterns are a
 * guard against accidents, not a sandbox: a determined caller can spell a command so no pattern sees
 * it, which is why shell commands need approval by default.
 *
 * Patterns are compiled once, when the policy is built; an invalid one is a SafetyConfigError naming the
 * setting, its index and the pattern.
 */

export type SafetyDecision = 'allow' | 'confirm' | 'deny';

export interface SafetyInput {
  /** Device tool ("click") or external tool ("<server>.<tool>"). */
  toolName: string;
  args: Record<string, unknown>;
  /** The model's ControlText for this action ('' or undefined when none). */
  controlText?: string | null;
  /** The model's Status for this step or action, e.g. "CONTINUE" or "CONFIRM". */
  modelStatus?: string | null;
  /** Device tools and tools of external servers marked trusted: true. */
  trustedTool: boolean;
  /**
   * The application of the window the action goes to, e.g. "xterm", "gnome-terminal-server", "Konsole"
   * ('' or null when unknown). In a terminal, typing a line and pressing Enter run it.
   */
  targetApp?: string | null;
  /**
   * An earlier action of the same sequence may have given another window the keyboard (it opened an
   * application, focused a window, or opened a run dialog), or the window has no known application:
   * where this input goes is not known, so it is judged as if it went to a terminal.
   */
  keyboardTargetUnknown?: boolean;
}

export interface SafetyVerdict {
  decision: SafetyDecision;
  /** Why, in words, for the confirmation prompt and the audit table; empty when nothing matched. */
  reasons: string[];
}

export class SafetyConfigError extends Error {
  override name = 'SafetyConfigError';
}

/** Device tools that only look: never held, even in `always` mode (unless the model asks). */
export const READ_ONLY_TOOLS: ReadonlySet<string> = new Set(['screenshot', 'list_windows', 'list_displays', 'pointer']);

/** Programs that run whatever they are given: launching one is a shell command. */
const SHELLS = new Set([
  'sh', 'bash', 'dash', 'zsh', 'ksh', 'fish', 'csh', 'tcsh', 'busybox', 'env', 'sudo', 'doas', 'su', 'pkexec', 'xargs',
  'python', 'perl', 'ruby', 'node', 'nodejs', 'deno', 'bun', 'php', 'lua', 'tclsh', 'osascript',
  'powershell', 'pwsh', 'cmd', 'wscript', 'cscript', 'mshta', 'rundll32',
  'awk', 'gawk', 'mawk', 'nawk', 'sed', 'expect', 'wish', 'ipython', 'irb', 'jshell', 'julia', 'rscript', 'guile',
  'racket', 'ghci', 'runghc', 'erl', 'escript', 'elixir', 'iex', 'groovy', 'gjs', 'ts-node',
]);
/** Programs that run a command given in their arguments (`setsid bash ...`); bare they do nothing harmful. */
const WRAPPERS = new Set([
  'setsid', 'nohup', 'timeout', 'nice', 'ionice', 'stdbuf', 'chrt', 'taskset', 'env', 'sudo', 'doas', 'pkexec', 'su',
  'runuser', 'setpriv', 'sg', 'newgrp', 'xargs', 'parallel', 'flatpak', 'flatpak-spawn', 'snap', 'dbus-launch',
  'dbus-run-session', 'systemd-run', 'script', 'watch', 'time', 'strace', 'ltrace', 'gdb', 'lldb', 'valgrind',
  'x-terminal-emulator', 'xdg-terminal-exec', 'screen', 'tmux', 'byobu', 'dtach', 'chroot', 'unshare', 'nsenter',
  'firejail', 'bwrap', 'fakeroot', 'proot', 'numactl', 'cpulimit', 'torsocks', 'proxychains', 'xvfb-run', 'ssh',
  'npx', 'npm', 'pnpm', 'yarn', 'bunx', 'uvx', 'pipx', 'java', 'dotnet', 'mono', 'wine', 'open', 'start',
]);
/** Terminal emulators: given arguments they run them as a command (`kitty sh -c`, `xterm -e`). */
const TERMINALS = new Set([
  'xterm', 'uxterm', 'rxvt', 'urxvt', 'urxvtc', 'rxvt-unicode', 'gnome-terminal', 'konsole', 'xfce4-terminal',
  'lxterminal', 'mate-terminal', 'qterminal', 'terminator', 'tilix', 'kitty', 'alacritty', 'foot', 'footclient',
  'wezterm', 'st', 'st-256color', 'terminology', 'sakura', 'guake', 'tilda', 'yakuake', 'cool-retro-term', 'termite',
  'terminus', 'tabby', 'hyper', 'ghostty', 'contour', 'zutty', 'mintty', 'kgx', 'console', 'ptyxis', 'blackbox',
]);
/** Names that say terminal ("Xfce Terminal", "cool-retro-term", "mlterm"): menu names reach the device unresolved. */
const TERMINAL_WORD = /terminal|term(?![a-z])/;
/** Window applications besides terminal emulators where typed lines run: consoles of shells. */
const CONSOLE_APPS = new Set([
  'conhost', 'openconsole', 'cmd', 'powershell', 'pwsh', 'sh', 'bash', 'dash', 'zsh', 'ksh', 'fish', 'csh', 'tcsh',
]);

/** Keys that send a line in a terminal, with any other modifiers: ctrl+j and ctrl+m are Enter, ctrl+o is readline's operate-and-get-next. */
const TERMINAL_ENTER: { key: string; mods: string[] }[] = [
  { key: 'enter', mods: [] },
  { key: 'return', mods: [] },
  { key: 'kp_enter', mods: [] },
  { key: 'kpenter', mods: [] },
  { key: 'numpadenter', mods: [] },
  { key: 'j', mods: ['ctrl'] },
  { key: 'm', mods: ['ctrl'] },
  { key: 'o', mods: ['ctrl'] },
];
/** Key chords that paste in a terminal; without bracketed paste a pasted line break runs the line. */
const TERMINAL_PASTE: { key: string; mods: string[] }[] = [
  { key: 'v', mods: ['ctrl', 'shift'] },
  { key: 'v', mods: ['ctrl'] },
  { key: 'v', mods: ['meta'] },
  { key: 'insert', mods: ['shift'] },
];

/** Strings in external tools' arguments are read this many levels deep (a top-level one is level 1); deeper ones make the call wait. */
export const MAX_ARG_DEPTH = 8;

const MODIFIER_ALIASES: Record<string, string> = {
  control: 'ctrl',
  ctl: 'ctrl',
  lctrl: 'ctrl',
  rctrl: 'ctrl',
  option: 'alt',
  altgr: 'alt',
  cmd: 'meta',
  command: 'meta',
  win: 'meta',
  windows: 'meta',
  super: 'meta',
  del: 'delete',
};

/** Key chords that close an application or window, or delete for good: [key, modifiers it needs]. */
const CHORD_RULES: { key: string; mods: string[]; reason: string }[] = [
  { key: 'f4', mods: ['alt'], reason: 'closes an application' },
  { key: 'f4', mods: ['ctrl'], reason: 'closes an application' },
  { key: 'q', mods: ['ctrl'], reason: 'closes an application' },
  { key: 'q', mods: ['meta'], reason: 'closes an application' },
  { key: 'w', mods: ['ctrl'], reason: 'closes an application' },
  { key: 'w', mods: ['meta'], reason: 'closes an application' },
  { key: 'x', mods: ['ctrl', 'alt'], reason: 'closes an application' },
  { key: 'delete', mods: ['shift'], reason: 'deletes permanently' },
  { key: 'backspace', mods: ['meta'], reason: 'deletes permanently' },
];
const MODIFIERS = new Set(['ctrl', 'alt', 'shift', 'meta']);
/** Chords that open a place where a typed line runs as a command: run dialogs and terminals. */
const COMMAND_OPENERS: { key: string; mods: string[]; reason: string }[] = [
  { key: 'f2', mods: ['alt'], reason: 'opens a run-a-command dialog' },
  { key: 'r', mods: ['meta'], reason: 'opens a run-a-command dialog' },
  { key: 'space', mods: ['alt'], reason: 'opens a run-a-command dialog' },
  { key: 't', mods: ['ctrl', 'alt'], reason: 'opens a terminal' },
];

const INPUT_ON_CONTROL = new Set(['click', 'type_text', 'hotkey']);
/** Controls that close an application when pressed (File > Quit, an Exit button), like the chords above. */
const CLOSING_CONTROLS = ['Quit', 'Exit'].map((word) => ({ word, regex: new RegExp(`(?<![\\p{L}\\p{N}_])${word}(?![\\p{L}\\p{N}_])`, 'iu') }));
const PRESSES_CONTROL = new Set(['click', 'hotkey']);

interface CompiledPattern {
  source: string;
  regex: RegExp;
}

function compile(patterns: readonly string[], setting: string): CompiledPattern[] {
  return patterns.map((source, index) => {
    try {
      return { source, regex: compilePattern(source) };
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new SafetyConfigError(`safety.${setting}[${index}] is not a valid regular expression: ${JSON.stringify(source)} (${why})`);
    }
  });
}

/**
 * A label as it reads: compatibility forms folded (full-width letters) and invisible format characters
 * dropped (soft hyphens, zero-width spaces and joiners, direction marks), so "Sub\u00admit" is "Submit".
 */
function asRead(text: string): string {
  return text.normalize('NFKC').replace(/\p{Cf}/gu, '');
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Quoted for a reason line: single quotes, at most 60 characters, one line. */
function quote(text: string): string {
  return `'${oneLineHead(text, 60)}'`;
}

export function normaliseKey(name: string): string {
  const lower = name.trim().toLowerCase();
  return MODIFIER_ALIASES[lower] ?? lower;
}

/** Shell-ish text the action would run, if any: what the command patterns are checked against. */
function runnableTexts(toolName: string, args: Record<string, unknown>, trustedDeviceTool: boolean): string[] {
  const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
  switch (toolName) {
    case 'execute_command':
      return [str(args.command) ?? ''];
    case 'type_text':
      return [str(args.text) ?? ''];
    case 'launch_app': {
      const rest = Array.isArray(args.args) ? args.args.map((arg) => shellWord(String(arg))).join(' ') : (str(args.args) ?? '');
      return [`${str(args.name) ?? ''} ${rest}`.trim()];
    }
    default:
      if (trustedDeviceTool) return [];
      // External tools: any string argument might be a command for all we know, however deep.
      return collectStrings(args, 0).strings;
  }
}

/**
 * One of launch_app's listed arguments written as a shell would need it to reach the program as that one
 * word: bare when it is plain (so patterns match it as typed), quoted otherwise. Joined bare, the list
 * ['-rf', "'", '/usr', "'"] would read as one word " /usr " while rm is handed /usr.
 */
function shellWord(arg: string): string {
  return /^[\w@%+=:,./~-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** Every string in `value`, nested objects and arrays too, down to MAX_ARG_DEPTH; complete: nothing was deeper. */
function collectStrings(value: unknown, depth: number): { strings: string[]; complete: boolean } {
  if (typeof value === 'string') return { strings: [value], complete: true };
  if (value === null || typeof value !== 'object') return { strings: [], complete: true };
  if (depth >= MAX_ARG_DEPTH) return { strings: [], complete: false };
  const strings: string[] = [];
  let complete = true;
  for (const child of Array.isArray(value) ? value : Object.values(value)) {
    const found = collectStrings(child, depth + 1);
    strings.push(...found.strings);
    complete &&= found.complete;
  }
  return { strings, complete };
}

/** "/usr/bin/python3.11" -> "python", "PowerShell.exe" -> "powershell". */
export function programName(path: string): string {
  const base = (path.trim().split(/[\\/]/).pop() ?? '').toLowerCase();
  const bare = base.replace(/\.(exe|cmd|bat|com)$/, '');
  return bare.replace(/[\d.]+$/, '') || bare;
}

/** A terminal emulator by program, menu name or window class ("kitty", "Xfce Terminal", "org.wezfurlong.wezterm"). */
function isTerminal(name: string): boolean {
  const program = programName(name);
  const words = program.split(/[\s._]+/).filter((word) => word !== '');
  return TERMINAL_WORD.test(program) || [program, words.join(''), ...words].some((word) => TERMINALS.has(word));
}

/** Whether a window of application `app` is a terminal or console, where a typed line runs as a command. */
export function isTerminalApp(app: string): boolean {
  return app.trim() !== '' && (isTerminal(app) || CONSOLE_APPS.has(programName(app)));
}

/** launch_app's arguments as the device reads them; unbalanced quotes, which the device refuses, read plainly. */
function launchArgs(args: unknown): string[] {
  if (Array.isArray(args)) return args.map(String);
  if (typeof args !== 'string') return [];
  try {
    return splitArgs(args);
  } catch {
    return args.split(/\s+/).filter((word) => word !== '');
  }
}

/** Programs that act at once without any argument: launched, they shut down, reboot or kill. */
const ACTS_WITHOUT_ARGUMENTS = new Set(['shutdown', 'reboot', 'poweroff', 'halt', 'init', 'telinit', 'xkill', 'logout', 'gnome-session-quit', 'shutdown.exe', 'logoff']);

/**
 * Why launching `name` with `argv` needs approval, or null: when it can run a command rather than open
 * an application. With `confirmCommands` (shell commands need approval), any arguments do: a program
 * given arguments is a command line (`rm notes.txt`, `crontab file`, `schtasks /create ...`), and the
 * policy cannot tell a viewer opening a file from a tool acting on it.
 */
function launchReason(name: string, argv: readonly string[], confirmCommands: boolean): string | null {
  const program = programName(name);
  // A URL operand is not run as a program, whatever its last segment ("https://example.com/watch").
  const named = argv.filter((arg) => !arg.includes('://')).map(programName);
  const shell = SHELLS.has(program) ? program : named.find((p) => SHELLS.has(p));
  if (shell) return `rule: launches a shell or interpreter (${shell})`;
  if (/[\\/]/.test(name)) return 'rule: runs an executable by path';
  if (ACTS_WITHOUT_ARGUMENTS.has(program)) return `rule: launches a program that acts at once (${program})`;
  if (argv.length === 0) return null;
  const wrapper = WRAPPERS.has(program) ? program : named.find((p) => WRAPPERS.has(p));
  if (wrapper) return `rule: launches a command wrapper (${wrapper})`;
  if (isTerminal(name)) return `rule: launches a terminal with a command (${program})`;
  // Options make ordinary programs run code: --renderer-cmd-prefix, -e, --command, vim's +!cmd.
  const option = argv.find((arg) => /^[-+]/.test(arg));
  if (option !== undefined) return `rule: launches a program with options (${quote(option)})`;
  if (confirmCommands) return `rule: launches a program with arguments (${quote(argv.join(' '))})`;
  return null;
}

/** Whether the normalised keys press `key` with at least `mods` held. */
function pressesChord(keys: readonly string[], chord: { key: string; mods: readonly string[] }): boolean {
  const held = keys.filter((k) => MODIFIERS.has(k));
  return keys.some((k) => !MODIFIERS.has(k) && k === chord.key) && chord.mods.every((m) => held.includes(m));
}

/** A line break, or another control character a terminal reads as a key (ctrl+o runs the line too); tab does not. */
function hasControlCharacter(text: string): boolean {
  for (const char of text) {
    const code = char.charCodeAt(0);
    if ((code < 0x20 && char !== '\t') || code === 0x7f) return true;
  }
  return false;
}

/** A hotkey's keys, normalised (control -> ctrl, cmd -> meta); null for any other tool. */
function hotkeyKeys(toolName: string, args: Record<string, unknown>): string[] | null {
  if (toolName !== 'hotkey' || !Array.isArray(args.keys)) return null;
  return args.keys.filter((k): k is string => typeof k === 'string').map(normaliseKey);
}

/** Why this input to a terminal needs approval, or null: it sends a line, which runs, or pastes, which may. */
function terminalReason(toolName: string, args: Record<string, unknown>, keys: readonly string[] | null, app: string): string | null {
  const runs = `rule: runs a command in a terminal (${app})`;
  const pastes = `rule: pastes into a terminal (${app}), which may run what the clipboard holds`;
  if (toolName === 'type_text') return typeof args.text === 'string' && hasControlCharacter(args.text) ? runs : null;
  if (toolName === 'click') return args.button === 'middle' ? pastes : null;
  if (!keys) return null;
  if (TERMINAL_ENTER.some((chord) => pressesChord(keys, chord))) return runs;
  return TERMINAL_PASTE.some((chord) => pressesChord(keys, chord)) ? pastes : null;
}

export class SafetyPolicy {
  private readonly sensitive: CompiledPattern[];
  private readonly deny: CompiledPattern[];
  private readonly controlWords: { word: string; regex: RegExp }[];

  /** `platform`: the device's, where the commands run (the device client runs on this machine). */
  constructor(
    private readonly config: SafetyConfig,
    private readonly platform: NodeJS.Platform = process.platform,
  ) {
    this.sensitive = compile(config.sensitiveCommandPatterns, 'sensitiveCommandPatterns');
    this.deny = compile(config.denyCommandPatterns, 'denyCommandPatterns');
    this.controlWords = config.sensitiveControlWords
      .map((word) => asRead(word).trim())
      .filter((word) => word.length > 0)
      .map((word) => ({
        word,
        // \b is ASCII-only; these lookarounds give whole words in any script ("Löschen", "送信").
        regex: new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegex(word)}(?![\\p{L}\\p{N}_])`, 'iu'),
      }));
  }

  get mode(): SafetyConfig['confirmation'] {
    return this.config.confirmation;
  }

  evaluate(input: SafetyInput): SafetyVerdict {
    const args = input.args ?? {};
    const isDevice = isToolName(input.toolName);
    const texts = runnableTexts(input.toolName, args, isDevice);
    // A shell command runs in its cwd, home when none is given: there `rm -rf *` takes home.
    const cwd = input.toolName === 'execute_command' ? (typeof args.cwd === 'string' ? args.cwd : '~') : null;

    const denied: string[] = [];
    for (const text of texts) {
      // PowerShell runs the commands on Windows. The POSIX reader stays for bash text there (WSL, Git
      // Bash), without the folder: it would join a Windows path to home as one POSIX folder.
      const windows = this.platform === 'win32';
      const wipes = wholeTreeCommand(text, homedir(), windows ? null : cwd) ?? (windows ? windowsTreeCommand(text, homedir(), cwd) : null);
      if (wipes) denied.push(`denied: ${quote(wipes)} takes a whole tree (the root, a system folder or home)`);
      for (const pattern of this.deny) {
        const match = pattern.regex.exec(text);
        if (match) denied.push(`denied: matches ${quote(match[0] || pattern.source)}`);
      }
    }
    if (denied.length > 0) return { decision: 'deny', reasons: unique(denied) };

    const mode = this.config.confirmation;
    if (mode === 'never') return { decision: 'allow', reasons: [] };

    const reasons = this.ruleReasons(input, texts, isDevice);
    if (mode === 'always') {
      const looksOnly = isDevice && READ_ONLY_TOOLS.has(input.toolName);
      if (!looksOnly) return { decision: 'confirm', reasons: unique(['mode: every action needs approval', ...reasons]) };
    }
    return reasons.length > 0 ? { decision: 'confirm', reasons: unique(reasons) } : { decision: 'allow', reasons: [] };
  }

  private ruleReasons(input: SafetyInput, texts: readonly string[], isDevice: boolean): string[] {
    const reasons: string[] = [];
    const { toolName } = input;
    const args = input.args ?? {};
    if ((input.modelStatus ?? '').trim().toUpperCase() === 'CONFIRM') reasons.push('the model asked for confirmation');

    if (!isDevice && !input.trustedTool) reasons.push(`rule: external tool ${quote(toolName)} from a server not marked trusted`);

    if (toolName === 'execute_command' && this.config.confirmAllShellCommands) reasons.push('rule: shell command');
    const keys = hotkeyKeys(toolName, args);
    const targetApp = (input.targetApp ?? '').trim();
    if (this.config.confirmAllShellCommands && isDevice && (isTerminalApp(targetApp) || input.keyboardTargetUnknown)) {
      const where = !input.keyboardTargetUnknown
        ? targetApp
        : targetApp
          ? 'a window an earlier action of this sequence may have opened'
          : 'a window whose application is not known';
      const reason = terminalReason(toolName, args, keys, where);
      if (reason) reasons.push(reason);
    }
    const opener = this.config.confirmAllShellCommands && keys ? COMMAND_OPENERS.find((chord) => pressesChord(keys, chord)) : undefined;
    if (opener && keys) reasons.push(`rule: ${opener.reason} (${keys.join('+')})`);
    if (toolName === 'launch_app' && typeof args.name === 'string') {
      const reason = launchReason(args.name, launchArgs(args.args), this.config.confirmAllShellCommands);
      if (reason) reasons.push(reason);
    }
    if (!isDevice && !collectStrings(args, 0).complete) {
      reasons.push(`rule: arguments nested deeper than ${MAX_ARG_DEPTH} levels, too deep to check`);
    }
    const what = toolName === 'type_text' ? 'typed text' : toolName === 'launch_app' ? 'command line' : 'command';
    for (const text of texts) {
      for (const pattern of this.sensitive) {
        const match = pattern.regex.exec(text);
        if (match) reasons.push(`rule: ${what} matches ${quote(match[0] || pattern.source)}`);
      }
    }

    const controlText = asRead(input.controlText ?? '').trim();
    if (controlText && INPUT_ON_CONTROL.has(toolName)) {
      for (const { word, regex } of this.controlWords) {
        if (regex.test(controlText)) reasons.push(`rule: control text ${quote(word)}`);
      }
    }
    const closing = controlText && PRESSES_CONTROL.has(toolName) ? CLOSING_CONTROLS.find(({ regex }) => regex.test(controlText)) : undefined;
    if (closing) reasons.push(`rule: closes an application (control text ${quote(closing.word)})`);

    const chord = keys ? CHORD_RULES.find((rule) => pressesChord(keys, rule)) : undefined;
    if (chord && keys) reasons.push(`rule: ${chord.reason} (${keys.join('+')})`);
    return reasons;
  }
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}

/** One-off evaluation; build a SafetyPolicy once instead where settings do not change per call. */
export function evaluateSafety(input: SafetyInput, config: SafetyConfig): SafetyVerdict {
  return new SafetyPolicy(config).evaluate(input);
}
