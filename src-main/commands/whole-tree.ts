import { homedir } from 'node:os';
import { posix } from 'node:path';
import { braceWords } from './brace-words';
import { envFolder, withEnvSplit } from './env-split';
import { emptied, guarded, type Guard, isLonePwd, NO_GUARD, NOT_TESTED, type Tested, testedOf, unsetBy, withPwd } from './empty-values';
import { type Positionals, positionalsOf } from './positionals';
import { globMatches, globParts } from './tree-glob';
import { isRemoteShell, remoteCommands } from './remote-shells';
import { UNKNOWN } from './parameter-expansion';
import { expandedWords, learn, newShell, restore, type Shell, SHELL_KEYWORDS, type Snapshot, snapshotOf, withVariables } from './shell-scope';
import { isFlow, type Step } from './shell-steps';
import { ShellFlow } from './shell-flow';
import { blankQuoted, programOf, shellSteps, words } from './shell-text';
import { findListed, findTarget, mvTarget, rsyncTarget, TREE_PROGRAMS } from './tree-operations';
import { type ScriptRun, WrittenScripts } from './written-scripts';
import { writtenText } from './written-text';

/**
 * A floor under the deny list that no setting removes: a command that removes a whole tree (the root,
 * a top-level system folder, the home folder: rm -r, find -delete, rsync --delete into it, mv moving it
 * away), or recursively hands it over or changes its permissions. It is read from the command's words
 * rather than matched by a pattern, so option order (`rm -r -f /`), quoting (`"$HOME"/*`), dot and
 * double slashes (`/./*`) and long option lists neither hide it nor slow the check down, and a later
 * line of a script is never taken for its target. Text
 * given to a shell to run (`bash -c '…'`, `su -c`, `eval`, a here-string) is read as commands too, so
 * is the command `ssh host '…'` (rsh, mosh…) has the other machine's shell run (from that machine's
 * home), and a shell command's relative operands from its folder: `rm -rf *` run in home takes home.
 * A variable set earlier in the text is read with its value (`d=/; rm -rf "$d"`), `$PWD` as that folder,
 * one with a default as either (`${X:-/}`: X may be unset), and so are the positional parameters `set
 * -- /` gives. A variable the text does not set, or a command's output, may be empty (empty-values.ts):
 * `rm -rf "$DIR"/*` is refused, unless a test just before says it is not (`[ -n "$DIR" ] && …`). What a subshell sets (`( … )`, `$( … )`, each command of a pipeline, one run in the
 * background) ends with it: `(cd /tmp/x); rm -rf *` runs in home. A command that may not run is read as
 * such (shell-flow.ts): after `a && b` or `a || b`, after an if, a case or a loop, the shell may be where
 * any way through left it (`cd /; true || cd /tmp; rm -rf *` runs in /), a way that ends in `exit`,
 * `exec prog` or a function's `return` left out (`cd build || exit 1; rm -rf *` runs in build; outside
 * a function bash -c goes on past a `return`); a plain sequence
 * (`cd x; rm -rf *`) takes each command as done, the text giving no sign it may fail. A function defined on the line is read at each
 * call with its arguments as $1… (`f(){ rm -rf "$1"; }; f /`), an alias where a command starts with it,
 * env's split string (`env -S '…'`) as the words it runs, and what echo or printf writes to a file the
 * line then runs, or to a shell's start-up file.
 */

/**
 * Folders directly under the root whose loss breaks the system: Linux's, then macOS's, whose file system
 * ignores case (`/users` is /Users there), so they are compared in lower case.
 */
const SYSTEM_FOLDERS = [
  'bin', 'boot', 'dev', 'etc', 'home', 'lib', 'lib32', 'lib64', 'media', 'mnt', 'opt', 'root', 'sbin', 'srv', 'usr', 'var',
  'applications', 'library', 'system', 'users', 'volumes', 'private', 'cores',
];

/**
 * Programs that run a word they are given as shell text: `bash -c '…'`, `su -c '…'`, `eval '…'`,
 * `bash <<< '…'`, and those that hand it to a shell themselves (`watch '…'`, `script -c`, `flock … -c`).
 */
const SHELL_TEXT_RUNNERS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'busybox', 'su', 'runuser', 'eval', 'watch', 'script', 'flock']);
/** The shells among them, which give the words after their text to it as $0, $1… */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash']);
/** Programs that add words of their own after a program's (`xargs sh -c '…' _`): its $1… cannot be told. */
const ADDS_ARGUMENTS = new Set(['xargs', 'find', 'parallel', 'fd', 'fdfind']);
/** Shell text nested deeper than this (`bash -c "sh -c '…'"` is two levels) is not read. */
const MAX_NESTING = 4;
/** Functions and aliases read inside each other (a calls b, b calls c…) deeper than this refuse the text: it may hide anything. */
const MAX_CALLS = 64;

/**
 * Home as the shell expands it: `~`, `$HOME`, `${HOME}`, and `${HOME:?}`, `${HOME:-…}`, `${HOME=…}`,
 * which give HOME when it is set; and `~user`. 1: the user.
 */
