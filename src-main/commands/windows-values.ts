import { closingParen, splitText, topLevelItems } from './powershell-text';
import { mayBeCut, replaceValue } from './windows-members';
import { programAt, programOf, readRemove } from './windows-commands';

/**
 * The value a PowerShell expression or a command in parentheses has, as far as the never-run rule's
 * Windows reader (windows-tree.ts) can tell without running it: a string, a variable, an array (`'x', 'C:\'`,
 * `@(…)`, read as the one of its items that takes a whole tree, if any), a cast (`[string]'C:\'`), an
 * assignment's value (`($p = 'C:\')`), strings joined with `+` or filled by `-f`, the folder Get-Location
 * gives, what Join-Path, Split-Path, Resolve-Path and .NET's path methods (`[IO.Path]::Combine`,
 * `GetPathRoot`, `GetDirectoryName`, `[Environment]::GetFolderPath`) make of known values, what
 * Write-Output writes and the items a listing writes (`C:\*`). Null when it is not known.
 */

/** How the reader reads words, listings and paths, which this module does not know. */
export interface ValueReader {
  /** Text cut into words, variables read. */
  words(text: string): string[];
  /** The path of each item a listing command writes (`C:\*`), or null. */
  listed(command: readonly string[]): string | null;
  /** The folder the text runs in, or null when not known. */
  cwd: string | null;
  /** Of several values, the one a command given any of them is read with: one that takes a whole tree, if any. */
  pick(values: readonly string[]): string;
}

