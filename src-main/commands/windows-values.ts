import { closingParen, splitText } from './powershell-text';
import { programAt, programOf, readRemove } from './windows-commands';

/**
 * The value a PowerShell expression or a command in parentheses has, as far as the never-run rule's
 * Windows reader (windows-tree.ts) can tell without running it: a string, a variable, an array (`'x', 'C:\'`,
 * `@(…)`, read as the one of its items that takes a whole tree, if any), a cast (`[string]'C:\'`), an
 * assignment's value (`($p = 'C:\')`), the folder Get-Location gives, what Join-Path, Split-Path,
 * `[IO.Path]::Combine` and Resolve-Path make of known paths, what Write-Output writes and the items a
 * listing writes (`C:\*`). Null when it is not known.
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
const CAST = /^\[[^\]]{1,200}\](?!\s*::)\s*/;
/** `[IO.Path]::Combine(` or `::Join(`: 1 the method. */
const PATH_COMBINE = /^\[\s*(?:system\.)?io\.path\s*\]\s*::\s*(combine|join)\s*\(/i;
/** `$name = ` or `$name += ` at the start of a statement (a scope before the name or not): 1 or 2 the name, 3 `+` when it adds. */
export const ASSIGNMENT = /^\s*(?:\[[^\]]{1,200}\]\s*)*\$(?:\{([^{}]{1,200})\}|(?:(?:global|script|local|private):)?((?:env:)?[a-z_][\w]{0,200}))\s*(\+)?=(?!=)/i;

/** Expressions read inside each other deeper than this are not known: each level reads the text again. */
const MAX_DEPTH = 8;

/** The value of an expression (an assignment's right side, a group's text), or null when not known. */
export function expressionValue(text: string, reader: ValueReader, depth = 0): string | null {
  if (depth >= MAX_DEPTH) return null;
  let value = text.trim();
  for (let cast = CAST.exec(value); cast !== null; cast = CAST.exec(value)) value = value.slice(cast[0].length);
  const chained = ASSIGNMENT.exec(value);
  if (chained !== null) return expressionValue(value.slice(chained[0].length), reader, depth + 1);
  const combine = PATH_COMBINE.exec(value);
  if (combine !== null && closingParen(value, combine[0].length) === value.length - 1) {
    const parts = topLevelItems(value.slice(combine[0].length, -1)).map((part) => expressionValue(part, reader, depth + 1));
    if (parts.some((part) => part === null)) return null;
    return joinPaths(parts as string[], (combine[1] ?? '').toLowerCase() === 'combine');
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

/** What statements write (`gci C:\ | % FullName`, `$p = 'C:\'`, `'a'; 'b'`): the value each writes, picked; null when none is known. */
function statementsValue(text: string, reader: ValueReader, depth: number): string | null {
  const { pipelines } = splitText(text, 'powershell');
  const first = pipelines[0];
  if (first === undefined) return null;
  const [raw, ...rest] = first.commands;
  if (raw === undefined) return null;
  // A filter or a block that may write the items' paths after the first command keeps what it writes.
  if (!rest.every((command) => passes(reader.words(command)))) return null;
  if (pipelines.length > 1 && first.block === null) {
    return pickKnown(pipelines.map((pipeline) => (pipeline.commands.length === 1 ? expressionValue(pipeline.commands[0] as string, reader, depth + 1) : null)), reader);
  }
  if (/^\s*['"$@(\d[]/.test(raw)) return expressionValue(raw, reader, depth + 1);
  return commandValue(reader.words(raw), reader);
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
  if (program === 'split-path') return splitPathValue(args);
  return reader.listed(all);
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

/** An expression's items at its top-level commas (`'x', 'C:\'`), outside quotes, groups, brackets and blocks. */
export function topLevelItems(text: string): string[] {
  const items: string[] = [];
  let quote: string | null = null;
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char === '`' && quote !== "'") i++;
    else if (quote !== null) quote = char === quote ? null : quote;
    else if (char === "'" || char === '"') quote = char;
    else if ('([{'.includes(char)) depth++;
    else if (')]}'.includes(char)) depth = Math.max(0, depth - 1);
    else if (char === ',' && depth === 0) {
      items.push(text.slice(start, i));
      start = i + 1;
    }
  }
  items.push(text.slice(start));
  return items.map((item) => item.trim()).filter((item) => item !== '');
}
