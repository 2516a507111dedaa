import { closingParen } from './powershell-text';

/**
 * What a PowerShell script block's body is given when it runs, for the never-run rule's Windows reader
 * (windows-tree.ts) to read the body with it: each item a listing or a value pipes into ForEach-Object or
 * Where-Object (`$_`), through filters that may pass them all on, each
 * value of a foreach statement's collection, and the arguments of `& { param($p) … } C:\` or
 * `Invoke-Command { … } -ArgumentList C:\` (its parameters, `$args[0]`…).
 */

/** Variables by lower-case name, with a property or an index where one was read (`_.fullname`, `args[0]`). */
export type Bindings = Map<string, string>;

/** How the reader reads a command's words, which this module does not know. */
export interface BlockReader {
  /** The command's program, lower case, as it is called (`%`, `foreach-object`, `&` when it only runs a block). */
  program(command: readonly string[]): string;
  /** The command's words after its program. */
  args(command: readonly string[]): string[];
  /** The path of each item a listing command writes (`C:\*` for Get-ChildItem C:\), or null when it is not one that lists all of a folder. */
  listed(command: readonly string[]): string | null;
  /** Whether a command only passes on (some of) the items piped into it: Where-Object, Sort-Object, Select-Object. */
  passes(command: readonly string[]): boolean;
  /** Text cut into words, variables read. */
  words(text: string): string[];
}

const FOR_EACH = new Set(['foreach-object', '%', 'foreach']);
const INVOKERS = new Set(['invoke-command', 'icm']);
/** An item's properties that hold its path: the item, as a path. */
const PATH_PROPERTIES = ['', '.fullname', '.pspath'];
/** A foreach statement's parenthesis: its variable (1 or 2) and collection (3). */
const FOREACH_HEADER = /^\(\s*\$(?:\{([^{}]{1,200})\}|([a-z_]\w{0,200}))\s+in\s+([\s\S]*)\)$/i;

/**
 * Each way a block's body runs, as the variables it is given: one set for each item or value of a
 * loop, or for a block run with arguments; none when it is given nothing this module reads. `header`:
 * the words of the pipeline's commands before the `{`; `after`: the words after its `}`.
 */
export function blockRuns(header: readonly string[][], body: string, after: readonly string[], reader: BlockReader): Bindings[] {
  return runsOf(header, body, after, reader).filter((bindings) => bindings.size > 0);
}

function runsOf(header: readonly string[][], body: string, after: readonly string[], reader: BlockReader): Bindings[] {
  const last = header.at(-1);
  // `& { … } args` (the reader cuts the text at `&`) or `. { … } args`: a block run at once.
  const program = last === undefined ? '&' : reader.program(last);
  // A loop's or a filter's block runs with each item piped in; what filters before it pass on may be every item.
  if ((FOR_EACH.has(program) || (last !== undefined && reader.passes(last))) && header.length > 1) {
    const item = pipedItem(header, header.length - 2, reader);
    return item === null ? [] : [pathBindings(['_', 'psitem'], item)];
  }
  if (program === 'foreach' && last !== undefined && header.length === 1) return foreachRuns(reader.args(last), reader);
  if (program === '&' || program === '.') {
    const bindings = parameterBindings(body, after.filter((word) => !/^-[a-z]/i.test(word)));
    // A block in a pipeline (`gci C:\ | & { process { … } }`) runs with each item piped in.
    const item = header.length > 1 ? pipedItem(header, header.length - 2, reader) : null;
    if (item !== null) for (const [key, path] of pathBindings(['_', 'psitem', 'input'], item)) bindings.set(key, path);
    return [bindings];
  }
  if (INVOKERS.has(program) && last !== undefined) return [parameterBindings(body, argumentList([...reader.args(last), ...after]))];
  return [];
}

/**
 * The path of each item piped out of `header[at]`, past the filters there: what a listing lists, or a value
 * alone piped in (`$d | % { … }`, `'C:\' | % { … }`); null for another command.
 */
function pipedItem(header: readonly string[][], at: number, reader: BlockReader): string | null {
  while (at > 0 && reader.passes(header[at] as string[])) at--;
  const before = header[at] as string[];
  return reader.listed(before) ?? (before.length === 1 ? (before[0] as string) : null);
}

/** `names` (and their path properties) given `path`. */
export function pathBindings(names: readonly string[], path: string): Bindings {
  return new Map(names.flatMap((name) => PATH_PROPERTIES.map((property) => [`${name}${property}`, path] as const)));
}

/**
 * `foreach ($d in <collection>)`: a set for each value of an expression (`'C:\','D:\'`), or for each item
 * when the collection is a command that lists a folder (`Get-ChildItem C:\`).
 */
function foreachRuns(args: readonly string[], reader: BlockReader): Bindings[] {
  const match = FOREACH_HEADER.exec(args.join(' '));
  if (!match) return [];
  const name = (match[1] ?? match[2] ?? '').toLowerCase();
  const collection = (match[3] ?? '').trim().replace(/^[$@]?\(([\s\S]*)\)$/, '$1').trim();
  const values = reader.words(collection);
  // A bare word first is a command's name; a quote, a variable, a number or a group starts an expression.
  const expression = /^['"$@(\d]/.test(collection);
  const listed = expression || values.length === 0 ? null : reader.listed(values);
  // The same value twice is read once.
  return [...new Set(expression ? values : listed === null ? [] : [listed])].map((value) => pathBindings([name], value));
}

/** Invoke-Command's -ArgumentList (-Args, or a start of it): the values after it, up to the next parameter. */
function argumentList(args: readonly string[]): string[] {
  const at = args.findIndex((word) => /^-arg/i.test(word) && ['-argumentlist', '-args'].some((name) => name.startsWith(word.toLowerCase())));
  if (at === -1) return [];
  const rest = args.slice(at + 1);
  const end = rest.findIndex((word) => /^-[a-z]/i.test(word));
  return end === -1 ? rest : rest.slice(0, end);
}

/** A block's `param(…)` names given the positional values in order, and `$args[i]` those left after them. */
function parameterBindings(body: string, values: readonly string[]): Bindings {
  const names = [...parameterList(body).matchAll(/\$([a-z_]\w*)\s*(?=[=,)]|$)/gi)].map((name) => (name[1] ?? '').toLowerCase());
  const bindings: Bindings = new Map();
  values.forEach((value, at) => {
    const name = names[at];
    bindings.set(name === undefined ? `args[${at - names.length}]` : name, value);
  });
  return bindings;
}

/** What the `param(…)` a block starts with declares (`[string]$p = 'x', $q`), '' when it has none. */
export function parameterList(body: string): string {
  // After comments and attributes (`[CmdletBinding()]`).
  const opening = /^\s*(?:(?:#[^\n]*\n|<#[\s\S]*?#>|\[[^\]\n]*\])\s*)*param\s*\(/i.exec(body);
  if (!opening) return '';
  return `${body.slice(opening[0].length, closingParen(body, opening[0].length))})`;
}