/** A type cast before a value (`[string]`, `[object[]]`), not a type whose static member follows (`[IO.Path]::`). */
const CAST = /^\[(?:[^[\]]|\[[^[\]]{0,100}\]){1,200}\](?!\s*::)\s*/;
/** `[IO.Path]::Combine(`, `[Environment]::GetFolderPath(`: 1 the type past `System.`, 2 the method. */
const STATIC_CALL = /^\[\s*(?:system\.)?(io\.path|environment|io\.directory|io\.directoryinfo)\s*\]\s*::\s*([a-z]{1,40})\s*\(/i;
/** The folders `[Environment]::GetFolderPath` names that are whole trees, by lower-case name. */
const SPECIAL_FOLDERS: ReadonlyMap<string, string> = new Map([
  ['userprofile', '~'], ['windows', 'C:\\Windows'], ['programfiles', 'C:\\Program Files'], ['programfilesx86', 'C:\\Program Files (x86)'],
  ['commonapplicationdata', 'C:\\ProgramData'],
]);
/** `$name = ` or `$name += ` at the start of a statement (a scope before the name or not): 1 or 2 the name, 3 `+` when it adds. */
export const ASSIGNMENT = /^\s*(?:\[(?:[^[\]]|\[[^[\]]{0,100}\]){1,200}\]\s*)*\$(?:\{([^{}]{1,200})\}|(?:(?:global|script|local|private):)?((?:env:)?[a-z_][\w]{0,200}))\s*(\+)?=(?!=)/i;

/** Groups read for their value inside each other (a group in a group's words) deeper than this are not known: each level reads the text again. */
const MAX_GROUPS = 4;
let evaluating = 0;

/** The value of a group's text (`(Join-Path C:\ *)`, `$(gci C:\)`); null when not known, or when it still holds a variable. */
export function knownGroupValue(inner: string, reader: ValueReader): string | null {
  if (evaluating >= MAX_GROUPS) return null;
  evaluating++;
  try {
    const value = expressionValue(inner, reader);
    return value === null || /\$[\w{(]/.test(value) ? null : value;
  } finally {
    evaluating--;
  }
}

/** Expressions read inside each other are not known: each level reads the text again. */
const MAX_DEPTH = 8;

/** The value of an expression (an assignment's right side, a group's text), or null when not known. */
export function expressionValue(text: string, reader: ValueReader, depth = 0): string | null {
  if (depth >= MAX_DEPTH) return null;
  let value = text.trim();
  for (let cast = CAST.exec(value); cast !== null; cast = CAST.exec(value)) value = value.slice(cast[0].length);
  const chained = ASSIGNMENT.exec(value);
  if (chained !== null) return expressionValue(value.slice(chained[0].length), reader, depth + 1);
  // A value piped on (`$HOME | Split-Path`) is what the pipeline writes.
  if (topLevelItems(value, pipeAt).length > 1) return statementsValue(value, reader, depth + 1);
  // -replace binds least of these, then `+`, then -f, then the comma; a command's words (`Write-Output a + b`) are no expression.
  const expression = /^['"$@([\d]/.test(value);
  const replaced = expression ? replacements(value) : null;
  if (replaced !== null) return replacedValue(replaced, reader, depth + 1);
  const sum = expression ? topLevelItems(value, plusAt) : [];
  if (sum.length > 1) return sumValue(sum, reader, depth + 1);
  const format = expression ? topLevelItems(value, formatAt) : [];
  if (format.length === 2) return formatValue(format[0] as string, format[1] as string, reader, depth + 1);
  const call = STATIC_CALL.exec(value);
  if (call !== null && closingParen(value, call[0].length) === value.length - 1) {
    const parts = topLevelItems(value.slice(call[0].length, -1)).map((part) => expressionValue(part, reader, depth + 1));
    return parts.some((part) => part === null) ? null : staticValue((call[1] ?? '').toLowerCase(), (call[2] ?? '').toLowerCase(), parts as string[], reader);
  }
  const items = topLevelItems(value);
  if (items.length > 1) return pickKnown(items.map((item) => expressionValue(item, reader, depth + 1)), reader);
  const group = /^[$@]?\(/.exec(value);
  if (group !== null && closingParen(value, group[0].length) === value.length - 1) return statementsValue(value.slice(group[0].length, -1), reader, depth + 1);
  if (value === '') return null;
  // A bare word first is a command's name (a drive, `C:\`, is a path).
  if (/^[a-z]/i.test(value) && !/^[a-z]:/i.test(value)) return statementsValue(value, reader, depth + 1);
  const all = reader.words(value);
  return all.length === 1 ? (all[0] as string) : null;
}

/** What .NET's path methods give of known arguments; null for another method or type. */
function staticValue(type: string, method: string, args: readonly string[], reader: ValueReader): string | null {
  const [first = ''] = args;
  if (type === 'io.path' && (method === 'combine' || method === 'join')) return joinPaths(args, method === 'combine');
  if (type === 'io.path' && method === 'getfullpath') return first;
  if (type === 'io.path' && method === 'getpathroot') return /^[a-z]:/i.test(first) ? `${first.slice(0, 2)}\\` : /^[\\/]/.test(first) ? '\\' : null;
  if ((type === 'io.path' && method === 'getdirectoryname') || (type === 'io.directory' && method === 'getparent')) return splitPathValue([first]);
  if (type === 'io.directory' && method === 'getcurrentdirectory') return reader.cwd;
  // `[IO.DirectoryInfo]::new('C:\')`: the folder's item, read as its path.
  if (type === 'io.directoryinfo' && method === 'new') return args.length === 1 ? first : null;
  if (type === 'environment' && method === 'getenvironmentvariable') return variableValue(`env:${first}`, reader);
  // `'UserProfile'` or `[Environment+SpecialFolder]::UserProfile`.
  if (type === 'environment' && method === 'getfolderpath') return SPECIAL_FOLDERS.get(first.split(/[:\s]/).pop()?.toLowerCase() ?? '') ?? null;
  return null;
}

/** A variable's value by its name (`p`, `env:USERPROFILE`), or null when not known. */
function variableValue(name: string, reader: ValueReader): string | null {
  if (!/^(?:env:)?[\w()]{1,200}$/i.test(name)) return null;
  const value = reader.words(`\${${name}}`)[0];
  return value === undefined || value.startsWith('$') ? null : value;
}

/** `a + b`: the values joined, when all are known; an array first (`@(…) + 'C:\'`) may be any of its items too. */
function sumValue(parts: readonly string[], reader: ValueReader, depth: number): string | null {
  const values = parts.map((part) => expressionValue(part, reader, depth));
  if (values.some((value) => value === null)) return null;
  const joined = values.join('');
  return /^[@,]/.test(parts[0] as string) ? reader.pick([joined, ...(values as string[])]) : joined;
}

/** `'{0}\{1}' -f 'C:', 'x'`: the format filled with the known values; null when a value it uses is not known. */
function formatValue(format: string, list: string, reader: ValueReader, depth: number): string | null {
  const pattern = expressionValue(format, reader, depth);
  const values = topLevelItems(list).map((item) => expressionValue(item, reader, depth));
  if (pattern === null) return null;
  let known = true;
  const filled = pattern.replace(/\{(\d{1,3})(?:[,:][^}]{0,40})?\}/g, (_, at: string) => {
    const value = values[Number(at)];
    if (value === null || value === undefined) known = false;
    return value ?? '';
  });
  return known ? filled : null;
}

/** `-replace`, `-ireplace`, `-creplace` at `at`, outside a word: 1 the `c` of the case-sensitive one. */
const REPLACE_AT = /(?<![\w-])-([ic]?)replace(?![\w-])/iy;

/** `a -replace 'x', 'y' -creplace …`: the value replaced (first) and each operator's operands, with whether it is case-sensitive; null when none is used. */
function replacements(text: string): Array<{ operands: string; caseSensitive: boolean }> | null {
  if (!/replace/i.test(text)) return null;
  const sensitive: boolean[] = [];
  const parts = topLevelItems(text, (all, at) => {
    if (all[at] !== '-') return 0;
    REPLACE_AT.lastIndex = at;
    const match = REPLACE_AT.exec(all);
    if (match === null) return 0;
    sensitive[at] = (match[1] ?? '').toLowerCase() === 'c';
    return match[0].length;
  });
  const flags = sensitive.flatMap((one, at) => (one === undefined ? [] : [{ at, one }])).map(({ one }) => one);
  if (flags.length === 0 || parts.length !== flags.length + 1) return null;
  return parts.map((operands, at) => ({ operands, caseSensitive: at === 0 ? false : (flags[at - 1] as boolean) }));
}

/**
 * The value first replaced by each operator in turn (windows-members.ts), when all is known; with a
 * pattern not known or not plain text and nothing to replace it with, what cutting its end may leave.
 */
function replacedValue(parts: ReadonlyArray<{ operands: string; caseSensitive: boolean }>, reader: ValueReader, depth: number): string | null {
  const [first, ...rest] = parts;
  let value = first === undefined ? null : expressionValue(first.operands, reader, depth);
  for (const { operands, caseSensitive } of rest) {
    if (value === null) return null;
    const [pattern, replacement = "''", ...more] = topLevelItems(operands);
    const from = pattern === undefined || more.length > 0 ? null : expressionValue(pattern, reader, depth);
    const to = expressionValue(replacement, reader, depth);
    const replaced = from === null || to === null ? null : replaceValue(value, from, to, caseSensitive);
    // A pattern not read, replaced by nothing, only cuts characters: it may leave a folder the path is in.
    value = replaced ?? (to === '' ? mayBeCut(value, reader.pick) : null);
  }
  return value;
}

/** A `|` at `at` that pipes (not `||`): its length, or 0. */
function pipeAt(text: string, at: number): number {
  return text[at] === '|' && text[at + 1] !== '|' && text[at - 1] !== '|' ? 1 : 0;
}

/** A `+` at `at` that adds (not `++` or `+=`): its length, or 0. */
function plusAt(text: string, at: number): number {
  return text[at] === '+' && text[at + 1] !== '+' && text[at + 1] !== '=' && text[at - 1] !== '+' ? 1 : 0;
}

/** The format operator ` -f ` at `at`: its length, or 0. */
function formatAt(text: string, at: number): number {
  return /\s/.test(text[at] ?? '') && /^\s-f\s/i.test(text.slice(at, at + 4)) ? 3 : 0;
}

/** What statements write (`gci C:\ | % FullName`, `$p = 'C:\'`, `'a'; 'b'`): the value each writes, picked; null when none is known. */
function statementsValue(text: string, reader: ValueReader, depth: number): string | null {
  const { pipelines } = splitText(text, 'powershell');
  const first = pipelines[0];
  if (first === undefined) return null;
  const [raw, ...rest] = first.commands;
  if (raw === undefined) return null;
  if (pipelines.length > 1 && first.block === null && rest.length === 0) {
    return pickKnown(pipelines.map((pipeline) => (pipeline.commands.length === 1 ? expressionValue(pipeline.commands[0] as string, reader, depth + 1) : null)), reader);
  }
  let value = /^\s*['"$@(\d[]/.test(raw) ? expressionValue(raw, reader, depth + 1) : commandValue(reader.words(raw), reader);
  for (const command of rest) {
    if (value === null) return null;
    const all = reader.words(command);
    // A filter or a block that may write the items' paths keeps what it is given; another command known here is given it as its path (`$HOME | Split-Path`).
    if (!passes(all)) value = commandValue([...all, value], reader);
  }
  return value;
}

/** Filters after a command that may pass on all it writes, or the items' paths. */
const PASSERS = new Set(['foreach-object', '%', 'where-object', 'where', '?', 'sort-object', 'sort', 'select-object', 'select', 'get-unique', 'gu', 'write-output', 'echo', 'write', 'out-default', 'tee-object', 'tee']);

function passes(command: readonly string[]): boolean {
  return PASSERS.has(programOf(command[programAt(command)] ?? ''));
}

/** What a command writes, when it is one this module knows and its operands are known; null otherwise. */
export function commandValue(all: readonly string[], reader: ValueReader): string | null {
  const at = programAt(all);
  const program = programOf(all[at] ?? '');
  const args = all.slice(at + 1);
  if (['get-location', 'gl', 'pwd'].includes(program)) return reader.cwd;
  if (['write-output', 'echo', 'write'].includes(program)) return args.length === 0 ? null : reader.pick(args.filter((word) => !/^-[a-z]/i.test(word)));
  if (['resolve-path', 'rvpa', 'convert-path', 'cvpa'].includes(program)) return readRemove(args).operands[0] ?? null;
  if (program === 'join-path') return joinPathValue(args);
  if (['get-variable', 'gv'].includes(program) && args.some((word) => /^-v/i.test(word))) {
    const name = args.find((word, i) => !word.startsWith('-') && (i === 0 || !/^-n/i.test(args[i - 1] as string))) ?? args[args.findIndex((word) => /^-n/i.test(word)) + 1];
    return name === undefined ? null : variableValue(name, reader);
  }
  if (program === 'split-path') return splitPathValue(args);
  if (program === 'new-object') return newObjectValue(args);
  return reader.listed(all);
}

/** `New-Object [-TypeName] IO.DirectoryInfo [-ArgumentList] C:\`: the folder's item, read as its path; null for another type. */
function newObjectValue(args: readonly string[]): string | null {
  let type: string | undefined;
  let list: string | undefined;
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    const name = /^-([a-z]+)(?::([\s\S]*))?$/i.exec(word);
    if (name === null) positional.push(word);
    else if ('typename'.startsWith((name[1] ?? '').toLowerCase())) type = name[2] ?? args[++i];
    else if (['argumentlist', 'args'].some((one) => one.startsWith((name[1] ?? '').toLowerCase()))) list = name[2] ?? args[++i];
    else return null;
  }
  type ??= positional.shift();
  list ??= positional.shift();
  return /^(?:system\.)?io\.directoryinfo$/i.test(type ?? '') && list !== undefined && positional.length === 0 ? list : null;
}

/** Join-Path's path and child paths (named or in order), joined with a backslash. */
function joinPathValue(args: readonly string[]): string | null {
  const named = new Map<string, string>();
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    const name = /^-([a-z]+)(?::([\s\S]*))?$/i.exec(word);
    if (name === null) {
      positional.push(word);
      continue;
    }
    const parameter = (name[1] ?? '').toLowerCase();
    if (['resolve', 'relative'].some((flag) => flag.startsWith(parameter))) continue;
    const value = name[2] ?? args[++i];
    if (value !== undefined) named.set(['path', 'childpath', 'additionalchildpath'].find((one) => one.startsWith(parameter)) ?? parameter, value);
  }
  const path = named.get('path') ?? positional.shift();
  const child = named.get('childpath') ?? positional.shift();
  if (path === undefined || child === undefined) return null;
  return joinPaths([path, child, ...(named.has('additionalchildpath') ? [named.get('additionalchildpath') as string] : []), ...positional], false);
}

/** Paths joined with one backslash between each; for Combine, a rooted one starts the result again. */
function joinPaths(parts: readonly string[], combine: boolean): string {
  let joined = '';
  for (const part of parts) {
    if (combine && /^(?:[a-z]:)?[\\/]/i.test(part)) joined = part;
    else joined = joined === '' ? part : `${joined.replace(/[\\/]+$/, '')}\\${part.replace(/^[\\/]+/, '')}`;
  }
  return joined;
}

/** What Split-Path gives of a path: its parent (by default), its leaf, its drive (-Qualifier) or the rest (-NoQualifier). */
function splitPathValue(args: readonly string[]): string | null {
  let part = 'parent';
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    if (!/^-[a-z]/i.test(word)) {
      operands.push(word);
      continue;
    }
    const name = word.slice(1).split(':')[0]?.toLowerCase() ?? '';
    if (['path', 'literalpath', 'lp', 'pspath'].some((one) => one.startsWith(name) && name.length > 1)) {
      const value = word.includes(':') ? word.slice(word.indexOf(':') + 1) : args[++i];
      if (value !== undefined) operands.push(value);
    } else {
      const found = ['parent', 'leaf', 'leafbase', 'extension', 'qualifier', 'noqualifier', 'isabsolute', 'resolve'].find((one) => one === name) ?? ['parent', 'leaf', 'qualifier', 'noqualifier'].find((one) => one.startsWith(name));
      if (found !== undefined && found !== 'resolve') part = found;
    }
  }
  const path = operands[0];
  if (path === undefined || ['extension', 'isabsolute', 'leafbase'].includes(part)) return null;
  const drive = /^[a-z]:/i.exec(path)?.[0] ?? '';
  if (part === 'qualifier') return drive === '' ? null : drive;
  if (part === 'noqualifier') return path.slice(drive.length);
  const trimmed = path.replace(/(?<=.)[\\/]+$/, '');
  const cut = Math.max(trimmed.lastIndexOf('\\'), trimmed.lastIndexOf('/'));
  if (part === 'leaf') return trimmed.slice(cut + 1);
  if (cut === -1) return null;
  const parent = trimmed.slice(0, cut);
  // The parent of `C:\x` is `C:\`, of `\x` the root.
  return parent === '' || /^[a-z]:$/i.test(parent) ? `${parent}\\` : parent;
}

/** Of values, those known: the one `pick` picks; null when none is known. */
function pickKnown(values: ReadonlyArray<string | null>, reader: ValueReader): string | null {
  const known = values.filter((value): value is string => value !== null);
  return known.length === 0 ? null : reader.pick(known);
}
