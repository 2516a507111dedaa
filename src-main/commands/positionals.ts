/**
 * The positional parameters ($1…, $@) the never-run rule (whole-tree.ts) knows: set on the line by
 * `set -- …` or `set word…`, moved by `shift`, or given by a call of a function defined on the line.
 * Each is its word, or null when it is computed as it runs (`$(…)`, another variable) or comes after a
 * word that may make several (a glob, a substitution): its value cannot be told.
 */
export type Positionals = ReadonlyArray<string | null>;

/** Whether a word is computed when it runs: a substitution, or a variable other than HOME, which is home. */
export function isComputed(word: string): boolean {
  return /[$`]/.test(word.replace(/\$HOME\b|\$\{HOME\}/g, ''));
}

/** Whether a word is computed, or may make several words: a glob or braces. */
function isUnsure(word: string): boolean {
  return isComputed(word) || /[*?[{},]/.test(word);
}

/** The parameters given as `words` (a call's arguments, `set`'s operands): each known until an unsure one. */
export function positionalsOf(words: readonly string[]): Positionals {
  const unsure = words.findIndex(isUnsure);
  // A glob is still read as the word it is ($1 of `set -- /*` is a tree of /*); the ones after it are not known.
  return words.map((word, at) => (unsure === -1 || at < unsure ? word : at === unsure && !isComputed(word) ? word : null));
}

/**
 * The parameters `set` (its words after the program, `args`) leaves, or undefined when it gives none
 * (`set -e`, `set -o pipefail`): its operands after its options, or after `--` or `-`.
 */
export function setByCommand(args: readonly string[]): Positionals | undefined {
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    if (word === '--' || word === '-') return positionalsOf(args.slice(i + 1));
    if (!/^[-+]/.test(word)) return positionalsOf(args.slice(i));
    // -o and +o take the option's name as the next word (`set -eo pipefail`).
    if (/^[-+][a-zA-Z]*o$/.test(word)) i++;
  }
  return undefined;
}

/** The parameters after `shift [n]` (its words after the program): null when n is not a number written out. */
export function afterShift(positionals: Positionals | null, args: readonly string[]): Positionals | null {
  const count = args[0] === undefined ? 1 : /^\d+$/.test(args[0]) ? Number(args[0]) : NaN;
  return positionals === null || Number.isNaN(count) ? null : positionals.slice(count);
}

/**
 * The value of the parameter `name` (`1`, `12`, `@`, `*`), or undefined when it cannot be told. One past
 * those given is empty; `$@` of several words is given as the braces that make each (`{a,b}`).
 */
export function positionalValue(name: string, positionals: Positionals | null): string | undefined {
  if (positionals === null) return undefined;
  if (name !== '@' && name !== '*') {
    const value = positionals[Number(name) - 1];
    return value === null ? undefined : (value ?? '');
  }
  if (positionals.some((value) => value === null || /[{},]/.test(value))) return undefined;
  return positionals.length === 1 ? (positionals[0] as string) : positionals.length === 0 ? '' : `{${positionals.join(',')}}`;
}