const HOME_PREFIX = /^(?:~([a-z_][\w.-]*)?|\$HOME|\$\{HOME(?::?[-=?][^}]*)?\})(?=\/|$)/;

/** `path` with a leading home spelt out: `~root` is /root, `~ana` home when ana's it is, another user's left as it is. */
function withHome(path: string, home: string): string {
  return path.replace(HOME_PREFIX, (prefix, user: string | undefined) =>
    user === undefined || user === posix.basename(home) ? home : user === 'root' ? '/root' : prefix,
  );
}

/** A path operand with home spelled out as `~`, `..` and `.` segments resolved, slashes collapsed and trailing globs gone. */
function normalisePath(operand: string, home: string): string {
  // `..` is resolved with home expanded: ~/.. is the folder home is in.
  let path = posix.normalize(withHome(operand, home));
  if (home !== '/' && (path === home || path.startsWith(`${home}/`))) path = `~${path.slice(home.length)}`;
  for (let before = ''; before !== path; ) {
    before = path;
    path = path.replace(/(?:\/\.?\*|\/\.|\/)$/, '');
  }
  return path;
}

/**
 * Whether removing `operand` (recursively) takes the root, a top-level system folder or home with it:
 * itself, any word its braces make (`/{usr,etc}`), or a tree its glob matches (`/u?r`, `/h*`). A class
 * no shell can match (`[z-a]`) matches nothing. Braces that make too much to read (braceWords) count
 * as taking one: any of their words may.
 */
export function isWholeTree(operand: string, home = homedir()): boolean {
  const all = braceWords(operand);
  return all === null || all.some((word) => {
    const path = normalisePath(word, home);
    if (path === '' || path === '~' || SYSTEM_FOLDERS.some((folder) => path.toLowerCase() === `/${folder}`)) return true;
    const glob = /[*?[]/.test(path) ? globParts(path) : null;
    return glob !== null && [home, ...SYSTEM_FOLDERS.map((folder) => `/${folder}`)].some((tree) => globMatches(glob, tree));
  });
}

/**
 * The first simple command in `text` that removes, recursively hands over or re-permissions a whole
 * tree, as `program operand` (for the reason shown), or null. `cwd`: the folder the text runs in, as
 * execute_command's cwd is given (absolute, or from home), or null when that is not known (typed text);
 * relative operands are read from it, and from where a `cd` of the script took it.
 */
export function wholeTreeCommand(text: string, home = homedir(), cwd: string | null = null): string | null {
  const folder = cwd === null ? null : folderOf(cwd, home, home);
  let mayLastPipe = false;
  const read = (lastPipeInShell: boolean): string | null => {
    const reading: Reading = { home, scripts: new WrittenScripts(), budget: REREAD_FLOOR + REREAD_PER_CHARACTER * text.length, lastPipeInShell, mayLastPipe: false, oldPwd: OLD_PWD.test(text) };
    const found = treeCommandInText(text, reading, folder, 0);
    mayLastPipe = reading.mayLastPipe;
    return found;
  };
  // bash runs a pipeline's last command in a subshell, as read first; with lastpipe, and in zsh and
  // ksh, the shell runs it itself (`true | cd /; rm -rf *`). Whichever runs it, a refusal stands.
  // What the words say once quotes, escapes and variables are read counts too (`shopt -s last''pipe`).
  return read(false) ?? (LAST_PIPE_IN_SHELL.test(text) || mayLastPipe ? read(true) : null);
}

/** A text that goes back to the folder before (`cd -`) or names it (`$OLDPWD`): the folder each cd leaves is kept for it. */
const OLD_PWD = /OLDPWD|(?:^|[\s;&|(){}])(?:cd|pushd)\s+(?:-[LPe@]+\s+)*-(?=$|[\s;&|)])/;

/** A text that may run a pipeline's last command in the shell itself: it sets lastpipe, or names zsh or ksh. */
const LAST_PIPE_IN_SHELL = /lastpipe|\b(?:zsh|ksh|mksh)\b/;

/**
 * A function's body is read again at each call, a written script at each run: together they may read
 * this many characters, and this many more for each of the text's, before the text is refused as one
 * that cannot be read in time (a body called over and over, each call with its own arguments).
 */
const REREAD_FLOOR = 100_000;
const REREAD_PER_CHARACTER = 4;
const REREAD_EACH = 16;

/** What holds for all the shell text one command gives: home, the scripts it writes, what can still be read again. */
interface Reading {
  home: string;
  scripts: WrittenScripts;
  budget: number;
  /** A pipeline's last command is read as run by the shell itself, not in a subshell of its own. */
  lastPipeInShell: boolean;
  /** A command's words, as read, may make a pipeline's last command run in the shell itself (shopt, lastpipe, zsh, ksh). */
  mayLastPipe: boolean;
  /** The text uses OLDPWD (`cd -`, `$OLDPWD`): each cd sets it. */
  oldPwd: boolean;
}

/** Programs whose use, once the words are read, may run a pipeline's last command in the shell itself. */
const LAST_PIPE_PROGRAMS = new Set(['shopt', 'zsh', 'ksh', 'mksh']);

