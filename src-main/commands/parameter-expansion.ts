/**
 * Parameter expansion as the never-run rule (whole-tree.ts) reads it: `$X`, `${X}`, `$1`, `$@`, and
 * the forms with a default or an alternate (`${X:-/}`, `${X=/}`, `${X:+/}`, `${X:?}`, nested:
 * `${X:-${Y:-/}}`). A parameter whose value cannot be told keeps its use (`$X`); one with a default
 * may be either, given as the braces that make each (`{‹X›,/}`), where `‹X›` stands for the value not
 * known: a target that may be a whole tree is read as one.
 */

/** A parameter's value, or undefined when it cannot be told. A value `{a,b}` is either of its options. */
export type Lookup = (name: string) => string | undefined;

/** The characters that stand around a parameter's name for its value not known (`‹X›`): no path is read from it. */
export const UNKNOWN = /[\u2039\u203a]/;

/** After `${`: the name, and the operator if one comes (`:-`, `-`, `:=`, `=`, `:+`, `+`, `:?`, `?`). */
const BRACED = /([A-Za-z_]\w*|\d+|[@*])(:?[-=+?])?/y;
const BARE = /[A-Za-z_]\w*|[0-9@*]/y;

interface Frame {
  /** What opened it as written (`${X:-`), for one that never closes. */
  opening: string;
  name: string;
  /** The operator, or null for a `${…}` of another form (`${#X}`, `${X%/*}`), kept as written. */
  op: string | null;
  out: string;
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
  for (let i = 0; i < word.length; i++) {
    const char = word[i] as string;
    if (char === '$' && word[i + 1] === '{') {
      BRACED.lastIndex = i + 2;
      const match = BRACED.exec(word);
      const name = match?.[1] ?? '';
      const after = i + 2 + (match?.[0].length ?? 0);
      if (match && match[2] === undefined && word[after] === '}') {
        out += lookup(name) ?? `\${${name}}`;
        i = after;
        continue;
      }
      const op = match?.[2] ?? null;
      const opening = op === null ? '${' : word.slice(i, after);
      stack.push({ opening, name, op, out });
      out = '';
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
      const value = frame.op === null ? `${frame.opening}${out}}` : operated(frame.name, frame.op, out, lookup, assign);
      out = frame.out + value;
    } else out += char;
  }
  // `${` that never closes is kept as written.
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) out = frame.out + frame.opening + out;
  return out;
}

/** The value of `${name<op>word}`, `word` expanded: each value the parameter may have, with `word` where the operator gives it. */
function operated(name: string, op: string, word: string, lookup: Lookup, assign: (name: string, value: string) => void): string {
  const value = lookup(name);
  const colon = op.startsWith(':');
  const kind = op.at(-1) as string;
  // HOME is home when not set on the line, set and not empty: kept as written, which reads as home.
  if (value === undefined && name === 'HOME') return kind === '+' ? word : `\${HOME${op}${word}}`;
  if (value === undefined) {
    if (kind === '?' || ((kind === '-' || kind === '=') && word === '')) return `\${${name}}`;
    if (kind === '+') return `{,${word}}`;
    const either = `{\u2039${name}\u203a,${word}}`;
    if (kind === '=') assign(name, either);
    return either;
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
