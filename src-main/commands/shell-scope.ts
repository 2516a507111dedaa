import { posix } from 'node:path';
import { LineFunctions } from './line-functions';
import { expandParameters } from './parameter-expansion';
import { afterShift, isComputed, type Positionals, positionalValue, setByCommand } from './positionals';
import { ScopedMap } from './scoped-map';
import { printfAssignment } from './written-text';

/**
 * What a shell knows as the never-run rule (whole-tree.ts) reads its text: the folder it is in, the
 * variables, positional parameters and aliases set so far, and the functions defined; and each word
 * with the values it knows given.
 */

/** Reserved words a command can come after (`then cd build`, `do cd "$d"`, `{ cd x`, `if cd x`). */
export const SHELL_KEYWORDS = new Set(['if', 'then', 'elif', 'else', 'while', 'until', 'do', '{', '!', 'time']);
/** What one shell knows as it reads its text: where it is, its variables and parameters, its functions. */
export interface Shell {
  cwd: string | null;
  variables: ScopedMap<string>;
  positionals: Positionals | null;
  /** The folders pushd left, for popd to go back to, the last first. */
  pushed: Pushed;
  functions: LineFunctions;
  /** The aliases defined (`alias x='…'`): their text is read in place of their name. */
  aliases: ScopedMap<string>;
  /** The functions and aliases being read, outermost first (`function:f`, `alias:ls`). */
  calls: readonly string[];
  /**
   * The way the text was read to here ends before it (`exit`, `return`, `exec prog`): what follows runs
   * only by another way (`cd x || exit; …`), or, if none, is read as if it ran, where the shell was.
   */
  ended: boolean;
}

/** A shell that has learnt nothing yet, in `cwd`, given `positionals` ($1…) if any. */
export function newShell(cwd: string | null, positionals: Positionals | null = null): Shell {
  return { cwd, variables: new ScopedMap(), positionals, pushed: null, functions: new LineFunctions(), aliases: new ScopedMap(), calls: [], ended: false };
}

/** A stack of folders that is never changed, only added to: a subshell keeps the one it started with at no cost. */
export type Pushed = { readonly folder: string | null; readonly below: Pushed } | null;

/** What a shell knows when a subshell starts, to go back to at its end. */
export interface Snapshot {
  cwd: string | null;
  positionals: Positionals | null;
  pushed: Pushed;
  ended: boolean;
  variables: number;
  aliases: number;
  functions: number;
}

export function snapshotOf(shell: Shell): Snapshot {
  const { cwd, positionals, pushed, ended } = shell;
  return { cwd, positionals, pushed, ended, variables: shell.variables.mark(), aliases: shell.aliases.mark(), functions: shell.functions.mark() };
}

/** Takes the shell back to `snapshot`: a subshell's folder, variables, parameters, aliases and functions end with it. */
export function restore(shell: Shell, snapshot: Snapshot): void {
  shell.cwd = snapshot.cwd;
  shell.positionals = snapshot.positionals;
  shell.pushed = snapshot.pushed;
  shell.ended = snapshot.ended;
  shell.variables.rollback(snapshot.variables);
  shell.aliases.rollback(snapshot.aliases);
  shell.functions.rollback(snapshot.functions);
}

/**
 * Learns what a command sets: variables (assign, `printf -v`, and `for d` walking $@), the positional
 * parameters `set` gives and `shift` moves, and aliases. `mayNotRun`: the command may never run (it is
 * in a function's body being defined). `skippable`: the command may be skipped (after `&&` or `||`, in
 * a branch or a loop: shell-flow.ts), as may one after a reserved word (`then d=/tmp`, `do d=…`): a
 * variable it sets holds either value, a default it sets is set; the parameters `set` gives are taken.
 */