/** Where the text's output goes: the shell it pipes into (1 of PIPED_INTO_SHELL), or into xargs or tee. */
interface Pipes {
  shell: string | undefined;
  xargs: boolean;
  tee: boolean;
}

/** `positionals`, `zero`: the $1… and $0 the text is given, when known. */
function treeCommandInText(text: string, reading: Reading, cwd: string | null, depth: number, positionals: Positionals | null = null, zero: string | null = null): string | null {
  const shell = newShell(cwd, positionals);
  if (zero !== null) shell.variables.set('0', zero);
  return treeCommandInCommands(commandsOf(text, reading.lastPipeInShell), pipesOf(text), shell, reading, depth);
}

/** The steps of `text`; a backslash at the end of a line continues the command on the next one. */
function commandsOf(text: string, lastPipeInShell: boolean): Step[] {
  return shellSteps(text.replace(/\\\r?\n/g, ''), lastPipeInShell);
}

function pipesOf(text: string): Pipes {
  // What echo or printf write is shell text when the text pipes into a shell (`echo 'rm -rf /' | bash`).
  const unquoted = blankQuoted(text);
  return { shell: PIPED_INTO_SHELL.exec(unquoted)?.[1], xargs: PIPED_INTO_XARGS.test(unquoted), tee: PIPED_INTO_TEE.test(unquoted) };
}

/** `body`: the steps are a function's body read at a call, which a `return` ends. */
function treeCommandInCommands(steps: readonly Step[], pipes: Pipes, shell: Shell, reading: Reading, depth: number, body = false): string | null {
  const { home } = reading;
  /** What the command before wrote, when the text pipes into xargs: xargs adds it to its program's words. */
  let fed: string[] = [];
  /** What the shell knew as each subshell open started: what one sets ends with it. */
  const subshells: Snapshot[] = [];
  /** Where the shell may be where not every command runs (`a || cd x`, an if's branches). */
  const joined = new Map<string, string | null>();
  const flow = new ShellFlow(shell, (a, b) => joinedFolders(a, b, home, joined), body);
  /** What the last command tested (`[ -n "$X" ]`), the steps since it, and the variables the command now read is guarded as not empty. */
  let tested: Tested = NOT_TESTED;
  let since: Step[] = [];
  let guard: Guard = NO_GUARD;
  /** The folder of the last cd, when it was a value that may be empty (`cd "$DIR"`): said in the reason. */
  let emptyCd: string | null = null;
  /**
   * The substitutions in quotes (`"$(…)"`) read since the last command at each depth, whether each is a
   * lone `pwd`: deeper ones last, those deeper than the shell now gone.
   */
  const substitutions: Array<{ depth: number; pwd: boolean }> = [];
  const dropDeeper = (depth: number) => {
    while ((substitutions.at(-1)?.depth ?? -1) > depth) substitutions.pop();
  };
  for (let at = 0; at < steps.length; at++) {
    const step = steps[at] as Step;
    if (typeof step === 'string') since.push(step);
    if (isFlow(step)) dropDeeper(subshells.length - 1);
    if (step === 'enter') substitutions.push({ depth: subshells.length, pwd: isLonePwd(steps, at) });
    if (step === 'open' || step === 'enter') {
      subshells.push(snapshotOf(shell));
      flow.open();
    } else if (step === 'close' || step === 'leave') {
      dropDeeper(subshells.length - 1);
      const before = subshells.pop();
      if (before !== undefined) {
        restore(shell, before);
        flow.close();
      }
    } else if (isFlow(step)) flow.flow(step);
    if (typeof step === 'string') {
      shell.functions.read(step, []);
      continue;
    }
    const start = flow.here();
    /** The command is a function's name followed by `()`: its header, not a call. */
    const header = isFunctionHeader(steps, at);
    const { command } = step;
    const own: Array<{ pwd: boolean }> = [];
    while (substitutions.at(-1)?.depth === subshells.length) own.unshift(substitutions.pop() as { pwd: boolean });
    const { all: read, cut } = words(command);
    // `"$(pwd)"` is the folder the shell is in, never empty (unless the line makes pwd something else).
    const written = shell.functions.body('pwd') === undefined && shell.aliases.get('pwd') === undefined ? withPwd(read, own) : read;
    // An empty command (before a `(`) changes nothing of the guard.
    const blank = written.length === 0 && !cut;
    if (!blank) {
      guard = guarded(since, tested, guard);
      tested = cut ? NOT_TESTED : testedOf(command, since, tested);
      since = [];
    }
    const notEmpty = guard.names;
    // What this command sets is no longer known not empty after it.
    guard = cut ? NO_GUARD : unsetBy(guard, written, shell);
    // "$@" makes a word of each parameter: a text that uses it over and over is read within the budget too.
    const defaults: Array<readonly [string, string]> = [];
    const expanded = expandedWords(written, shell, home, (characters) => spend(characters, reading), defaults);
    if (expanded === null) return '"$@" (expanded too often to be read)';
    const all = withEnvSplit(expanded);
    if (!reading.mayLastPipe && all.some((word) => LAST_PIPE_PROGRAMS.has(programOf(word)) || /lastpipe/i.test(word))) reading.mayLastPipe = true;
    shell.functions.read(step, all);
    // A command of a body being defined runs only if called: what it sets may never be set.
    if (!cut) learn(all, shell, shell.functions.defining, defaults, flow.mayBeSkipped());
    const name = all.findIndex((word) => !SHELL_KEYWORDS.has(word) && word !== 'builtin' && word !== 'command');
    const program = name === -1 ? '' : programOf(all[name] as string);
    // Words only guessed (a quote that never closes): where a cd among them went cannot be told.
    if (cut) shell.cwd = null;
    // A cd in a body being defined moves the shell only when the function is called.
    else if (!shell.functions.defining) move(program, all.slice(name + 1), shell, home, UNQUOTED_CD.test(blankQuoted(command)), reading.oldPwd, flow.mayBeSkipped() ? (a, b) => joinedFolders(a, b, home, joined) : null, notEmpty);
    if (!cut && !shell.functions.defining && (program === 'cd' || program === 'pushd')) {
      const target = all.slice(name + 1).find((word) => word === '-' || !word.startsWith('-'));
      emptyCd = target !== undefined && emptied(target, false, notEmpty) !== null ? target : null;
    }
    const runs = reading.scripts.read(command, all, (word) => withVariables(word, shell, home), { shell: pipes.shell !== undefined, tee: pipes.tee });
    // `env -C dir` runs its program there, the shell staying where it is.
    const chdir = envFolder(all);
    const cwd = chdir === undefined ? shell.cwd : folderOf(chdir, shell.cwd, home);
    const direct = treeCommand(all, home, cwd, notEmpty);
    const found =
      (direct !== null && emptyCd !== null && !direct.includes(' (')
        ? `${direct} (run where cd ${emptyCd} may have left the shell: if the value is empty, cd stays where it is or goes home; \${X:?} stops the cd then)`
        : direct) ??
      (fed.length > 0 && all.some((word) => programOf(word) === 'xargs') ? treeCommand([...all, ...fed], home, cwd, notEmpty) : null) ??
      (depth < MAX_NESTING
        ? (nestedTreeCommand(all, reading, cwd, depth) ??
          sshTreeCommand(all, reading, cwd, depth) ??
          (pipes.shell ? echoedTreeCommand(all, reading, isRemoteShell(pipes.shell) ? home : cwd, depth) : null) ??
          ranTreeCommand(runs, shell, reading, depth) ??
          evaluatedTreeCommand(all, shell, reading, depth))
        : null) ??
      // Past the nesting limit too: a chain of functions (a calls b, b calls c…) ends, and the budget bounds it.
      // `f() { … }` again defines f anew: its name is no call of the f before.
      (header ? null : calledTreeCommand(all, pipes, shell, reading, depth)) ??
      aliasedTreeCommand(all, shell, reading, depth);
    if (found) return found;
    fed = pipes.xargs ? writtenWords(all) : [];
    // A group's `}`, `fi`, `done` or `esac`, or no command at all: the group's own end was read at its marker.
    // `exit() { … }` names a function: no exit.
    const ends = shell.functions.defining || header ? null : endsTheWay(all, name, shell);
    if (!all.every((word) => CLOSING_WORDS.has(word))) flow.ran(start, ends);
  }
  // A subshell never closed (`(cd x`, a syntax error) leaves nothing set either.
  const outermost = subshells[0];
  if (outermost !== undefined) restore(shell, outermost);
  flow.end();
  return null;
}

