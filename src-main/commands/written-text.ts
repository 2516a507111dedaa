import { programOf } from './shell-text';

/**
 * The text a command writes out, for the never-run rule (whole-tree.ts) to read where it goes: into a
 * shell, xargs, or a file the line runs. echo's words, printf's format filled with its arguments, or the
 * here-string cat or tee is given, each as they write it (echo and a here-string end with a line break).
 */

/** printf's conversions (`%s`, `%-10.3d`, `%b`…) and `%%`. */
const CONVERSION = /%(?:%|[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*)?)?[a-zA-Z])/g;
/**
 * printf fills its format again while arguments are left; past this many rounds, or this many characters
 * written, the arguments left fill one more.
 */
const MAX_ROUNDS = 64;
const MAX_FILLED = 8_192;

/** What `echo …`, `printf …`, or cat or tee given a here-string (`cat <<< '…'`) write; null for another program. */
export function writtenText(all: readonly string[]): string | null {
  const writer = all.findIndex((word) => ['echo', 'printf'].includes(programOf(word)));
  if (writer === -1) return hereStringOf(all);
  const operands = all.slice(writer + 1);
  return programOf(all[writer] as string) === 'printf' ? printfText(operands) : echoText(operands);
}

/** echo's words joined, \n as a line break as echo -e writes it, and a line break after unless -n. */
function echoText(operands: readonly string[]): string {
  const first = operands.findIndex((word) => !/^-[neE]+$/.test(word));
  const options = first === -1 ? operands : operands.slice(0, first);
  const text = (first === -1 ? [] : operands.slice(first)).join(' ').replace(/\\n/g, '\n');
  return options.some((option) => option.includes('n')) ? text : `${text}\n`;
}

/** What printf writes: its format filled with its arguments. */
function printfText(operands: readonly string[]): string {
  if (operands[0] === '-v') return ''; // printf -v NAME assigns the text to a variable: nothing is written
  return filledFormat(operands[0] === '--' ? operands.slice(1) : operands);
}

/** The variable `printf -v NAME format args…` (`all`, the command's words) sets, and its value; null for another command. */
export function printfAssignment(all: readonly string[]): { name: string; value: string } | null {
  const printf = all.findIndex((word) => programOf(word) === 'printf');
  const name = all[printf + 2];
  if (printf === -1 || all[printf + 1] !== '-v' || name === undefined) return null;
  return { name, value: filledFormat(all.slice(printf + (all[printf + 3] === '--' ? 4 : 3))) };
}

/**
 * printf's `format args…`, each conversion given the next argument (`printf 'rm -rf %s\n' /`), again while
 * arguments are left. Past MAX_ROUNDS or MAX_FILLED, one last round is given all those left as braces
 * (`{a,b}`), which the rule reads as each of them, so that many arguments cannot make the text long; as
 * in a for loop's braces, one holding a brace or a comma is left out.
 */
function filledFormat(operands: readonly string[]): string {
  const [format = '', ...args] = operands;
  const template = format.replace(/\\n/g, '\n');
  let out = '';
  let next = 0;
  for (let round = 0; round < MAX_ROUNDS && out.length < MAX_FILLED; round++) {
    const before = next;
    out += template.replace(CONVERSION, (conversion) => (conversion === '%%' ? '%' : (args[next++] ?? '')));
    if (next === before || next >= args.length) return out;
  }
  const rest = args.slice(next).filter((arg) => !/[,{}]/.test(arg));
  return out + foldedRound(template, rest.length === 1 ? (rest[0] as string) : `{${rest.join(',')}}`);
}

/**
 * The format with the first conversion of each of its words given `all` (the arguments left, as braces),
 * and any other in the same word nothing: braces after braces in one word would make each of the one's
 * words a copy of the other's, too many to read.
 */
function foldedRound(template: string, all: string): string {
  return template.replace(/\S+/g, (word) => {
    let given = false;
    return word.replace(CONVERSION, (conversion) => {
      if (conversion === '%%') return '%';
      if (given) return '';
      given = true;
      return all;
    });
  });
}

/** The here-string (`<<< '…'`, `<<<'…'`) given to cat or tee among `all`, with the line break the shell adds; or null. */
export function hereStringOf(all: readonly string[]): string | null {
  const copier = all.findIndex((word) => ['cat', 'tee'].includes(programOf(word)));
  if (copier === -1) return null;
  const at = all.findIndex((word, index) => index > copier && word.startsWith('<<<'));
  const word = all[at];
  const text = word === undefined ? undefined : word === '<<<' ? all[at + 1] : word.slice(3);
  return text === undefined ? null : `${text}\n`;
}
