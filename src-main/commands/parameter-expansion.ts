/**
 * Parameter expansion as the never-run rule (whole-tree.ts) reads it: `$X`, `${X}`, `$1`, `$@`, and
 * the forms with a default or an alternate (`${X:-/}`, `${X=/}`, `${X:+/}`, `${X:?}`, nested:
 * `${X:-${Y:-/}}`), and a known value with a pattern taken off (`${X%/*}`). A parameter whose value
 * cannot be told keeps its use (`$X`); one with a default may be either, given as the braces that make
 * each (`{‹X›,/}`), where `‹X›` stands for the value not known: a target that may be a whole tree is
 * read as one.
 */

/** A parameter's value, or undefined when it cannot be told. A value `{a,b}` is either of its options. */
export type Lookup = (name: string) => string | undefined;

/** The characters that stand around a parameter's name for its value not known (`‹X›`): no path is read from it. */
export const UNKNOWN = /[\u2039\u203a]/;

/**
 * What a blank inside `${…}` outside quotes is given as before the command is cut into words
 * (shell-text.ts), which would cut `${X:-/ x}` in two: the default then makes each of its words.
 */
export const SPLIT = '\u0001';

/**
 * After `${`: 1 `!` (the value of the variable X names), 2 the name, 3 an array's subscript, 4 the
 * operator if one comes (`:-`, `-`, `:=`, `=`, `:+`, `+`, `:?`, `?`, and `%`, `%%`, `#`, `##`, which
 * take a pattern off the value's end or start).
 */
