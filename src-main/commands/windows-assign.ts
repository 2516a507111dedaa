import { splitText, topLevelItems } from './powershell-text';
import { programAt, programOf } from './windows-commands';
import { ASSIGNMENT, expressionValue, type ValueReader } from './windows-values';

/**
 * What PowerShell variables the text sets, for the never-run rule's Windows reader (windows-tree.ts):
 * `$p = value` (a cast before it, `$a = $b = value` and `$p += value` too), Set-Variable and New-Variable,
 * and a hashtable (`@{ Path = 'C:\'; Recurse = $true }`, `[ordered]@{ … }`) to be splatted (`@p`). A value
 * that is not known (windows-values.ts) makes the variable not known.
 */

/** A variable's properties and items that hold its value as a path: what is known of them goes with it. */
const PROPERTIES = ['', '.fullname', '.pspath', '[*]'];

/** ASSIGNMENT where the one before it ended (`$a = $b = …`), read in one pass. */
const NEXT_ASSIGNMENT = new RegExp(ASSIGNMENT.source.slice(1), 'iy');

/** Records the value `raw` assigns to each variable it names; the text after the assignments (a value or a command), or null when `raw` assigns nothing. */
export function assignValue(raw: string, variables: Map<string, string>, reader: ValueReader): string | null {
  const names: Array<{ name: string; adds: boolean }> = [];
  let at = 0;
  NEXT_ASSIGNMENT.lastIndex = 0;
  for (let match = NEXT_ASSIGNMENT.exec(raw); match !== null; match = NEXT_ASSIGNMENT.exec(raw)) {
    names.push({ name: (match[1] ?? match[2] ?? '').toLowerCase(), adds: match[3] === '+' });
    at = NEXT_ASSIGNMENT.lastIndex;
  }
  if (names.length === 0) return null;
  const rest = raw.slice(at);
  const value = rest.trim() === '' ? null : expressionValue(rest, reader);
  for (const { name, adds } of names) {
    const old = variables.get(name);
    // `+=` adds to a string or to an array's items: the result may be either, or what was there.
    const values = adds ? [...(value === null ? [] : [value, ...(old === undefined ? [] : [`${old}${value}`])]), ...(old === undefined ? [] : [old])] : value === null ? [] : [value];
    setVariable(name, values.length === 0 ? null : reader.pick(values), variables);
  }
  return rest;
}

/** Records `name` as holding `value` (its path properties and items too), or as not known. */
export function setVariable(name: string, value: string | null, variables: Map<string, string>): void {
  variables.delete(`@${name}`);
  for (const property of PROPERTIES) {
    if (value === null) variables.delete(`${name}${property}`);
    else variables.set(`${name}${property}`, value);
  }
}

const VARIABLE_SETTERS = new Set(['set-variable', 'sv', 'new-variable', 'nv']);
/** Their parameters that take a value other than the name and the value. */
const OTHER_VALUES = ['-scope', '-option', '-description', '-visibility', '-include', '-exclude'];

/** Records the variable a Set-Variable or New-Variable command (`set` in PowerShell) sets; whether it is one. */
export function setVariableCommand(all: readonly string[], variables: Map<string, string>, reader: ValueReader): boolean {
  const at = programAt(all);
  const program = programOf(all[at] ?? '');
  if (!VARIABLE_SETTERS.has(program) && program !== 'set') return false;
  let name: string | undefined;
  let value: string[] | undefined;
  const positional: string[] = [];
  const args = all.slice(at + 1);
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    const colon = word.indexOf(':');
    const parameter = (colon === -1 ? word : word.slice(0, colon)).toLowerCase();
    const given = colon === -1 ? undefined : word.slice(colon + 1);
    if (!/^-[a-z]/i.test(word)) positional.push(word);
    else if (parameter.length > 1 && '-name'.startsWith(parameter)) name = given ?? args[++i];
    else if (parameter.length > 2 && '-value'.startsWith(parameter)) {
      // An array's items come as words, up to the next parameter.
      value = given === undefined ? [] : [given];
      while (given === undefined && i + 1 < args.length && !/^-[a-z]/i.test(args[i + 1] as string)) value.push(args[++i] as string);
    } else if (given === undefined && OTHER_VALUES.some((other) => parameter.length > 2 && other.startsWith(parameter))) i++;
  }
  name ??= positional.shift();
  value ??= positional;
  if (name !== undefined) setVariable(name.toLowerCase(), value.length === 0 ? null : reader.pick(value), variables);
  return true;
}