/** Whether the command at `at` is followed by `()`, which makes it a function's name (`f() { … }`). */
function isFunctionHeader(steps: readonly Step[], at: number): boolean {
  const parentheses = steps[at + 2];
  return steps[at + 1] === 'open' && typeof parentheses === 'object' && parentheses.command.trim() === '' && steps[at + 3] === 'close';
}

/** Words that only end a group. */
const CLOSING_WORDS = new Set(['}', 'fi', 'done', 'esac']);

/**
 * Whether the command (its program at `name`) ends the way the shell reads: `exit`, `return`, or `exec`
 * given a program to run in its place (a bare `exec` with only redirections goes on). Not when the line
 * defines a function or an alias of that name, which the shell runs instead (`exit(){ :; }`), nor a
 * program of that name elsewhere (`./exit`); nor `logout`, which bash -c refuses and goes on past.
 */
function endsTheWay(all: readonly string[], name: number, shell: Shell): 'exit' | 'return' | null {
  const program = all[name];
  if (program !== 'exit' && program !== 'return' && program !== 'exec') return null;
  if (shell.functions.body(program) !== undefined || shell.aliases.get(program) !== undefined) return null;
  if (program === 'exit') return 'exit';
  if (program === 'return') return 'return';
  for (let at = name + 1; at < all.length; at++) {
    const word = all[at] as string;
    // A redirection (`>log`, `2>&1`, `> log`: its target the next word) or an option (`exec -a name prog`).
    if (/^\d*(?:[<>]|&>)/.test(word)) {
      if (/^\d*(?:[<>]+|&>+)&?$/.test(word)) at++;
      continue;
    }
    if (word === '-a') {
      at++;
      continue;
    }
    if (/^-/.test(word)) continue;
    return 'exit';
  }
  return null;
}

