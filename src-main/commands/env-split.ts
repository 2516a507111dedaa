import { splitArgs } from '../device/split-args';
import { programOf } from './shell-text';

/**
 * env's options that change what runs, for the never-run rule (whole-tree.ts): `env -S 'rm -rf /'` runs
 * the words of its string as the program and its arguments, as if they had been written in place of the
 * option, and `env -C / rm -rf *` runs the program in the folder -C names.
 */

/** env's options that take a value, GNU's and BSD's: the letters, and the long options (`--unset NAME`) with theirs. */
const VALUE_LETTERS = new Set(['u', 'C', 'S', 'P']);
const VALUE_LONG: ReadonlyArray<readonly [string, string]> = [['--unset', 'u'], ['--chdir', 'C'], ['--split-string', 'S']];
/** An `env -S` inside the string of another is read, this many deep. */
const MAX_SPLITS = 4;

/** `all` with each env's split string (`-S STR`, `-iSSTR`, `--split-string=STR`) given as the words it makes. */
export function withEnvSplit(all: readonly string[]): string[] {
  let out = [...all];
  for (let round = 0; round < MAX_SPLITS; round++) {
    const split = splitOption(out);
    if (split === null) break;
    out = [...out.slice(0, split.from), ...splitString(split.value), ...out.slice(split.to)];
  }
  return out;
}

/** An env option with a value among `all`: the words it spans (`from` to before `to`), which one, and its value. */
interface ValueOption {
  from: number;
  to: number;
  letter: string;
  value: string;
}

/** The first env's split-string option among `all`, or null. */
function splitOption(all: readonly string[]): ValueOption | null {
  return envOptions(all).find((option) => option.letter === 'S') ?? null;
}

/** The folder env's -C (--chdir) has the program run in, when `all` gives one. */
export function envFolder(all: readonly string[]): string | undefined {
  return envOptions(all).findLast((option) => option.letter === 'C')?.value;
}

/** The options with a value of each env among `all`, long ones given by their letter (`--chdir` is C). */
function envOptions(all: readonly string[]): ValueOption[] {
  const options: ValueOption[] = [];
  // The next env is looked for after the options of the last (their values are not programs): each word once.
  let i = 0;
  for (let env = all.findIndex(isEnv); env !== -1; env = nextEnv(all, Math.max(env + 1, i))) {
    for (i = env + 1; i < all.length; i++) {
      const word = all[i] as string;
      if (word === '--' || !word.startsWith('-') || word === '-') break;
      const long = /^(--[a-z-]+)(?:=([\s\S]*))?$/.exec(word);
      if (long) {
        // GNU env takes a long option shortened (`--split`), as long as no other starts the same.
        const known = VALUE_LONG.find(([option]) => (long[1] as string).length > 3 && option.startsWith(long[1] as string));
        const value = long[2] ?? (known !== undefined ? all[i + 1] : undefined);
        const to = long[2] === undefined && known !== undefined ? i + 2 : i + 1;
        if (known !== undefined && value !== undefined) options.push({ from: i, to, letter: known[1], value });
        i = to - 1;
        continue;
      }
      const letter = [...word.slice(1)].findIndex((char) => VALUE_LETTERS.has(char));
      if (letter === -1) continue;
      const rest = word.slice(letter + 2);
      const value = rest !== '' ? rest : all[i + 1];
      if (value !== undefined) options.push({ from: i, to: rest !== '' ? i + 1 : i + 2, letter: word[letter + 1] as string, value });
      if (rest === '') i++;
    }
  }
  return options;
}

function nextEnv(all: readonly string[], from: number): number {
  for (let at = from; at < all.length; at++) if (isEnv(all[at] as string)) return at;
  return -1;
}

function isEnv(word: string): boolean {
  return programOf(word) === 'env';
}

/**
 * The words env makes of a split string: quotes and backslashes as the shell reads them, `\_` (and
 * `\t`, `\n`…) outside quotes a break between words. A quote that never closes makes env fail; its
 * words are still read, cut at spaces, as a guess.
 */
function splitString(value: string): string[] {
  const spaced = value.replace(/\\[_tnrfv]/g, ' ');
  try {
    return splitArgs(spaced);
  } catch {
    return spaced.split(/\s+/).filter((word) => word !== '');
  }
}