const BRACED = /(!?)([A-Za-z_]\w*|\d+|[@*])(\[[^\]]*\])?(:?[-=+?]|%%?|##?)?/y;
const BARE = /[A-Za-z_]\w*|[0-9@*]/y;

interface Frame {
  /** What opened it as written (`${X:-`), for one that never closes. */
  opening: string;
  name: string;
  /** Named through another (`${!X}`) or an array's item (`${a[0]}`): its value is not known. */
  indirect: boolean;
  /** The operator, or null for a `${…}` of another form (`${#X}`, `${X/a/b}`), kept as written. */
  op: string | null;
  out: string;
  /** Whether `out` was cut at a SPLIT (given as a comma: `out` is then the options of braces). */
  split: boolean;
}

/**
 * `word` with each parameter use given what `lookup` knows; `assign` learns what `${X:=…}` and
 * `${X=…}` set. One pass, its nesting kept on a stack of its own: a word of many nested defaults
 * takes no more time, and no more of the call stack, than its length.
 */
export function expandParameters(word: string, lookup: Lookup, assign: (name: string, value: string) => void = () => undefined): string {
  if (!word.includes('$')) return word;
  const stack: Frame[] = [];
  let out = '';
  // Noted as the SPLIT comes, not looked for at the end: a search at each of many nested defaults
  // would read their text again and again.
  let split = false;
  for (let i = 0; i < word.length; i++) {
    const char = word[i] as string;
    if (char === '$' && word[i + 1] === '{') {
      BRACED.lastIndex = i + 2;
      const match = BRACED.exec(word);
      const name = match?.[2] ?? '';
      const indirect = match?.[1] === '!' || match?.[3] !== undefined;
      const after = i + 2 + (match?.[0].length ?? 0);
      if (match && match[4] === undefined && word[after] === '}') {
        out += (indirect ? undefined : lookup(name)) ?? word.slice(i, after + 1);
        i = after;
        continue;
      }
      const op = match?.[4] ?? null;
      const opening = op === null ? '${' : word.slice(i, after);
      stack.push({ opening, name, indirect, op, out, split });
      out = '';
      split = false;
      i += opening.length - 1;
    } else if (char === '$') {
      BARE.lastIndex = i + 1;
      const name = BARE.exec(word)?.[0];
      if (name === undefined) out += char;
      else {
        out += lookup(name) ?? `$${name}`;
        i += name.length;
      }
    } else if (char === '}' && stack.length > 0) {
      const frame = stack.pop() as Frame;
      const { op } = frame;
      const asWritten = `${frame.opening}${out}}`;
      // Another form, or a pattern taken off a value not known, is kept as written, its SPLITs with it.
      let value: string;
      if (op === null) value = asWritten;
      else if (/^[%#]/.test(op)) value = trimmed(frame.indirect ? undefined : lookup(frame.name), op, out) ?? asWritten;
      else value = operated({ name: frame.name, op }, out, split, frame.indirect ? () => undefined : lookup, frame.indirect ? () => undefined : assign);
      out = frame.out + value;
      split = frame.split;
    } else if (char === SPLIT && takesWord(stack.at(-1))) {
      // Outside quotes a default of several words (`${X:-/ x}`) makes each, any of which may be a target.
      out += ',';
      split = true;
    } else out += char;
  }
  // `${` that never closes is kept as written.
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) out = frame.out + frame.opening + out;
  return out.replaceAll(SPLIT, ' ');
}

/** Whether a SPLIT in `frame`'s text cuts it into words: in a default or an alternate, not in another form. */
function takesWord(frame: Frame | undefined): boolean {
  return frame?.op !== undefined && frame.op !== null && !/^[%#]/.test(frame.op);
}

/** The value of `${name<op>word}`, `word` expanded: each value the parameter may have, with `word` where the operator gives it. */
function operated(
  { name, op }: { name: string; op: string },
  written: string,
  split: boolean,
  lookup: Lookup,
  assign: (name: string, value: string) => void,
): string {
  // Cut into words, it is braces that make each (assigned too: the value may be any of them).
  const word = split ? `{${written}}` : written;
  const value = lookup(name);
  const colon = op.startsWith(':');
  const kind = op.at(-1) as string;
  // HOME is home when not set on the line, set and not empty: kept as written, which reads as home.
  if (value === undefined && name === 'HOME') return kind === '+' ? word : split ? '$HOME' : `\${HOME${op}${word}}`;
  if (value === undefined) {
    // `${X:?}` stops the command when X is unset or empty: kept, so that the value is read as not empty.
    if (kind === '?') return colon ? `\${${name}:?}` : `\${${name}}`;
    // `${X:-}`, the `set -u` idiom: said to be possibly unset or empty (`rm -rf "${X:-}/"` may be rm -rf /).
    if ((kind === '-' || kind === '=') && word === '') return `{\u2039${name}\u203a,}`;
    if (kind === '+') return `{,${word}}`;
    if (kind === '=') assign(name, `{\u2039${name}\u203a,${word}}`);
    return `{\u2039${name}\u203a,${word}}`;
  }
  const options = /^\{[^{}]*,[^{}]*\}$/.test(value) ? value.slice(1, -1).split(',') : [value];
  const empty = (option: string) => colon && option === '';
  let given: string[];
  if (kind === '+') given = options.map((option) => (empty(option) ? '' : word));
  else if (kind === '?') given = options.filter((option) => !empty(option));
  else given = options.map((option) => (empty(option) ? word : option));
  const unique = [...new Set(given)];
  const result = unique.length <= 1 ? (unique[0] ?? '') : `{${unique.join(',')}}`;
  if (kind === '=' && result !== value) assign(name, result);
  return result;
}

/** Values and patterns longer than this are not matched (each end is tried): the value is taken as not known. */
const MAX_TRIMMED = 128;
/** Patterns with more `*` than this are not matched: each would backtrack on each end tried. */
const MAX_STARS = 3;

/**
 * `${X%pattern}` (`%%`, `#`, `##`) of each value X is known to have: the shortest (longest) end
 * (start) the pattern matches taken off. Undefined when X is not known or too long to match.
 */
function trimmed(value: string | undefined, op: string, pattern: string): string | undefined {
  const matcher = value === undefined || value.length > MAX_TRIMMED || pattern.length > MAX_TRIMMED ? null : patternMatcher(pattern);
  if (matcher === null || value === undefined) return undefined;
  const options = /^\{[^{}]*,[^{}]*\}$/.test(value) ? value.slice(1, -1).split(',') : [value];
  const results = options.map((option) => {
    const ends = Array.from({ length: option.length + 1 }, (_, k) => k);
    // From the end: the shortest end first for %, the longest for %%; from the start the other way round.
    const order = op === '%' || op === '##' ? ends.reverse() : ends;
    const cut = order.find((k) => matcher.test(op.startsWith('%') ? option.slice(k) : option.slice(0, k)));
    return cut === undefined ? option : op.startsWith('%') ? option.slice(0, cut) : option.slice(cut);
  });
  const unique = [...new Set(results)];
  return unique.length === 1 ? unique[0] : `{${unique.join(',')}}`;
}

/** A shell pattern (`*`, `?`, `[…]`) as a regular expression of the whole text; null when it holds what cannot be told (`$`). */
function patternMatcher(written: string): RegExp | null {
  // In double quotes the pattern's single quotes (and `$'…'`) still quote, as bash reads them
  // (`"${X%'ab'}"` takes ab off); the shell's reading of the word has left them in.
  const pattern = written.replace(/\$'(?=[^'\\]*')/g, "'");
  if (/[$`]/.test(pattern) || UNKNOWN.test(pattern)) return null;
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    const close = char === '[' ? pattern.indexOf(']', i + 2) : -1;
    const quoteEnd = char === "'" ? pattern.indexOf("'", i + 1) : -1;
    if (quoteEnd !== -1) {
      source += pattern.slice(i + 1, quoteEnd).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      i = quoteEnd;
    } else if (char === '*') {
      // A run of * matches what one does; one pattern with many would backtrack on each end tried.
      if (!source.endsWith('[\\s\\S]*')) source += '[\\s\\S]*';
    } else if (char === '?') source += '[\\s\\S]';
    else if (close !== -1) {
      const body = pattern.slice(i + 1, close).replace(/^[!^]/, '^').replace(/[\\\]]/g, '\\$&');
      source += `[${body}]`;
      i = close;
    } else source += (char === '\\' ? (pattern[++i] ?? '') : char).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  if ((source.match(/\[\\s\\S\]\*/g) ?? []).length > MAX_STARS) return null;
  try {
    return new RegExp(`^(?:${source})$`);
  } catch {
    return null;
  }
}