/**
 * Either folder (each may be several, `{a,b}`; null: not known, left out), as the braces that make each.
 * `joined` keeps those read before (the same folders are joined over and over).
 */
function joinedFolders(a: string | null, b: string | null, home: string, joined: Map<string, string | null>): string | null {
  if (a === b || b === null) return a;
  if (a === null) return b;
  const key = `${a}\n${b}`;
  const known = joined.get(key);
  if (known !== undefined || joined.has(key)) return known ?? null;
  if (joined.size >= MAX_JOINS_KEPT) joined.clear();
  const folder = folderOf(`{${a},${b}}`, null, home);
  joined.set(key, folder);
  return folder;
}

/** How many joins of folders one reading keeps. */
const MAX_JOINS_KEPT = 4_096;

/**
 * Reads `text` again (a body at a call, a script at a run) with what is left of the budget; past it, the
 * text is refused as `what` that cannot be read in time: it may hide anything.
 */
function readAgain(length: number, what: string, reading: Reading, read: () => string | null): string | null {
  // Each reading costs a little whatever its length: many tiny bodies cost more than their characters.
  return spend(length + REREAD_EACH, reading) ? read() : `${what} (called or run too often to be read)`;
}

/** Takes `cost` characters from what can still be read; false, taking nothing, when that is more than is left. */
function spend(cost: number, reading: Reading): boolean {
  if (cost > reading.budget) return false;
  reading.budget -= cost;
  return true;
}

/** A call of a function defined on the line (`f /`): its body read with the call's arguments as $1, $2… */
function calledTreeCommand(all: readonly string[], pipes: Pipes, shell: Shell, reading: Reading, depth: number): string | null {
  if (shell.functions.defining) return null;
  const at = all.findIndex((word) => !SHELL_KEYWORDS.has(word) && !/^[A-Za-z_]\w*=/.test(word));
  const name = all[at];
  const body = name === undefined ? undefined : shell.functions.body(name);
  if (body === undefined || name === undefined) return null;
  // A function that calls itself is read a few calls deep, each call with its own arguments.
  const call = `function:${name}`;
  if (shell.calls.includes(call) && depth >= MAX_NESTING) return null;
  if (shell.calls.length >= MAX_CALLS) return `${name} (called too deep to be read)`;
  // The body runs in the caller's shell: it shares its variables and folder stack, and where its cd
  // goes the caller is after the call (`up(){ cd ..; }; up; rm -rf *`).
  const called: Shell = { ...shell, positionals: positionalsOf(all.slice(at + 1)), functions: shell.functions.forCall(), calls: [...shell.calls, call] };
  const length = body.reduce((sum, step) => sum + (typeof step === 'string' ? 1 : step.command.length + 1), 0);
  return readAgain(length, name, reading, () => {
    const found = treeCommandInCommands(body, pipes, called, reading, depth + 1, true);
    shell.cwd = called.cwd;
    shell.pushed = called.pushed;
    // An exit in the body ends the caller's way too; a return only the call's.
    shell.ended = called.ended;
    return found;
  });
}

