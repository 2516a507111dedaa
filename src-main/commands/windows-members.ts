import { closingParen, topLevelItems } from './powershell-text';

/**
 * Properties and methods read from a known value, for the never-run rule's Windows reader
 * (windows-tree.ts): an item's path (`.FullName`, `.Path`, `.PSPath`), its parent folder (`.Parent`,
 * `.Directory`, `.PSParentPath`), its drive's root (`.Root`), and the string methods that only shorten or
 * rewrite a path (`.Replace(a, b)`, `.Trim()`, `.TrimEnd('\')`, `.TrimStart(…)`, `.Substring(…)`,
 * `.Remove(…)`, `.ToLower()`, `.ToUpper()`, `.ToString()`), computed when their arguments are known; and
 * the `-replace` operator with a pattern that is plain text (`'x'`, `'\\$'`). Another member, or one whose
 * arguments are not known, ends what is known.
 */

/** A member read at a position: `.Name` (1), with `(` when it is a method called (2). */
const MEMBER_AT = /\.([a-z_]\w{0,40})(\()?/iy;
/** Members read one after another past this many are not read. */
const MAX_MEMBERS = 20;
/** A value longer than this (a Replace may make one grow) is not computed further: each use would copy it again, and a path is rarely that long. */
const MAX_LENGTH = 1024;
/** .NET's white space that Trim() removes, as far as paths go. */
const WHITE_SPACE = ' \t\n\r\v\f\u00a0\u2028\u2029\ufeff';

/**
 * The value after the members read from `value` at `at` in `raw` (`.Parent.FullName`,
 * `.Replace('x', '')`), as far as they are known, and the length of the text they take; each method's
 * arguments are read by `argument` (null when not known). No member known: `value` and 0.
 */
export function memberChain(value: string, raw: string, at: number, reader: MemberReader): { value: string; length: number } {
  let current = value;
  let end = at;
  for (let read = 0; read < MAX_MEMBERS && current.length <= MAX_LENGTH; read++) {
    MEMBER_AT.lastIndex = end;
    const member = MEMBER_AT.exec(raw);
    if (member === null) break;
    const name = (member[1] ?? '').toLowerCase();
    let next: string | null;
    let past = MEMBER_AT.lastIndex;
    if (member[2] === undefined) next = propertyValue(current, name);
    else {
      const close = closingParen(raw, past);
      if (close >= raw.length) break;
      const args = topLevelItems(raw.slice(past, close)).map(reader.argument);
      next = args.some((one) => one === null) ? shortened(current, name, args, reader) : methodValue(current, name, args as string[]);
      past = close + 1;
    }
    if (next === null) break;
    current = next;
    end = past;
  }
  return { value: current, length: end - at };
}

/** How the members' arguments are read. */
export interface MemberReader {
  /** An argument's value, or null when it is not known. */
  argument(text: string): string | null;
  /** Of several values, the one a command given any of them is read with: one that takes a whole tree, if any, else the first. */
  pick(values: readonly string[]): string;
}

/** Methods that can only cut characters from a string, whatever their arguments (Replace, when with nothing). */
const SHORTENERS = new Set(['substring', 'remove', 'trim', 'trimend']);

/**
 * A method whose arguments are not all known, on `text`: one that can only cut characters from it
 * (`.Substring($i)`, `.TrimEnd($c)`, `.Replace($x, '')`) may leave any of the folders the path is in,
 * read as such (mayBeCut); null for another.
 */
function shortened(text: string, name: string, args: ReadonlyArray<string | null>, reader: MemberReader): string | null {
  const cuts = SHORTENERS.has(name) || (name === 'replace' && args.length === 2 && args[1] === '');
  return cuts ? mayBeCut(text, reader.pick) : null;
}

/** Folders above a path whose end is cut off that are read: whole trees are no deeper than this below a root. */
const CUT_FOLDERS = 4;

/**
 * What cutting an unknown part from the end of `text` may leave, as `pick` reads it: the text, or one of
 * the first folders it is in (`C:\`, `C:\Users`, `~`), each cut at a separator. A cut elsewhere (the start,
 * the middle) is not read.
 */
export function mayBeCut(text: string, pick: (values: readonly string[]) => string): string | null {
  if (text.length > MAX_LENGTH) return null;
  const folders: string[] = [];
  const separator = /[\\/]/g;
  for (let found = separator.exec(text); found !== null && folders.length < CUT_FOLDERS; found = separator.exec(text)) {
    const folder = text.slice(0, found.index);
    folders.push(folder === '' || /^[a-z]:$/i.test(folder) ? `${folder}\\` : folder);
  }
  return pick([text, ...folders]);
}

/** A property of an item with path `path`: its path, its parent's or its root's; null for another. */
function propertyValue(path: string, name: string): string | null {
  if (['fullname', 'path', 'pspath', 'providerpath'].includes(name)) return path;
  if (['parent', 'directory', 'psparentpath', 'directoryname'].includes(name)) return parentOf(path);
  // The root of a path's drive: a relative path's (`~`, `.`) is the root of the drive it is on.
  if (name === 'root') return /^[a-z]:/i.test(path) ? `${path.slice(0, 2)}\\` : /[$%(@]/.test(path) ? null : '\\';
  return null;
}

/**
 * The folder that holds `path`: cut at its last separator when it is absolute and plain, else `path\..`
 * (read from where `path` is: `~\..`, `.\..`). A root has none: null.
 */
export function parentOf(path: string): string | null {
  const trimmed = path.replace(/(?<=.)[\\/]+$/, '');
  if (/^(?:[a-z]:)?[\\/]?$/i.test(trimmed)) return null;
  const cut = Math.max(trimmed.lastIndexOf('\\'), trimmed.lastIndexOf('/'));
  const leaf = trimmed.slice(cut + 1);
  const plain = /^(?:[a-z]:)?[\\/]/i.test(trimmed) && !/[$%(@]/.test(trimmed) && !['.', '..', '~'].includes(leaf);
  if (!plain) return `${trimmed}\\..`;
  const parent = trimmed.slice(0, cut);
  // The parent of `C:\x` is `C:\`, of `\x` the root.
  return parent === '' || /^[a-z]:$/i.test(parent) ? `${parent}\\` : parent;
}

/** A string method's result with known arguments; null for another method, other arguments, or one .NET would refuse. */
function methodValue(text: string, name: string, args: readonly string[]): string | null {
  const numbers = args.map((one) => (/^\s*\d{1,9}\s*$/.test(one) ? Number(one) : null));
  const [first, second] = numbers;
  switch (name) {
    case 'tostring':
      return args.length === 0 ? text : null;
    case 'tolower':
    case 'tolowerinvariant':
      return args.length === 0 ? text.toLowerCase() : null;
    case 'toupper':
    case 'toupperinvariant':
      return args.length === 0 ? text.toUpperCase() : null;
    case 'trim':
    case 'trimstart':
    case 'trimend': {
      // Trim('\/') trims each of the characters its arguments hold; none, white space.
      const characters = args.length === 0 ? WHITE_SPACE : args.join('');
      let start = 0;
      let stop = text.length;
      if (name !== 'trimend') while (start < stop && characters.includes(text[start] as string)) start++;
      if (name !== 'trimstart') while (stop > start && characters.includes(text[stop - 1] as string)) stop--;
      return text.slice(start, stop);
    }
    case 'replace': {
      // Ordinal and case-sensitive; an empty string to replace is refused.
      const [from = '', to = ''] = args;
      return args.length === 2 && from !== '' ? text.split(from).join(to) : null;
    }
    case 'substring':
      if (first === null || first === undefined || first > text.length || args.length > 2) return null;
      if (args.length === 1) return text.slice(first);
      return second === null || second === undefined || first + second > text.length ? null : text.slice(first, first + second);
    case 'remove':
      if (first === null || first === undefined || first > text.length || args.length > 2) return null;
      if (args.length === 1) return text.slice(0, first);
      return second === null || second === undefined || first + second > text.length ? null : text.slice(0, first) + text.slice(first + second);
    default:
      return null;
  }
}

/**
 * `text -replace pattern, replacement` (`-ireplace`; `-creplace` is case-sensitive), when the pattern is
 * plain text (escaped characters, `^` first, `$` last) and the replacement uses no `$` group: null otherwise.
 */
export function replaceValue(text: string, pattern: string, replacement: string, caseSensitive: boolean): string | null {
  if (replacement.includes('$') || text.length > MAX_LENGTH) return null;
  const plain = plainPattern(pattern);
  if (plain === null) return null;
  const { literal, start, end } = plain;
  const fold = (one: string) => (caseSensitive ? one : one.toLowerCase());
  const folded = fold(text);
  // A letter whose lower case is longer would move the indexes.
  if (folded.length !== text.length || fold(literal).length !== literal.length) return null;
  const wanted = fold(literal);
  if (start || end) {
    const at = start ? 0 : text.length - literal.length;
    const matches = at >= 0 && folded.startsWith(wanted, at) && (!start || !end || literal.length === text.length);
    return matches ? text.slice(0, at) + replacement + text.slice(at + literal.length) : text;
  }
  if (wanted === '') return null;
  let result = '';
  let from = 0;
  for (let found = folded.indexOf(wanted); found !== -1; found = folded.indexOf(wanted, from)) {
    result += text.slice(from, found) + replacement;
    from = found + wanted.length;
  }
  return result + text.slice(from);
}

/** A regular expression's text when it only matches itself: its characters, and whether it is anchored at the start or the end; null otherwise. */
function plainPattern(pattern: string): { literal: string; start: boolean; end: boolean } | null {
  let literal = '';
  let start = false;
  let end = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    if (char === '\\') {
      const next = pattern[i + 1];
      // `\d`, `\b`, `\1`: a class, an anchor or a reference.
      if (next === undefined || /[\w\s]/.test(next)) return null;
      literal += next;
      i++;
    } else if (char === '^' && i === 0) start = true;
    else if (char === '$' && i === pattern.length - 1) end = true;
    else if ('.[](){}*+?|^$'.includes(char)) return null;
    else literal += char;
  }
  return { literal, start, end };
}
