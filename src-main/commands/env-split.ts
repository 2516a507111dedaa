import { splitArgs } from '../device/split-args';
import { programOf } from './shell-text';

/**
 * env's split-string option for the never-run rule (whole-tree.ts): `env -S 'rm -rf /'` runs the words
 * of its string as the program and its arguments, as if they had been written in place of the option.
 */

/** env's options that take a value, GNU's and BSD's: the letters, and the long options (`--unset NAME`). */
const VALUE_LETTERS = new Set(['u', 'C', 'S', 'P']);
const VALUE_LONG = ['--unset', '--chdir', '--split-string'];
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

/** The first env's split-string option among `all`: the words it spans (`from` to before `to`) and its string. */
function splitOption(all: readonly string[]): { from: number; to: number; value: string } | null {
  for (let env = all.findIndex(isEnv); env !== -1; env = all.findIndex((word, at) => at > env && isEnv(word))) {
    for (let i = env + 1; i < all.length; i++) {
      const word = all[i] as string;
      if (word === '--' || !word.startsWith('-') || word === '-') break;
      const long = /^(--[a-z-]+)(?:=([\s\S]*))?$/.exec(word);
      if (long) {
        // GNU env takes a long option shortened (`--split`), as long as no other starts the same.
        const name = VALUE_LONG.find((option) => (long[1] as string).length > 3 && option.startsWith(long[1] as string));
        const value = long[2] ?? (name !== undefined ? all[i + 1] : undefined);
        const to = long[2] === undefined && name !== undefined ? i + 2 : i + 1;
        if (name === '--split-string' && value !== undefined) return { from: i, to, value };
        i = to - 1;
        continue;
      }
      const letter = [...word.slice(1)].findIndex((char) => VALUE_LETTERS.has(char));
      if (letter === -1) continue;
      const rest = word.slice(letter + 2);
      const value = rest !== '' ? rest : all[i + 1];
      if (word[letter + 1] === 'S' && value !== undefined) return { from: i, to: rest !== '' ? i + 1 : i + 2, value };
      if (rest === '') i++;
    }
  }
  return null;
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