/** `$p = @{`, `$p = [ordered]@{`, `$o = [pscustomobject]@{` before a block: 1 or 2 the variable's name. */
const HASHTABLE_ASSIGNMENT = /^\s*(?:\[(?:[^[\]]|\[[^[\]]{0,100}\]){1,200}\]\s*)*\$(?:\{([^{}]{1,200})\}|(?:(?:global|script|local|private):)?([a-z_]\w{0,200}))\s*=\s*(?:\[(?:[^[\]]|\[[^[\]]{0,100}\]){1,200}\]\s*)?@\s*$/i;
/** A hashtable's entry: 1, 2 or 3 its key, 4 its value. */
const ENTRY = /^\s*(?:'([^']{1,200})'|"([^"]{1,200})"|([a-z_][\w-]{0,200}))\s*=([\s\S]*)$/i;

/**
 * Records the hashtable the command before a block's `{` sets (`$p = @{`) as the words splatting it gives
 * (`-Path:C:\ -Recurse:$true`, under `@p`), each value read as an expression (an unknown one as written,
 * so `Recurse = $r` may recurse); whether the command sets one.
 */
export function assignHashtable(owner: string, body: string, variables: Map<string, string>, reader: ValueReader): boolean {
  const match = HASHTABLE_ASSIGNMENT.exec(owner);
  if (match === null) return false;
  let entries: string[] = [];
  for (const pipeline of splitText(body, 'powershell').pipelines) {
    for (const raw of pipeline.commands) {
      const entry = ENTRY.exec(raw);
      if (entry === null) continue;
      const key = entry[1] ?? entry[2] ?? entry[3] ?? '';
      entries = withEntry(entries, key, expressionValue(entry[4] ?? '', reader) ?? (entry[4] ?? '').trim(), reader);
    }
  }
  const name = (match[1] ?? match[2] ?? '').toLowerCase();
  // Piped on (`$o | Remove-Item`, which takes its Path), the table or object may give any of its values; `$o.Path` is its entry.
  const values = entries.map((entry) => entry.slice(entry.indexOf(':') + 1));
  setVariable(name, values.length === 0 ? null : reader.pick(values), variables);
  for (const entry of entries) variables.set(`${name}.${entry.slice(1, entry.indexOf(':')).toLowerCase()}`, entry.slice(entry.indexOf(':') + 1));
  variables.set(`@${name}`, entries.join('\0'));
  return true;
}

/** The parameters (or starts of them) a hashtable splatted may give that say what is removed, started or run, each kept however many entries it has. */
const KEY_PARAMETERS = ['path', 'literalpath', 'pspath', 'lp', 'recurse', 'filter', 'include', 'exclude', 'whatif', 'filepath', 'argumentlist', 'args', 'workingdirectory', 'scriptblock', 'command', 'encodedcommand'];
/** Entries of other keys kept: a function the text defines may take any, but reading very many at each splat would take too long. */
const MAX_OTHER_ENTRIES = 16;

/**
 * A hashtable's entries (`-Key:value` words) with `key` set to `value`: an entry of the same key keeps the
 * one of the two values that takes a whole tree, if any, else the new one.
 */
function withEntry(entries: readonly string[], key: string, value: string, reader: ValueReader): string[] {
  const lower = key.toLowerCase();
  const at = entries.findIndex((entry) => entry.slice(1, entry.indexOf(':')).toLowerCase() === lower);
  if (at !== -1) {
    const old = entries[at] as string;
    return entries.map((entry, i) => (i === at ? `-${key}:${reader.pick([value, old.slice(old.indexOf(':') + 1)])}` : entry));
  }
  const known = KEY_PARAMETERS.some((parameter) => parameter.startsWith(lower));
  if (!known && entries.length >= MAX_OTHER_ENTRIES + KEY_PARAMETERS.length) return [...entries];
  return [...entries, `-${key}:${value}`];
}