/** A command that starts with an alias defined on the line: the alias's text, then the command's other words. */
function aliasedTreeCommand(all: readonly string[], shell: Shell, reading: Reading, depth: number): string | null {
  const at = all.findIndex((word) => !SHELL_KEYWORDS.has(word));
  const text = shell.aliases.get(all[at] ?? '');
  // As the shell does, an alias is not expanded again inside its own text (`alias ls='ls -F'`).
  const expanding = `alias:${all[at] ?? ''}`;
  if (text === undefined || shell.calls.includes(expanding)) return null;
  if (shell.calls.length >= MAX_CALLS) return `${all[at] ?? ''} (called too deep to be read)`;
  const line = [text, ...all.slice(at + 1).map((word) => `'${word.replace(/'/g, `'\\''`)}'`)].join(' ');
  // Read with what the shell knows, whose aliases can use others, but in a copy: `bash -c`, which runs the
  // commands, does not expand aliases, so what the text sets (`alias x='d=/tmp/x'; x`) may never be set.
  const aliased: Shell = {
    ...shell,
    variables: shell.variables.copy(),
    aliases: shell.aliases.copy(),
    pushed: null,
    functions: shell.functions.apart(),
    calls: [...shell.calls, expanding],
  };
  return readAgain(line.length, all[at] as string, reading, () => treeCommandInCommands(commandsOf(line, reading.lastPipeInShell), pipesOf(line), aliased, reading, depth + 1));
}

/**
 * eval's words, joined, read as commands run with what this shell knows: its functions, aliases,
 * variables and parameters (`f(){ rm -rf "$1"; }; eval "f /"`), which a shell given text
 * (nestedTreeCommand) starts without. Read in a copy: an eval after `then` may not run, and what it
 * sets must not hide a value the line goes on with; but the shell is left where its cd took it (the
 * flow joins that with where it was, when the eval may not run).
 */
function evaluatedTreeCommand(all: readonly string[], shell: Shell, reading: Reading, depth: number): string | null {
  const at = all.findIndex((word) => programOf(word) === 'eval');
  const text = all.slice(at + 1).join(' ');
  if (at === -1 || text.trim() === '') return null;
  const evaluated: Shell = {
    ...shell,
    variables: shell.variables.copy(),
    aliases: shell.aliases.copy(),
    functions: shell.functions.apart(),
  };
  return readAgain(text.length, 'eval', reading, () => {
    const found = treeCommandInCommands(commandsOf(text, reading.lastPipeInShell), pipesOf(text), evaluated, reading, depth + 1);
    // eval runs in the shell itself: where its cd took it, the line goes on (`eval 'cd /'; rm -rf *`).
    shell.cwd = evaluated.cwd;
    shell.pushed = evaluated.pushed;
    return found;
  });
}

/** The scripts written on the line that this command runs (or that a start-up file will): read as commands. */
function ranTreeCommand(runs: readonly ScriptRun[], shell: Shell, reading: Reading, depth: number): string | null {
  for (const { text, atHome } of runs) {
    const read = () => (text === null ? null : treeCommandInText(text, reading, atHome ? reading.home : shell.cwd, depth + 1));
    const found = readAgain(text?.length ?? Infinity, 'a written script', reading, read);
    if (found) return found;
  }
  return null;
}

/**
 * The folder `dir` names: absolute, from home (`~`, `$HOME`) or relative to `base`; null when that
 * cannot be told (another variable, or no known base). Several are given as the braces that make each.
 */
function folderOf(dir: string, base: string | null, home: string): string | null {
  // A loop's variable (`{a,b}`), or a default (`${X:-/}`), is several folders: each is read, those
  // not known (`$X`, `‹X›`) left out, as is each the shell may be in.
  const folders = new Set<string>();
  for (const word of braceWords(dir) ?? []) {
    if (folders.size > MAX_FOLDERS) break;
    const expanded = withHome(word, home);
    if (/[$`]/.test(expanded) || UNKNOWN.test(expanded)) continue;
    if (expanded.startsWith('/')) folders.add(posix.normalize(expanded));
    else for (const from of base === null ? [] : (braceWords(base) ?? [])) folders.add(posix.join(from, expanded));
  }
  // So many that a folder each is too much to carry (cd after cd into lists): read as the root, where
  // `*` and `..` take a whole tree, as they may from one of them.
  if (folders.size > MAX_FOLDERS) return '/';
  return folders.size <= 1 ? ([...folders][0] ?? null) : `{${[...folders].join(',')}}`;
}

/** The folders a shell may be in that are read each. */
const MAX_FOLDERS = 16;

