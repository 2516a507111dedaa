import { type Shell, SHELL_KEYWORDS } from './shell-scope';
import type { Step } from './shell-steps';
import { programOf } from './shell-text';

/**
 * Which values in a command's words may be empty where it runs, for the never-run rule (whole-tree.ts):
 * a variable the line does not set or a command's output may be (`rm -rf "$DIR"/*` is `rm -rf /*` then),
 * unless a test just before showed it is not (`[ -n "$DIR" ] && …`), and `"$(pwd)"` never is.
 */

/** Variables the shell sets itself, never empty. */
const ALWAYS_SET = 'HOME|PWD|USER|LOGNAME|UID|EUID|PPID|RANDOM|SECONDS|LINENO|SHLVL|BASHPID|HOSTNAME';
/**
 * A value the line does not tell, that may be empty where the command runs: a variable not set on the
 * line (`$X`, `${X}`, `${X%/}`; a `while read d` line may be blank), or a command's output (`$(…)`,
 * backquotes: `$(mktemp -d)` is nothing when mktemp fails). Not those the shell always sets (HOME,
 * PWD…), numbers (`$$`, `$#`, `${#X}`), `${X:?}`, which stops the command when X is empty or unset,
 * nor the positional parameters ($1…), which a call, `sh -c '…' _ a` or xargs gives.
 */
const MAY_BE_EMPTY = new RegExp(
  [
    `\\$\\{(?!(?:${ALWAYS_SET})[}:%#/])(?![^}]*:\\?)!?[A-Za-z_][^}]*\\}`, // ${X}, ${X%/}, ${!X}; not ${#X}, ${HOME}, ${X:?}
    '\\$\\((?:[^()]|\\([^()]*\\))*\\)', // $(…), one level of parentheses inside
    '`[^`]*`',
    `\\$(?!(?:${ALWAYS_SET})\\b)[A-Za-z_]\\w*`, // $X
  ].join('|'),
  'g',
);

/**
 * `word` with each value MAY_BE_EMPTY empty, as the command runs when it is (`"$DIR"/*` is `/*`), or
 * null when it has none: removing `$DIR/` with DIR unset or empty takes the root.
 */
