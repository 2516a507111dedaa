import { programOf } from './shell-text';

/**
 * The programs the never-run rule (whole-tree.ts) reads, and which of their operands each would take
 * with it. Whether an operand is a whole tree is the caller's to say (`takesWhole`), from its folder.
 */

/**
 * The programs, and what makes each recursive (chmod's -r is "remove read", not recursive): rm, the
 * owner and mode changers, and those of access lists and attributes (`setfacl -R -m u:x:--- /`,
 * `chattr -R +i /`, which leaves nothing writable).
 */
export const TREE_PROGRAMS: Record<string, RegExp> = {
  rm: /^-[a-zA-Z]*[rR]/,
  chmod: /^-[a-zA-Z]*R/,
  chown: /^-[a-zA-Z]*R/,
  chgrp: /^-[a-zA-Z]*R/,
  setfacl: /^-[a-zA-Z]*R/,
  chattr: /^-[a-zA-Z]*R/,
};

/**
 * find's words that keep everything it walks: options of the walk and actions that only print. With
 * no other test (-name, -type, -mtime…), `-delete` or an `-exec rm {}` takes all under the start.
 */
const FIND_KEEPS_ALL = new Set([
  '-depth', '-d', '-xdev', '-mount', '-noleaf', '-ignore_readdir_race', '-noignore_readdir_race', '-follow', '-daystart',
  '-print', '-print0', '-true', '-a', '-and',
]);

/**
 * `find [options] start… expression` (`args`, its words after find) read: its starting points (the
 * folder it runs in when none is given, as GNU find takes it), and whether the expression deletes
 * (`-delete`, or an `-exec`/`-execdir`/`-ok` of rm, chmod, chown or chgrp on `{}`: find does the
 * walking, so no -r is needed), runs another program, or selects what it acts on (any other test).
 */
function readFind(args: readonly string[]): { starts: string[]; deletes: boolean; runs: boolean; selects: boolean } {
  let i = 0;
  while (i < args.length && /^-(?:[HLP]|O\d|D)$/.test(args[i] as string)) i += args[i] === '-D' ? 2 : 1;
  const starts: string[] = [];
  while (i < args.length && !/^[-(!]/.test(args[i] as string)) starts.push(args[i++] as string);
  let deletes = false;
  let runs = false;
  let selects = false;
  for (; i < args.length; i++) {
    const word = args[i] as string;
    if (word === '-delete') deletes = true;
    else if (['-exec', '-execdir', '-ok', '-okdir'].includes(word)) {
      const end = args.findIndex((next, at) => at > i && (next === ';' || next === '+'));
      const command = args.slice(i + 1, end === -1 ? args.length : end);
      if (command.includes('{}') && command.some((next) => Object.hasOwn(TREE_PROGRAMS, programOf(next)) || runsOnPath(next))) deletes = true;
      else runs = true;
      i = end === -1 ? args.length : end;
    } else if (word === '-mindepth' || word === '-maxdepth') i++;
    else if (!FIND_KEEPS_ALL.has(word)) selects = true;
  }
  return { starts: starts.length === 0 ? ['.'] : starts, deletes, runs, selects };
}

/** A program of TREE_PROGRAMS by name, as a word of shell text. */
const TREE_PROGRAM_WORD = new RegExp(`(?:^|[\\s;&|/])(?:${Object.keys(TREE_PROGRAMS).join('|')})\\s`);

/**
 * Whether `word` is shell text (`sh -c 'rm -rf "$0"' {}`) that runs rm, chmod, chown or chgrp on the
 * path find hands it: `{}`, or an argument after the text (`$0`, `$1`, `$@`).
 */
function runsOnPath(word: string): boolean {
  return TREE_PROGRAM_WORD.test(word) && /\{\}|\$\{?[0-9@*]/.test(word);
}

/** The starting point `find` empties: a whole tree, when the expression deletes and selects nothing out. */
export function findTarget(args: readonly string[], takesWhole: (operand: string) => boolean): string | undefined {
  const { starts, deletes, selects } = readFind(args);
  return deletes && !selects ? starts.find(takesWhole) : undefined;
}

/** What `find` lists, for a program it pipes into (`find ~ -print0 | xargs -0 rm -rf`): its starting points, when it prints all under them. */
export function findListed(args: readonly string[]): string[] {
  const { starts, deletes, runs, selects } = readFind(args);
  return deletes || runs || selects ? [] : starts;
}

/** rsync's options whose value can be the next word; the rest take none, or theirs after `=`. */
const RSYNC_VALUE_OPTIONS = new Set([
  '-e', '-f', '-B', '-T', '-M', '--rsh', '--filter', '--exclude', '--include', '--exclude-from', '--include-from', '--files-from',
  '--temp-dir', '--backup-dir', '--compare-dest', '--copy-dest', '--link-dest', '--partial-dir', '--suffix', '--chmod', '--chown',
  '--log-file', '--password-file', '--timeout', '--bwlimit', '--max-size', '--min-size', '--max-delete', '--port', '--out-format',
  '--remote-option', '--usermap', '--groupmap', '--iconv', '--info', '--debug',
]);

/**
 * The destination `rsync … --delete src… dest` empties of all the sources do not hold (`rsync -a
 * --delete empty/ ~/` empties home): its last operand, with any --delete-… or --del option.
 */
export function rsyncTarget(args: readonly string[], takesWhole: (operand: string) => boolean): string | undefined {
  const operands: string[] = [];
  let deletes = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    if (word === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (!word.startsWith('-')) operands.push(word);
    else if (/^--del(?:ete(?:-\w+)?)?$/.test(word)) deletes = true;
    else if (RSYNC_VALUE_OPTIONS.has(word) || /^-[a-zA-Z]*[efBTM]$/.test(word)) i++;
  }
  const destination = operands.at(-1);
  return deletes && operands.length > 1 && destination !== undefined && takesWhole(destination) ? destination : undefined;
}

/**
 * The whole tree `mv` moves away: a source that is the tree itself (`mv ~ /tmp/x`, `mv /usr /usr.old`);
 * every operand but the last is a source, or each with -t DIR. Its content given as a glob (`mv ~/*
 * ~/old/`) often stays in the tree, and is not read.
 */
export function mvTarget(args: readonly string[], takesWhole: (operand: string) => boolean): string | undefined {
  const operands: string[] = [];
  let targetGiven = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    if (word === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (!word.startsWith('-') || word === '-') operands.push(word);
    else if (word.startsWith('--t') || /^-[a-zA-Z]*t/.test(word)) {
      targetGiven = true;
      // The folder is the rest of the word, after `=`, or the next word.
      if (!word.includes('=') && /^(?:--t[a-z-]*|-[a-zA-Z]*t)$/.test(word)) i++;
    } else if (word === '-S' || word === '--suffix') i++;
  }
  const sources = targetGiven ? operands : operands.slice(0, -1);
  return sources.find((operand) => !/\*$/.test(operand) && takesWhole(operand));
}