/** A cd or pushd whose folder is a value not in quotes (`cd $DIR`): empty, it is no word, and cd goes home. Matched on text whose quotes are blanked. */
const UNQUOTED_CD = /(?:^|[\s;&|(){}])(?:cd|pushd)\s+(?:-[LPe@]+\s+|--\s+)*[$`]/;

/**
 * Where `cd`, `pushd` or `popd` (`program`, given `args`) takes the shell; another program leaves it.
 * `unquoted`: the folder is written as a value not in quotes. `oldPwd`: OLDPWD is kept (the text uses
 * it). `join`: the command may be skipped, and this joins OLDPWD before it with the one it sets.
 */
function move(
  program: string,
  args: readonly string[],
  shell: Shell,
  home: string,
  unquoted: boolean,
  oldPwd: boolean,
  join: ((a: string | null, b: string | null) => string | null) | null,
  notEmpty: ReadonlySet<string>,
): void {
  if (program === 'cd' || program === 'pushd') {
    if (program === 'pushd') shell.pushed = { folder: shell.cwd, below: shell.pushed };
    const before = shell.cwd;
    // `cd -` goes back to OLDPWD, which the cd before set to where it left (`cd /tmp/x && cd - && rm -rf *`);
    // with none set on the line it fails, the shell staying where it is, or goes where cannot be told.
    shell.cwd = args.find((word) => word === '-' || !word.startsWith('-')) === '-' ? (shell.variables.get('OLDPWD') ?? before) : afterCd(args, before, home, unquoted, notEmpty);
    // A cd that may be skipped leaves OLDPWD as it was, or sets it.
    if (!oldPwd) return;
    const old = join === null ? before : join(shell.variables.get('OLDPWD') ?? null, before);
    if (old === null) shell.variables.delete('OLDPWD');
    else shell.variables.set('OLDPWD', old);
  } else if (program === 'popd' && shell.pushed !== null) {
    // With none pushed, popd fails and the shell stays where it is.
    shell.cwd = shell.pushed.folder;
    shell.pushed = shell.pushed.below;
  }
}

/**
 * Where `cd` or `pushd` leaves the shell: home without a folder; null when it cannot be told (`cd -`,
 * `cd "$DIR"` of a DIR set). A variable the line does not set may be empty (the command runs in a
 * shell of its own, which has none of an earlier command's): `cd "$DIR"` then stays where it is
 * (`cd ""`), and `cd $DIR` goes home, so `cd "$DIR" && rm -rf *` run in home takes home. A command's
 * output (`cd "$(mktemp -d)"`) is not read so.
 */
function afterCd(args: readonly string[], cwd: string | null, home: string, unquoted: boolean, notEmpty: ReadonlySet<string>): string | null {
  const target = args.find((word) => word === '-' || !word.startsWith('-')) ?? '~';
  if (target === '-') return null;
  const empty = emptied(target, false, notEmpty);
  if (empty === '') return unquoted ? home : cwd;
  return folderOf(empty ?? target, cwd, home);
}

/** How many parameters the texts of one command may be given in all before it is refused as too large to read. */
const MAX_PARAMETERS_GIVEN = 2_000_000;

/**
 * In the shell text a shell or eval is given to run: the words after it that are more than one word.
 * A shell's words after its text are its $0, $1… (`sh -c 'rm -rf "$1"' sh /`).
 */
function nestedTreeCommand(all: readonly string[], reading: Reading, cwd: string | null, depth: number): string | null {
  const runner = all.findIndex((word) => SHELL_TEXT_RUNNERS.has(programOf(word)));
  if (runner === -1) return null;
  const takesArguments = SHELLS.has(programOf(all[runner] as string)) && !all.slice(0, runner).some((word) => ADDS_ARGUMENTS.has(programOf(word)));
  let given = 0;
  for (let at = runner + 1; at < all.length; at++) {
    const word = all[at] as string;
    if (!/\s/.test(word)) continue;
    // The words after each text are its parameters: thousands of texts, each given thousands of words, are too many.
    given += takesArguments ? all.length - at : 0;
    if (given > MAX_PARAMETERS_GIVEN) return `${programOf(all[runner] as string)} (given too many texts to be read)`;
    const positionals = takesArguments ? positionalsOf(all.slice(at + 2)) : null;
    const zero = takesArguments ? (positionalsOf(all.slice(at + 1, at + 2))[0] ?? null) : null;
    const found = treeCommandInText(word, reading, cwd, depth + 1, positionals, zero);
    if (found) return found;
  }
  return null;
}

/**
 * A pipe (not `||`) into a shell that reads its commands from the pipe, through sudo or env if need be:
 * `| bash`, `| sudo sh`, `| /bin/bash`, `| ssh host` (or another remote shell). 1: the shell. Matched
 * on text whose quotes are blanked.
 */
const PIPED_INTO_SHELL =
  /(?:^|[^|])\|&?\s*(?:(?:sudo|env|command|exec|nohup)\s+(?:-\S+\s+)*)*(?:\S*\/)?(sh|bash|dash|zsh|ksh|mksh|ash|fish|ssh|slogin|autossh|rsh)(?=\s|$|[;&|)])/;

/** A pipe into xargs, as PIPED_INTO_SHELL reads one into a shell. */
const PIPED_INTO_XARGS = /(?:^|[^|])\|&?\s*(?:(?:sudo|env|command|exec|nohup)\s+(?:-\S+\s+)*)*(?:\S*\/)?xargs(?=\s|$)/;

/** A pipe into tee, which writes what it reads to its files; matched loosely (`| sudo -u root tee -a f`). */
const PIPED_INTO_TEE = /(?:^|[^|])\|&?[^|;&\n]*?(?:^|[\s/])tee(?=\s|$)/;

/**
 * The words a command writes for xargs to read: echo's or printf's, the folders a find lists all of, or
 * all in the folder it runs in (as `*`) for an ls of no other folder, whose names are relative to it.
 */
function writtenWords(all: readonly string[]): string[] {
  const find = all.findIndex((word) => programOf(word) === 'find');
  if (find !== -1) return findListed(all.slice(find + 1));
  const ls = all.findIndex((word) => programOf(word) === 'ls');
  if (ls !== -1) return all.slice(ls + 1).every((word) => word.startsWith('-') || word === '.' || word === './') ? ['*'] : [];
  return (writtenText(all) ?? '').split(/\s+|\\0/).filter((word) => word !== '');
}

/** In an `echo …` or `printf …` whose output goes to a shell, a whole tree: what it writes is read as commands run in `cwd`. */
function echoedTreeCommand(all: readonly string[], reading: Reading, cwd: string | null, depth: number): string | null {
  const written = writtenText(all);
  return written === null ? null : treeCommandInText(written, reading, cwd, depth + 1);
}

/**
 * In the shell text `ssh` (or another remote shell: autossh, rsh, mosh) has run, a whole tree. The command run on another machine is text for the
 * remote user's shell, which starts in that user's home (or in / when there is none), so a relative
 * target is read from home, spelt as this machine's home: `~` and `$HOME` are home there too. A
 * ProxyCommand or LocalCommand runs here, in the folder ssh runs in.
 */
function sshTreeCommand(all: readonly string[], reading: Reading, cwd: string | null, depth: number): string | null {
  const ssh = all.findIndex(isRemoteShell);
  if (ssh === -1) return null;
  const { remote, local } = remoteCommands(all[ssh] as string, all.slice(ssh + 1));
  for (const [text, folder] of [...remote.map((text) => [text, reading.home] as const), ...local.map((text) => [text, cwd] as const)]) {
    const found = treeCommandInText(text, reading, folder, depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * The folder a command's relative operands are read from, for its program at `start`: none among the
 * words ssh has the other machine run, where the folder here says nothing of where they are. A word ssh
 * that is no such program (`find -name ssh`, `sudo -u ssh`) changes nothing.
 */
function folderFor(all: readonly string[], start: number, localCwd: string | null): string | null {
  const remote = all.some((word, at) => {
    if (at >= start || !isRemoteShell(word)) return false;
    const { commandAt } = remoteCommands(word, all.slice(at + 1));
    return commandAt !== -1 && at + 1 + commandAt <= start;
  });
  return remote ? null : localCwd;
}

/** Programs besides rm and the recursive chmod, chown and chgrp that take a whole tree, and how each says which. */
const OTHER_PROGRAMS: ReadonlyArray<readonly [string, (args: readonly string[], takesWhole: (operand: string) => boolean) => string | undefined]> = [
  ['find', findTarget],
  ['rsync', rsyncTarget],
  ['mv', mvTarget],
];

/** `program operand` when the command's words remove or recursively re-own a whole tree, else null. */
function treeCommand(all: readonly string[], home: string, localCwd: string | null, notEmpty: ReadonlySet<string> = NO_GUARD.names): string | null {
  // An empty operand (`rm -rf ""`, `"$1"` of a call given none) names no file.
  // Each word braces make is read from the folder (`{‹X›,*}`, a default not known, is `*` too), and
  // with its values not known empty (`"$DIR/"` is `/` then).
  const takesWhole = (cwd: string | null) => {
    const whole = (word: string): boolean => word !== '' && isWholeTree((cwd === null ? null : folderOf(word, cwd, home)) ?? word, home);
    return (operand: string) =>
      operand !== '' &&
      (braceWords(operand) ?? [operand]).some((word) => {
        if (whole(word)) return true;
        const empty = emptied(word, true, notEmpty);
        return empty !== null && whole(empty);
      });
  };
  for (const [name, target] of OTHER_PROGRAMS) {
    const at = all.findIndex((word) => programOf(word) === name);
    const found = at === -1 ? undefined : target(all.slice(at + 1), takesWhole(folderFor(all, at, localCwd)));
    if (found !== undefined) return named(name, found, notEmpty);
  }
  // Wrappers (sudo, env, xargs, busybox...) come first: the program is wherever its name appears.
  const start = all.findIndex((word) => Object.hasOwn(TREE_PROGRAMS, programOf(word)));
  if (start === -1) return null;
  const program = programOf(all[start] as string);
  const recursiveFlag = TREE_PROGRAMS[program] as RegExp;
  const rest = all.slice(start + 1);
  const endOfOptions = rest.indexOf('--');
  const options = endOfOptions === -1 ? rest : rest.slice(0, endOfOptions);
  const recursive = options.some((word) => isRecursiveOption(word) || (!word.startsWith('--') && recursiveFlag.test(word)));
  if (!recursive) return null;
  // `git rm --cached` only takes the files out of the index, and `git rm -n` only lists them: nothing on disk goes.
  if (program === 'rm' && all.slice(0, start).some((word) => programOf(word) === 'git') && options.some(keepsFiles)) return null;
  const operands = [...options.filter((word) => !word.startsWith('-')), ...(endOfOptions === -1 ? [] : rest.slice(endOfOptions + 1))];
  // chown's and chgrp's first operand is the owner (`root`, `bin`), a folder only with --reference.
  const namesOwner = (program === 'chown' || program === 'chgrp') && !options.some((word) => word.startsWith('--ref'));
  const target = (namesOwner ? operands.slice(1) : operands).find(takesWhole(folderFor(all, start, localCwd)));
  return target === undefined ? null : named(program, target, notEmpty);
}

/**
 * `program operand` for the reason shown, saying so when the operand's braces make too much to read,
 * or when it takes a whole tree only if a value in it is empty (with the way to say it must not be).
 */
function named(program: string, operand: string, notEmpty: ReadonlySet<string>): string {
  if (braceWords(operand) === null) return `${program} (braces too large to read) ${operand}`;
  const empty = emptied(operand, true, notEmpty);
  if (empty === null) return `${program} ${operand}`;
  return `${program} ${operand} (that is ${empty === '' ? 'nothing' : empty} if a variable or a command's output in it is empty; \${X:?} stops the command when X is empty or unset)`;
}

/**
 * git rm's --cached or --dry-run, or a start of one, which git accepts for the whole option (`--cach`),
 * or its -n among short options (`-rn`); git rm has no short option that takes a value. Each is also
 * an option rm itself refuses, so a "git" word before rm that is not the program (`sudo -u git rm`)
 * lets through only an rm that deletes nothing: hence `--d`, which rm reads as --dir, is not taken.
 */
function keepsFiles(word: string): boolean {
  if (/^-[a-zA-Z]*n[a-zA-Z]*$/.test(word)) return true;
  return word.length > 3 && ['--cached', '--dry-run'].some((option) => option.startsWith(word));
}

/** --recursive, or a start of it, which GNU tools accept for the whole option (`rm --recu`). */
function isRecursiveOption(word: string): boolean {
  return word.length > 2 && '--recursive'.startsWith(word);
}
