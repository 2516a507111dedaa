import { homedir } from 'node:os';
import { posix } from 'node:path';
import { splitArgs } from '../device/split-args';

/**
 * A floor under the deny list that no setting removes: a command that removes a whole tree (the root,
 * a top-level system folder, the home folder), or recursively hands it over or changes its
 * permissions. It is read from the command's words rather than matched by a pattern, so option order
 * (`rm -r -f /`), quoting (`"$HOME"/*`), dot and double slashes (`/./*`) and long option lists neither
 * hide it nor slow the check down, and a later line of a script is never taken for its target. Text
 * given to a shell to run (`bash -c '…'`, `su -c`, `eval`, a here-string) is read as commands too, so
 * is the command `ssh host '…'` has the other machine's shell run (from that machine's home), and a
 * shell command's relative operands from its folder: `rm -rf *` run in home takes home.
 */

/** Folders directly under the root whose loss breaks the system. */
const SYSTEM_FOLDERS = ['bin', 'boot', 'dev', 'etc', 'home', 'lib', 'lib32', 'lib64', 'media', 'mnt', 'opt', 'root', 'sbin', 'srv', 'usr', 'var'];

/** The programs, and what makes each recursive (chmod's -r is "remove read", not recursive). */
const TREE_PROGRAMS: Record<string, RegExp> = {
  rm: /^-[a-zA-Z]*[rR]/,
  chmod: /^-[a-zA-Z]*R/,
  chown: /^-[a-zA-Z]*R/,
  chgrp: /^-[a-zA-Z]*R/,
};

/** What ends a simple command outside quotes: lines, ; && || | & ( ) and backquotes. */
const SEPARATORS = new Set(['\n', '\r', ';', '&', '|', '(', ')', '`']);

/**
 * Shell text cut into the simple commands it runs, at separators outside quotes: a quoted argument
 * (`grep "rm -rf /|mkfs"`) is one word, which only a shell given it as a script reads as commands. What
 * runs inside double quotes, `$(…)` and backquotes, comes after as commands of its own.
 */