/** `$p.Key = value`, `$p['Key'] = value`, `$a[0] = value`: 1 the variable, 2 a member's name, 3 or 4 a quoted key, 5 an index, 6 the value. */
const MEMBER_ASSIGNMENT = /^\s*\$([a-z_]\w{0,200})(?:\.([a-z_]\w{0,200})|\[\s*(?:'([^']{0,200})'|"([^"]{0,200})"|([^\]]{0,200}))\s*\])\s*\+?=(?!=)([\s\S]*)$/i;
/** `$p.Add(…)`: 1 the variable, 2 the arguments. */
const ADD_CALL = /^\s*\$([a-z_]\w{0,200})\s*\.\s*add\s*\(([\s\S]*)\)\s*$/i;

/**
 * A hashtable's entry or an array's item set in place (`$p.Recurse = $true`, `$p['Path'] = 'C:\'`, `$a[0] = …`,
 * `$p.Add('Path', 'C:\')`, `$list.Add('C:\')`): a splatted hashtable gains the entry, another variable may
 * hold the new value as well as the old. Whether `raw` is one.
 */
export function assignInPlace(raw: string, variables: Map<string, string>, reader: ValueReader): boolean {
  // What it gives may be dropped: `[void]$list.Add(…)`, `$null = $list.Add(…)`.
  const statement = raw.replace(/^\s*(?:\[(?:[^[\]]|\[[^[\]]{0,100}\]){1,200}\]\s*)*(?:\$null\s*=\s*)?/i, '');
  const member = MEMBER_ASSIGNMENT.exec(statement);
  const add = member === null ? ADD_CALL.exec(statement) : null;
  if (member === null && add === null) return false;
  const name = ((member ?? add)?.[1] ?? '').toLowerCase();
  const args = add === null ? [] : topLevelItems(add[2] ?? '');
  const key = member !== null ? (member[2] ?? member[3] ?? member[4] ?? member[5] ?? '') : args.length === 2 ? (expressionValue(args[0] as string, reader) ?? '') : '';
  const written = member !== null ? (member[6] ?? '') : (args.at(-1) ?? '');
  const value = expressionValue(written, reader);
  const table = variables.get(`@${name}`);
  if (table !== undefined && /^[a-z_][\w-]*$/i.test(key)) {
    const entries = withEntry(table === '' ? [] : table.split('\0'), key, value ?? written.trim(), reader);
    variables.set(`@${name}`, entries.join('\0'));
    const entry = entries.find((one) => one.slice(1, one.indexOf(':')).toLowerCase() === key.toLowerCase());
    if (entry !== undefined) variables.set(`${name}.${key.toLowerCase()}`, entry.slice(entry.indexOf(':') + 1));
    return true;
  }
  const old = variables.get(name);
  if (value !== null) setVariable(name, reader.pick(old === undefined ? [value] : [value, old]), variables);
  return true;
}

/** `$d = ` before a statement: 1 or 2 the name, 3 the statement. */
const ASSIGNED = /^\s*(?:\[(?:[^[\]]|\[[^[\]]{0,100}\]){1,200}\]\s*)*\$(?:\{([^{}]{1,200})\}|(?:(?:global|script|local|private):)?([a-z_]\w{0,200}))\s*=(?!=)([\s\S]*)$/i;

/** The variable an assignment at the start of `raw` sets (`$d = …`, lower case), or null. */
export function assignedName(raw: string): string | null {
  const match = ASSIGNED.exec(raw);
  return match === null ? null : (match[1] ?? match[2] ?? '').toLowerCase();
}

/**
 * What a block may write, collected into a variable: `$d = foreach (…) { … }` (or another statement,
 * `$d = if (…) { … }`, `$d = & { … }`) when `owner` assigns its value, or `$d = … | % { … }` for `name`, the
 * variable a pipeline it ends assigns to (what the variable held may still be passed on). Read as each of
 * `runValues` (the values or items the block runs with) and each value its statements write (`'C:\'`,
 * `$x.FullName`); a value not known is not read.
 */
export function assignCollected(owner: string, name: string | null, body: string, runValues: readonly string[], variables: Map<string, string>, reader: ValueReader): void {
  const match = ASSIGNED.exec(owner);
  const assigned = match === null || match[3]?.trim() === '' ? null : (match[1] ?? match[2] ?? '').toLowerCase();
  const target = assigned ?? name;
  if (target === null) return;
  const old = assigned === null ? variables.get(target) : undefined;
  const values = [...runValues, ...(old === undefined ? [] : [old])];
  for (const inner of splitText(body, 'powershell').pipelines) {
    const [raw] = inner.commands;
    if (inner.commands.length !== 1 || raw === undefined || !/^\s*['"$@(]/.test(raw)) continue;
    const value = expressionValue(raw, reader);
    if (value !== null) values.push(value);
  }
  setVariable(target, values.length === 0 ? null : reader.pick(values), variables);
}

/**
 * cmd's `set NAME=value`: NAME holds the value after it. cmd expands `%NAME%` when it reads the line, before
 * `set` runs, so in `set P=C:\ && rd /s /q %P%` it is the value P had before, which is not known: it is read
 * as the new one, as `!P!` takes it where delayed expansion is on. `set /p` (typed in) makes it not known.
 */
export function cmdSet(args: readonly string[], variables: Map<string, string>): void {
  const prompt = args[0]?.toLowerCase() === '/p';
  const assignment = (prompt ? args.slice(1) : args).join(' ');
  const equals = assignment.indexOf('=');
  if (equals <= 0 || /^\/a/i.test(assignment)) return;
  const name = `env:${assignment.slice(0, equals).trim().toLowerCase()}`;
  if (prompt) variables.delete(name);
  else variables.set(name, assignment.slice(equals + 1).trim());
}