export function learn(all: readonly string[], shell: Shell, mayNotRun = false, defaults: ReadonlyArray<readonly [string, string]> = [], skippable = false): void {
  const program = all.findIndex((word) => !SHELL_KEYWORDS.has(word) && word !== 'builtin');
  // After a reserved word (`then : "${X:=/}"`, `{ d=/tmp`) the command is read as one that may be
  // skipped: a default it sets is still set, the value before (if known) kept as one it may have.
  const mayNotBeSet = mayNotRun;
  const skipped = skippable || program > 0;
  // What `${X:=…}` set as the words were expanded: one not known before stays so if this may not run.
  // One that may only be skipped is taken as set (`true && : "${X:=/}"`): its value is the one it had
  // before (known: either), or the default's.
  for (const [name, value] of defaults) {
    if (!mayNotBeSet && !skipped) setOrForget(shell.variables, name, value);
    else if (!mayNotBeSet || shell.variables.get(name) !== undefined) setOrKeep(shell.variables, name, value);
  }
  const perhaps = mayNotBeSet || skipped;
  assign(all, shell.variables, perhaps);
  const printed = printfAssignment(all);
  if (printed) (perhaps ? setOrKeep : setOrForget)(shell.variables, printed.name, printed.value);
  // In a body being defined, set and shift would change the parameters of the function when called, not the line's.
  if (all[program] === 'set') shell.positionals = (mayNotRun ? undefined : setByCommand(all.slice(program + 1))) ?? shell.positionals;
  else if (all[program] === 'shift') shell.positionals = mayNotRun ? shell.positionals : afterShift(shell.positionals, all.slice(program + 1));
  else if (all[program] === 'for' && all.length === 2 && /^[A-Za-z_]\w*$/.test(all[1] as string)) {
    // `for d; do`, with no `in`: the loop walks $@. Given none, or none known, it may not run at all, and
    // the variable keeps its value (`d=/; for d; do …; done; rm -rf "$d"` removes /).
    const walked = positionalValue('@', shell.positionals);
    if (walked !== undefined && walked !== '') (perhaps ? setOrKeep : setOrForget)(shell.variables, all[1] as string, walked);
  } else if (all[program] === 'unset' || all[program] === 'read') {
    // Unset, or read from input: not known, which a default may then take the place of (`${X:-/}`).
    // Either may also leave the value as it was: read's input cannot be opened (`read X < missing`),
    // the variable is readonly, or the word is an option's value (`read -p X Y`), so a value known
    // before stays one it may have.
    // An unset one is empty: one not known before is then that or (readonly) still not known.
    const args = all.slice(program + 1);
    if (!args.includes('-f')) {
      for (const name of args.filter((word) => /^[A-Za-z_]\w*$/.test(word))) {
        if (all[program] === 'unset' && shell.variables.get(name) === undefined) shell.variables.set(name, `{\u2039${name}\u203a,}`);
        else forget(shell.variables, name, true);
      }
    }
  } else if (all[program] === 'alias') {
    for (const word of all.slice(program + 1)) {
      const [, name, text] = /^([^=\s/$`'"]+)=([\s\S]*)$/.exec(word) ?? [];
      if (name !== undefined && text !== undefined) shell.aliases.set(name, text);
    }
  }
}

/**
 * `word` with the variables and positional parameters set earlier in the text given their values, $PWD
 * the folder it runs in when known, and $USER or $LOGNAME the name home is under (`/home/$USER` is home);
 * with a default or an alternate (`${X:-/}`), each value it may have. `assign` learns what `${X:=…}` sets.
 */
export function withVariables(word: string, shell: Shell, home: string, assign?: (name: string, value: string) => void): string {
  return expandParameters(
    word,
    (name) => {
      // $0, the shell's name (`sh -c '…' NAME`), is kept with the variables: a call does not change it.
      const known = /^[1-9@*]/.test(name) ? positionalValue(name, shell.positionals) : shell.variables.get(name);
      if (known !== undefined) return known;
      if (name === 'PWD' && shell.cwd !== null) return shell.cwd;
      return name === 'USER' || name === 'LOGNAME' ? posix.basename(home) : undefined;
    },
    assign,
  );
}

/** A word that is all the positional parameters, one word each: `$@`, `${@}`, `$*` (quoted or not). */
const ALL_POSITIONALS = /^\$(?:[@*]|\{[@*]\})$/;

/**
 * The words of a command with what the shell knows given (withVariables); `"$@"` standing alone makes
 * the parameters' words, as the shell passes them (`set -- -rf /; rm "$@"` runs `rm -rf /`). `afford`
 * is asked for the characters of each such expansion first: null when it refuses one. What `${X:=…}`
 * sets is added to `defaults`, for learn.
 */
export function expandedWords(
  written: readonly string[],
  shell: Shell,
  home: string,
  afford: (characters: number) => boolean,
  defaults: Array<readonly [string, string]> = [],
): string[] | null {
  const { positionals } = shell;
  const known = positionals !== null && positionals.every((value) => value !== null) ? (positionals as readonly string[]) : null;
  const size = known === null ? 0 : known.reduce((sum, word) => sum + word.length + 1, 0);
  const out: string[] = [];
  for (const word of written) {
    if (known === null || !ALL_POSITIONALS.test(word)) out.push(withVariables(word, shell, home, (name, value) => defaults.push([name, value])));
    else if (!afford(size)) return null;
    else for (const value of known) out.push(value);
  }
  return out;
}

/**
 * Records the variables a command of assignments only sets (`d=/`, `export D=~ E=x`) or a for loop
 * walks (`for d in / ~`); one given a value computed when it runs (`d=$(pwd)`) is forgotten, so a value
 * set before is not taken for it. An assignment before a program (`d=/ rm -rf $d`) sets it for that
 * program only, after its words are expanded.
 */
function assign(all: readonly string[], variables: ScopedMap<string>, perhaps: boolean): void {
  // `for d in / ~`: the loop's variable takes each word, given as braces (`{/,~}`) that make each of them.
  if (all[0] === 'for' && all[2] === 'in' && /^[A-Za-z_]\w*$/.test(all[1] ?? '')) {
    // A word of braces (`{a,b}`, `${X:-/}` not known) makes each of its words: all are kept, nested.
    const known = all.slice(3).filter((word) => !isComputed(word));
    if (known.length === 0) variables.delete(all[1] as string);
    else variables.set(all[1] as string, known.length === 1 ? (known[0] as string) : `{${known.join(',')}}`);
    return;
  }
  // After a reserved word (`{ d=/`, `then d=/`), as at the start.
  const start = Math.max(0, all.findIndex((word) => !SHELL_KEYWORDS.has(word)));
  const first = start + (['export', 'local', 'readonly', 'declare', 'typeset'].includes(all[start] ?? '') ? 1 : 0);
  const assignments = all.slice(first).map((word) => /^([A-Za-z_]\w*)=([\s\S]*)$/.exec(word));
  if (all.length <= first || assignments.some((match) => match === null)) return;
  // `local` holds only until its function returns: after it the variable has its value from before again.
  const set = perhaps || all[start] === 'local' ? setOrKeep : setOrForget;
  for (const match of assignments) {
    const [, name = '', value = ''] = match ?? [];
    set(variables, name, value);
  }
}

/**
 * An assignment that may not run, or not for the rest of the line (`if …; then d=/tmp; fi`, `local`):
 * a variable known before holds either value, given as the braces that make each (`{/,/tmp}`); a
 * value computed as it runs leaves it as it was, which it may still be.
 */
function setOrKeep(variables: ScopedMap<string>, name: string, given: string): void {
  const before = variables.get(name);
  if (before === undefined) return setOrForget(variables, name, given);
  // `${HOME}` is written `$HOME`, so the braces that make either value read it as one word.
  const value = given.replace(/\$\{([A-Za-z_]\w*)\}(?!\w)/g, '$$$1');
  if (isComputed(value) || before === value) return;
  const known = /^\{[^{}]*\}$/.test(before) ? before.slice(1, -1).split(',') : [before];
  variables.set(name, `{${[...new Set([...known, value])].join(',')}}`);
}

/** Forgets a variable; one known that may not be forgotten may be empty too, one not known stays so. */
function forget(variables: ScopedMap<string>, name: string, perhaps: boolean): void {
  if (!perhaps) variables.delete(name);
  else if (variables.get(name) !== undefined) setOrKeep(variables, name, '');
}

/** Sets a variable to `value`, or forgets it when the value is computed as it runs. */
function setOrForget(variables: ScopedMap<string>, name: string, value: string): void {
  if (isComputed(value)) variables.delete(name);
  else variables.set(name, value);
}