function simpleCommands(text: string): string[] {
  const commands: string[] = [];
  const substituted: string[] = [];
  let quote: string | null = null;
  let start = 0;
  /** The here-documents opened on the line being read (`<<EOF`, `<<-'END'`): their bodies follow it. */
  const hereDocs: Array<{ word: string; tabs: boolean }> = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    const hereDoc = quote === null && char === '<' && text[i - 1] !== '<' ? hereDocAt(text, i) : null;
    if (char === '\\' && quote !== "'") i++;
    else if (hereDoc) {
      hereDocs.push({ word: hereDoc[3] as string, tabs: hereDoc[1] === '-' });
      i += hereDoc[0].length - 1;
    } else if (char === '\n' && hereDocs.length > 0) {
      // A body is text, not shell: its apostrophes open no quote. Its lines are read as the words
      // they hold, cut at every separator, since an unquoted one runs what it has in $(…).
      commands.push(text.slice(start, i));
      const bodyEnd = endOfHereDocs(text, i + 1, hereDocs.splice(0));
      commands.push(...text.slice(i + 1, bodyEnd).split(/[\n\r;&|()`]/));
      i = bodyEnd;
      start = i + 1;
    } else if (quote === '"' && (char === '`' || text.startsWith('$(', i))) {
      const open = char === '`' ? i + 1 : i + 2;
      const close = char === '`' ? text.indexOf('`', open) : closingParen(text, open);
      // Shell text of its own: cut at its separators too (`"$(rm -rf /;true)"`).
      substituted.push(...simpleCommands(text.slice(open, close === -1 ? text.length : close)));
      i = close === -1 ? text.length : close;
    } else if (quote !== null) quote = char === quote.at(-1) ? null : quote;
    else if (char === '"' || char === "'") quote = char;
    // $'…' takes \' as an apostrophe, so a backslash escapes there as in double quotes.
    else if (char === '$' && text[i + 1] === "'") {
      quote = "$'";
      i++;
    }
    // A comment runs to the end of its line: an apostrophe in it (`# don't`) opens no quote.
    else if (char === '#' && (i === start || /\s/.test(text[i - 1] as string))) {
      commands.push(text.slice(start, i));
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end;
      start = i + 1;
    } else if (SEPARATORS.has(char)) {
      commands.push(text.slice(start, i));
      start = i + 1;
    }
  }
  // A quote that never closes (an apostrophe in typed prose) is no shell's: the text is cut at every separator.
  if (quote !== null) return text.split(/[\n\r;&|()`]/);
  return [...commands, text.slice(start), ...substituted];
}

/** `<<WORD`, `<< 'WORD'`, `<<-"WORD"` (not `<<<`, a here-string): 1 the dash, 3 the word. */
const HERE_DOC = /<<(-?)[ \t]*(["']?)([\w.-]+)\2/y;

function hereDocAt(text: string, at: number): RegExpExecArray | null {
  HERE_DOC.lastIndex = at;
  return HERE_DOC.exec(text);
}

/** Where the bodies of `hereDocs`, starting at `from`, end: the newline after the last one's closing word, or the end. */
function endOfHereDocs(text: string, from: number, hereDocs: ReadonlyArray<{ word: string; tabs: boolean }>): number {
  let at = from;
  for (const { word, tabs } of hereDocs) {
    for (;;) {
      const newline = text.indexOf('\n', at);
      const lineEnd = newline === -1 ? text.length : newline;
      const line = text.slice(at, lineEnd).replace(/\r$/, '');
      at = lineEnd + 1;
      if ((tabs ? line.replace(/^\t+/, '') : line) === word) break;
      if (newline === -1) return text.length;
    }
  }
  return at - 1;
}

/** Where the `$(` whose text starts at `open` closes: the `)` outside quotes that its own `(`s leave; -1 if none. */
function closingParen(text: string, open: number): number {
  let quote: string | null = null;
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const char = text[i] as string;
    if (char === '\\' && quote !== "'") i++;
    else if (quote !== null) quote = char === quote ? null : quote;
    else if (char === '"' || char === "'") quote = char;
    else if (char === '(') depth++;
    else if (char === ')' && depth-- === 0) return i;
  }
  return -1;
}

/**
 * Programs that run a word they are given as shell text: `bash -c '…'`, `su -c '…'`, `eval '…'`,
 * `bash <<< '…'`, and those that hand it to a shell themselves (`watch '…'`, `script -c`, `flock … -c`).
 */
const SHELL_TEXT_RUNNERS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'busybox', 'su', 'runuser', 'eval', 'watch', 'script', 'flock']);
/** Reserved words a command can come after (`then cd build`, `do cd "$d"`, `{ cd x`, `if cd x`). */
const SHELL_KEYWORDS = new Set(['if', 'then', 'elif', 'else', 'while', 'until', 'do', '{', '!', 'time']);
/** Shell text nested deeper than this (`bash -c "sh -c '…'"` is two levels) is not read. */
const MAX_NESTING = 4;

const ANSI_C_ESCAPES: Record<string, string> = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/**
 * The text of an ANSI-C quoted word (`$'…'`, from just after its opening quote) as bash decodes it, and
 * where its closing quote is; null when it never closes. `\x72m` is `rm`, `\'` an apostrophe.
 */
function ansiCWord(text: string, from: number): { value: string; end: number } | null {
  let value = '';
  for (let i = from; i < text.length; i++) {
    const char = text[i] as string;
    if (char === "'") return { value, end: i };
    if (char !== '\\' || i + 1 >= text.length) {
      value += char;
      continue;
    }
    const next = text[++i] as string;
    const hex = next === 'x' ? /^[0-9a-fA-F]{1,2}/.exec(text.slice(i + 1)) : null;
    const octal = /^[0-7]{1,3}/.exec(text.slice(i));
    if (hex) {
      value += String.fromCharCode(parseInt(hex[0], 16));
      i += hex[0].length;
    } else if (octal) {
      value += String.fromCharCode(parseInt(octal[0], 8));
      i += octal[0].length - 1;
    } else value += ANSI_C_ESCAPES[next] ?? ('\\\'"?'.includes(next) ? next : `\\${next}`);
  }
  return null;
}

/** `command` with each ANSI-C quoted word (`$'…'`) given as the double-quoted word the shell makes of it. */
function withAnsiCDecoded(command: string): string {
  if (!command.includes("$'")) return command;
  let out = '';
  let quote: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const char = command[i] as string;
    const ansi = quote === null && char === '$' && command[i + 1] === "'" ? ansiCWord(command, i + 2) : null;
    if (ansi) {
      out += `"${ansi.value.replace(/["\\$`]/g, '\\$&')}"`;
      i = ansi.end;
      continue;
    }
    out += char;
    if (char === '\\' && quote !== "'") out += command[++i] ?? '';
    else if (quote !== null) quote = char === quote ? null : quote;
    else if (char === '"' || char === "'") quote = char;
  }
  return out;
}

/** The words of a simple command; `cut`: it was cut inside quotes, so they are only a guess. */
function words(command: string): { all: string[]; cut: boolean } {
  try {
    return { all: splitArgs(withAnsiCDecoded(command)), cut: false };
  } catch {
    // Text whose quotes never close is cut at every separator (`sh -c 'cd /tmp; rm -rf /`): a quote left over is no part of a word.
    const all = command
      .split(/\s+/)
      .map((word) => word.replace(/["']/g, ''))
      .filter((word) => word !== '');
    return { all, cut: true };
  }
}

/** Lower case: a case-insensitive file system (macOS, Windows) runs RM as rm. */
function programOf(word: string): string {
  return (word.split('/').pop() ?? '').toLowerCase();
}

/** Home as the shell expands it: `~`, `$HOME`, `${HOME}`, and `${HOME:?}`, `${HOME:-…}`, `${HOME=…}`, which give HOME when it is set. */
const HOME_PREFIX = /^(?:~|\$HOME|\$\{HOME(?::?[-=?][^}]*)?\})(?=\/|$)/;

/** A path operand with home spelled out as `~`, `..` and `.` segments resolved, slashes collapsed and trailing globs gone. */
function normalisePath(operand: string, home: string): string {
  // `..` is resolved with home expanded: ~/.. is the folder home is in.
  let path = posix.normalize(operand.replace(HOME_PREFIX, () => home));
  if (home !== '/' && (path === home || path.startsWith(`${home}/`))) path = `~${path.slice(home.length)}`;
  for (let before = ''; before !== path; ) {
    before = path;
    path = path.replace(/(?:\/\.?\*|\/\.|\/)$/, '');
  }
  return path;
}

/** Whether removing `operand` (recursively) takes the root, a top-level system folder or home with it. */
export function isWholeTree(operand: string, home = homedir()): boolean {
  const path = normalisePath(operand, home);
  return path === '' || path === '~' || SYSTEM_FOLDERS.some((folder) => path === `/${folder}`);
}

/**
 * The first simple command in `text` that removes, recursively hands over or re-permissions a whole
 * tree, as `program operand` (for the reason shown), or null. `cwd`: the folder the text runs in, as
 * execute_command's cwd is given (absolute, or from home), or null when that is not known (typed text);
 * relative operands are read from it, and from where a `cd` of the script took it.
 */
export function wholeTreeCommand(text: string, home = homedir(), cwd: string | null = null): string | null {
  return treeCommandInText(text, home, cwd === null ? null : folderOf(cwd, home, home), 0);
}

function treeCommandInText(text: string, home: string, startCwd: string | null, depth: number): string | null {
  let cwd = startCwd;
  // What echo or printf write is shell text when the text pipes into a shell (`echo 'rm -rf /' | bash`).
  const pipedShell = PIPED_INTO_SHELL.exec(blankQuoted(text))?.[1];
  // A backslash at the end of a line continues the command on the next one.
  for (const command of simpleCommands(text.replace(/\\\r?\n/g, ''))) {
    const { all, cut } = words(command);
    const name = all.findIndex((word) => !SHELL_KEYWORDS.has(word));
    // Words only guessed (a quote that never closes): where a cd among them went cannot be told.
    if (cut) cwd = null;
    else if (name !== -1 && ['cd', 'pushd'].includes(programOf(all[name] as string))) cwd = afterCd(all.slice(name + 1), cwd, home);
    const found =
      treeCommand(all, home, cwd) ??
      (depth < MAX_NESTING
        ? (nestedTreeCommand(all, home, cwd, depth) ??
          sshTreeCommand(all, home, cwd, depth) ??
          (pipedShell ? echoedTreeCommand(all, home, pipedShell === 'ssh' ? home : cwd, depth) : null))
        : null);
    if (found) return found;
  }
  return null;
}

/**
 * The folder `dir` names: absolute, from home (`~`, `$HOME`) or relative to `base`; null when that
 * cannot be told (another variable, or no known base).
 */
function folderOf(dir: string, base: string | null, home: string): string | null {
  const expanded = dir.replace(HOME_PREFIX, () => home);
  if (/[$`]/.test(expanded)) return null;
  if (expanded.startsWith('/')) return posix.normalize(expanded);
  return base === null ? null : posix.join(base, expanded);
}

/** Where `cd` or `pushd` leaves the shell: home without a folder; null when it cannot be told (`cd -`, `cd "$DIR"`). */
function afterCd(args: readonly string[], cwd: string | null, home: string): string | null {
  const target = args.find((word) => word === '-' || !word.startsWith('-')) ?? '~';
  return target === '-' ? null : folderOf(target, cwd, home);
}

/** In the shell text a shell or eval is given to run: the words after it that are more than one word. */
function nestedTreeCommand(all: readonly string[], home: string, cwd: string | null, depth: number): string | null {
  const runner = all.findIndex((word) => SHELL_TEXT_RUNNERS.has(programOf(word)));
  if (runner === -1) return null;
  for (const word of all.slice(runner + 1)) {
    const found = /\s/.test(word) ? treeCommandInText(word, home, cwd, depth + 1) : null;
    if (found) return found;
  }
  return null;
}

/** ssh, under its own name or as slogin, the name OpenSSH installs it under too (a link to ssh). */
function isSsh(word: string): boolean {
  return ['ssh', 'slogin'].includes(programOf(word));
}

/**
 * A pipe (not `||`) into a shell that reads its commands from the pipe, through sudo or env if need be:
 * `| bash`, `| sudo sh`, `| /bin/bash`, `| ssh host`. 1: the shell. Matched on text whose quotes are blanked.
 */
const PIPED_INTO_SHELL =
  /(?:^|[^|])\|&?\s*(?:(?:sudo|env|command|exec|nohup)\s+(?:-\S+\s+)*)*(?:\S*\/)?(sh|bash|dash|zsh|ksh|mksh|ash|fish|ssh)(?=\s|$|[;&|)])/;

/** `text` with what its quotes hold blanked out: a `|` or a program name in a quoted argument is no pipe. */
function blankQuoted(text: string): string {
  let out = '';
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char === '\\' && quote !== "'") {
      out += '  ';
      i++;
    } else if (quote !== null) {
      out += char === quote ? char : ' ';
      if (char === quote) quote = null;
    } else {
      if (char === '"' || char === "'") quote = char;
      out += char;
    }
  }
  return out;
}

/**
 * In an `echo …` or `printf …` whose output goes to a shell, a whole tree: what it writes (its words
 * joined, \n as a line break, as echo -e and printf write it) is read as commands run in `cwd`.
 */
function echoedTreeCommand(all: readonly string[], home: string, cwd: string | null, depth: number): string | null {
  const writer = all.findIndex((word) => ['echo', 'printf'].includes(programOf(word)));
  if (writer === -1) return null;
  const operands = all.slice(writer + 1);
  const first = operands.findIndex((word) => !/^-[neE]+$/.test(word));
  const written = (first === -1 ? [] : operands.slice(first)).join(' ').replace(/\\n/g, '\n');
  return treeCommandInText(written, home, cwd, depth + 1);
}

/**
 * ssh's options that take a value: the letters its getopt string (OpenSSH ssh.c) has a colon after.
 * The others (-4 -6 -A -a -C -f -G -g -K -k -M -N -n -q -s -T -t -V -v -X -x -Y -y) take none.
 */
const SSH_VALUE_OPTIONS = new Set('BbcDEeFIiJLlmOoPpQRSWw');
/**
 * `-o RemoteCommand=…` (or `RemoteCommand …`): the command to run there given as an option; ProxyCommand
 * and LocalCommand are shell text ssh has the user's shell run here.
 */
const COMMAND_OPTION = /^\s*(RemoteCommand|ProxyCommand|LocalCommand)\s*(?:=\s*|\s)([\s\S]*)$/i;

/**
 * The shell text `ssh [options] host [options] [command words…]` (its words after `ssh`) has run: on
 * the other machine (`remote`) the command words joined with spaces, as ssh sends them to the remote
 * shell, and any RemoteCommand option; on this one (`local`) any ProxyCommand or LocalCommand option;
 * `commandAt`, the index in `args` of the first command word, or -1 when there is none.
 * Options are read as ssh reads them: letters grouped (`-tt`, `-vp22`), a value in the same word or
 * the next, and again after the host, up to the first other word or `--`.
 */
function sshCommands(args: readonly string[]): { remote: string[]; local: string[]; commandAt: number } {
  const remote: string[] = [];
  const local: string[] = [];
  let i = 0;
  /** Reads options from `i`; true when `--` ended them. */
  const readOptions = (): boolean => {
    while (i < args.length) {
      const word = args[i] as string;
      if (word === '--') {
        i++;
        return true;
      }
      if (!word.startsWith('-') || word === '-') return false;
      i++;
      for (let at = 1; at < word.length; at++) {
        if (!SSH_VALUE_OPTIONS.has(word.charAt(at))) continue;
        const value = at + 1 < word.length ? word.slice(at + 1) : args[i++];
        const option = word.charAt(at) === 'o' && value !== undefined ? COMMAND_OPTION.exec(value) : null;
        if (option) (option[1]?.toLowerCase() === 'remotecommand' ? remote : local).push(option[2] as string);
        break;
      }
    }
    return false;
  };
  const ended = readOptions();
  if (i >= args.length) return { remote, local, commandAt: -1 };
  i++; // the host: ssh reads options again after it, unless `--` came before
  if (!ended) readOptions();
  if (i >= args.length) return { remote, local, commandAt: -1 };
  remote.push(args.slice(i).join(' '));
  return { remote, local, commandAt: i };
}

/**
 * In the shell text `ssh` has run, a whole tree. The command run on another machine is text for the
 * remote user's shell, which starts in that user's home (or in / when there is none), so a relative
 * target is read from home, spelt as this machine's home: `~` and `$HOME` are home there too. A
 * ProxyCommand or LocalCommand runs here, in the folder ssh runs in.
 */
function sshTreeCommand(all: readonly string[], home: string, cwd: string | null, depth: number): string | null {
  const ssh = all.findIndex(isSsh);
  if (ssh === -1) return null;
  const { remote, local } = sshCommands(all.slice(ssh + 1));
  for (const [text, folder] of [...remote.map((text) => [text, home] as const), ...local.map((text) => [text, cwd] as const)]) {
    const found = treeCommandInText(text, home, folder, depth + 1);
    if (found) return found;
  }
  return null;
}

/** `program operand` when the command's words remove or recursively re-own a whole tree, else null. */
function treeCommand(all: readonly string[], home: string, localCwd: string | null): string | null {
  // Wrappers (sudo, env, xargs, busybox...) come first: the program is wherever its name appears.
  const start = all.findIndex((word) => Object.hasOwn(TREE_PROGRAMS, programOf(word)));
  if (start === -1) return null;
  // Among the words ssh has the other machine run, the program runs there: the folder here says nothing of
  // where its relative targets are. A word ssh that is no such program (`find -name ssh`, `sudo -u ssh`) changes nothing.
  const remote = all.some((word, at) => {
    if (at >= start || !isSsh(word)) return false;
    const { commandAt } = sshCommands(all.slice(at + 1));
    return commandAt !== -1 && at + 1 + commandAt <= start;
  });
  const cwd = remote ? null : localCwd;
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
  const target = (namesOwner ? operands.slice(1) : operands).find((operand) =>
    isWholeTree((cwd === null ? null : folderOf(operand, cwd, home)) ?? operand, home),
  );
  return target === undefined ? null : `${program} ${target}`;
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