export function emptied(word: string, outputs = true, notEmpty: ReadonlySet<string> = NO_GUARD.names): string | null {
  if (!word.includes('$') && !word.includes('`')) return null;
  // `outputs`: a command's output is read as empty too. `notEmpty`: variables a test showed are not.
  const out = word.replace(MAY_BE_EMPTY, (value) => {
    if (!outputs && /^(?:\$\(|`)/.test(value)) return value;
    const name = /^\$\{?([A-Za-z_]\w*)/.exec(value)?.[1];
    return name !== undefined && notEmpty.has(name) ? value : '';
  });
  return out === word ? null : out;
}

/** Whether the substitution that starts at `at` (`enter`) holds one command, `pwd`. */
export function isLonePwd(steps: readonly Step[], at: number): boolean {
  const inner = steps[at + 1];
  return typeof inner === 'object' && steps[at + 2] === 'leave' && /^\s*pwd(?:\s+-[LP])?\s*$/.test(inner.command);
}

/**
 * `written` with each `$()` (a substitution in quotes, whose commands were read on their own) that is a
 * lone `pwd` given as `$PWD`, when the substitutions read before the command are as many as its `$()`,
 * in the same order; else as written.
 */
export function withPwd(written: string[], substitutions: ReadonlyArray<{ pwd: boolean }>): string[] {
  if (!substitutions.some((one) => one.pwd)) return written;
  const count = written.reduce((sum, word) => sum + (word.match(/\$\(\)/g)?.length ?? 0), 0);
  if (count !== substitutions.length) return written;
  let next = 0;
  return written.map((word) => word.replace(/\$\(\)/g, (output) => (substitutions[next++]?.pwd ? '$PWD' : output)));
}

/** The variables a test showed are not empty: when it succeeded (`[ -n "$X" ]`, `[ -d "$X" ]`), when it failed (`[ -z "$X" ]`). */
export interface Tested {
  ifTrue: readonly string[];
  ifFalse: readonly string[];
  /** The command starts its and-or list, or comes after `&&` only (or `||` only): a `&&` (`||`) after it runs only as it says. */
  allAnd: boolean;
  allOr: boolean;
}
export const NOT_TESTED: Tested = { ifTrue: [], ifFalse: [], allAnd: false, allOr: false };

/**
 * A test of one variable alone: `[ -n "$X" ]`, `test -d "$X"`, `[[ -e $X ]]` (after `if`, `elif`…); in
 * `[` and test the variable must be quoted, since `[ -n $X ]` of an empty X is `[ -n ]`, which is true.
 * 1 the operator, 2 the name; or 3, 4 for `[[`.
 */
const TEST =
  /^\s*(?:(?:if|elif|then|do|while|until|!|\{)\s+)*(?:(?:\[|test)\s+(-[a-zA-Z])\s+"\$(?:([A-Za-z_]\w*)|\{([A-Za-z_]\w*)\})"(?:\s+\])?|\[\[\s+(-[a-zA-Z])\s+"?\$(?:([A-Za-z_]\w*)|\{([A-Za-z_]\w*)\})"?\s+\]\])\s*$/;

/** Tests whose success says the operand is not empty: -n and the tests of a file. */
const NOT_EMPTY_IF_TRUE = new Set(['-n', '-a', '-b', '-c', '-d', '-e', '-f', '-g', '-h', '-k', '-p', '-r', '-s', '-u', '-w', '-x', '-G', '-L', '-N', '-O', '-S']);

/**
 * What `command` tests, `since` the command before (which tested `before`): in a list that begins with
 * it, or after `&&` (`||`) only: `a || [ -n "$X" ] && rm …` runs rm when a succeeded, the test not run.
 */
export function testedOf(command: string, since: readonly Step[], before: Tested): Tested {
  const match = TEST.exec(command);
  if (match === null || since.includes('!')) return NOT_TESTED;
  const op = match[1] ?? match[4];
  const name = match[2] ?? match[3] ?? match[5] ?? match[6];
  if (op === undefined || name === undefined || ALWAYS_SET.split('|').includes(name)) return NOT_TESTED;
  const starts = !since.includes('&&') && !since.includes('||');
  const allAnd = starts || (before.allAnd && since.length === 1 && since[0] === '&&');
  const allOr = starts || (before.allOr && since.length === 1 && since[0] === '||');
  if (op === '-z') return { ifTrue: [], ifFalse: [name], allAnd, allOr };
  return NOT_EMPTY_IF_TRUE.has(op) ? { ifTrue: [name], ifFalse: [], allAnd, allOr } : NOT_TESTED;
}

/** Variables a command runs with as known not empty, and how it came to be guarded. */
export interface Guard {
  names: ReadonlySet<string>;
  /** Guarded as a then branch's command, which those after it in the branch are too. */
  inThen: boolean;
  /** Guarded after `&&`s only (or a then): a `&&` after it goes on guarded. */
  anded: boolean;
}
export const NO_GUARD: Guard = { names: new Set(), inThen: false, anded: false };

/** How many variables one guard holds (the last tested): a chain of thousands of tests is read in linear time. */
const MAX_GUARDED = 8;

/** Programs that may set any variable: the guard ends there. */
const SETS_ANY = new Set(['eval', 'source', '.']);

/**
 * The variables the command about to run, whose words are `written`, is known to run with not empty:
 * `since` the test before it, only a `&&` (`[ -n "$X" ] && rm -rf "$X"/*`), a `||` after `-z`, or a
 * `then` came, a group's `{` or `(` after it; the guard goes on past `&&`, and past `;` in a then
 * branch. A command that may set one (`X=`, `read X`, a function, eval) ends it for those after.
 */
export function guarded(since: readonly Step[], tested: Tested, before: Guard): Guard {
  let end = since.length;
  while (end > 0 && (since[end - 1] === '{' || since[end - 1] === 'open')) end--;
  const markers = since.slice(0, end);
  const only = (...expected: Step[]) => markers.length === expected.length && markers.every((marker, at) => marker === expected[at]);
  let guard: Guard = NO_GUARD;
  const kept = before.anded ? [...before.names] : [];
  if (only('&&')) guard = { names: new Set([...kept, ...(tested.allAnd ? tested.ifTrue : [])].slice(-MAX_GUARDED)), inThen: before.inThen && before.anded, anded: true };
  else if (only('||')) guard = { names: new Set(tested.allOr ? tested.ifFalse : []), inThen: false, anded: false };
  else if (only('then') || only(';', 'then')) guard = { names: new Set(tested.allAnd ? tested.ifTrue : []), inThen: true, anded: true };
  else if (only(';') && before.inThen) guard = before;
  return guard.names.size === 0 ? NO_GUARD : guard;
}

/** `guard` without the variables a command of words `written` may set: all of them when it calls a function, an alias or eval. */
export function unsetBy(guard: Guard, written: readonly string[], shell: Shell): Guard {
  if (guard.names.size === 0) return guard;
  const program = written.find((word) => !SHELL_KEYWORDS.has(word)) ?? '';
  if (SETS_ANY.has(programOf(program)) || shell.functions.body(program) !== undefined || shell.aliases.get(program) !== undefined) return NO_GUARD;
  // Named other than as its value (`X=`, `read X`, `((X=0))`), or given a default (`${X:=}`).
  const sets = (name: string, word: string) => new RegExp(`(?<![$\\w{])${name}(?!\\w)|\\{${name}:?=`).test(word);
  const names = [...guard.names].filter((name) => !written.some((word) => sets(name, word)));
  return names.length === guard.names.size ? guard : { ...guard, names: new Set(names) };
}
