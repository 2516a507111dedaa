import { memberChain } from './windows-members';

/**
 * PowerShell text (and cmd text inside it) as the never-run rule's Windows reader (windows-tree.ts)
 * reads it: cut into pipelines of commands and script blocks, each command into words with the
 * variables known so far given their values, and a group's value where the reader knows it (`evaluate`).
 */

export type Mode = 'powershell' | 'cmd';

/** What the words of a command depend on: the folder it runs in (`$PWD`, `%CD%`), null when not known, and the variables' values by lower-case name. */
export interface Scope {
  cwd: string | null;
  variables: Map<string, string>;
  /** The value of a group operand's text (`(Join-Path C:\ *)`, `$(Get-Location)`) when the reader knows it; null otherwise. */
  evaluate?(inner: string, scope: Scope): string | null;
  /** Of several values a word may have, the one it is read as: one that takes a whole tree, if any (the first otherwise). */
  pick?(values: readonly string[], scope: Scope): string;
}

/** Words before a group that make it no value: a statement's header (`foreach (…)`, `if (…)`) or a block's `param(…)`. */
const HEADER_WORDS = new Set(['param', 'foreach', 'for', 'while', 'until', 'if', 'elseif', 'switch', 'catch', 'trap', 'function', 'filter', 'data']);

/** A here-string: its quote (`'` takes the text as it is, `"` expands it), the text's bounds and the index past its closing `'@`. */
export interface HereString {
  quote: "'" | '"';
  bodyStart: number;
  bodyEnd: number;
  end: number;
}

/** A here-string's opening, `@'` or `@"` then the end of the line; its text starts on the next. */
const HERE_OPENING = /@(['"])[ \t]*\r?\n/y;
/** Where each kind of here-string closes: a line break, then its quote and `@`. */
const HERE_CLOSING = { "'": /\r?\n[ \t]*'@/g, '"': /\r?\n[ \t]*"@/g } as const;

/**
 * The here-string that starts at `at` (`@'…'@`, `@"…"@`), or null. It ends at a line that starts with the
 * closing quote and `@`; one after spaces is taken as its end too, so that none ends later than PowerShell's.
 * An unclosed one runs to the end of the text.
 */
export function hereStringAt(text: string, at: number): HereString | null {
  // Only where a token starts: `a@'` is a word, then a quote.
  if (/[\w`$@]/.test(text[at - 1] ?? '')) return null;
  HERE_OPENING.lastIndex = at;
  const opening = HERE_OPENING.exec(text);
  if (!opening) return null;
  const quote = opening[1] === "'" ? "'" : '"';
  const bodyStart = at + opening[0].length;
  const closing = HERE_CLOSING[quote];
  // The text may be empty: the closing line then follows the opening at once.
  closing.lastIndex = bodyStart - 1 - (text[bodyStart - 2] === '\r' ? 1 : 0);
  const match = closing.exec(text);
  if (!match) return { quote, bodyStart, bodyEnd: text.length, end: text.length };
  const bodyEnd = Math.max(bodyStart, match.index);
  return { quote, bodyStart, bodyEnd, end: match.index + match[0].length };
}

/** The index of the `)` that closes a group opened just before `from`, quotes and here-strings respected; text.length if none. */
export function closingParen(text: string, from: number): number {
  let depth = 1;
  let quote: string | null = null;
  for (let i = from; i < text.length; i++) {
    const char = text[i] as string;
    const here = quote === null && char === '@' ? hereStringAt(text, i) : null;
    if (here) i = here.end - 1;
    else if (char === '`' && quote !== "'") i++;
    else if (quote !== null) quote = char === quote ? null : quote;
    else if (char === '"' || char === "'") quote = char;
    else if (char === '(') depth++;
    else if (char === ')' && --depth === 0) return i;
  }
  return text.length;
}

/** A pipeline's raw commands; when a `{` ended it, the text of that block and the raw command after its `}` (its arguments). */
export interface Pipeline {
  commands: string[];
  block: string | null;
  after: string;
  /** The pipeline whose block's `}` this one's first command goes on after (`… -Begin { } -Process {`, `} else {`). */
  continues: Pipeline | null;
  /** Whether a `|` follows that `}` at once: the block's command ends there, and this one's first command is the next in its pipeline (`? { … } | % {`). */
  piped: boolean;
}

/**
 * `text` cut into pipelines of raw commands, at separators outside quotes; what `$(…)`, `@(…)` or a
 * `(…)` operand holds is text of its own (`nested`). PowerShell: quotes ' and ", here-strings, backtick
 * escapes, `#` and `<#…#>` comments, `{ }` around script blocks. cmd: quote ", caret escapes, `( )` blocks.
 */
export function splitText(text: string, mode: Mode): { pipelines: Pipeline[]; nested: string[] } {
  const pipelines: Pipeline[] = [];
  const nested: string[] = [];
  /** The pipelines each open `{` ended, with where it is. */
  const blocks: Array<{ owner: Pipeline; at: number }> = [];
  let afterBlock: Pipeline | null = null;
  let continuing: Pipeline | null = null;
  let piped = false;
  let pipeline: string[] = [];
  let start = 0;
  let quote: string | null = null;
  const escape = mode === 'powershell' ? '`' : '^';
  const cut = (at: number, endsPipeline: boolean, pipe = false): Pipeline | null => {
    pipeline.push(text.slice(start, at));
    if (afterBlock !== null) {
      afterBlock.after = text.slice(start, at);
      piped = pipe && continuing === null && afterBlock.after.trim() === '';
    }
    continuing ??= afterBlock;
    afterBlock = null;
    if (!endsPipeline) return null;
    const commands = pipeline.filter((command) => command.trim() !== '');
    const ended: Pipeline = { commands, block: null, after: '', continues: continuing, piped };
    pipelines.push(ended);
    pipeline = [];
    continuing = null;
    piped = false;
    return ended;
  };
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    const here = mode === 'powershell' && char === '@' && quote === null ? hereStringAt(text, i) : null;
    if (here) {
      if (here.quote === '"') nested.push(...subexpressions(text.slice(here.bodyStart, here.bodyEnd)));
      i = here.end - 1;
    } else if (char === escape && (mode === 'powershell' ? quote !== "'" : quote === null)) i++;
    // `2>&1` redirects; and cmd's `%ProgramFiles(x86)%` is one variable, not a block.
    else if (char === '&' && text[i - 1] === '>') continue;
    else if (mode === 'cmd' && char === '%' && cmdVariableAt(text, i) !== null) i += (cmdVariableAt(text, i)?.[0].length ?? 1) - 1;
    else if (mode === 'powershell' && char === '$' && text[i + 1] === '{' && quote !== "'") {
      const close = text.indexOf('}', i);
      i = close === -1 ? text.length : close;
    } else if (mode === 'powershell' && char === '(' && quote !== "'" && (quote === null || text[i - 1] === '$')) {
      const close = closingParen(text, i + 1);
      nested.push(text.slice(i + 1, close));
      i = close;
    } else if (quote !== null) quote = char === quote ? null : quote;
    else if (char === '"' || (mode === 'powershell' && char === "'")) quote = char;
    else if (mode === 'powershell' && text.startsWith('<#', i)) {
      cut(i, false);
      const close = text.indexOf('#>', i);
      i = close === -1 ? text.length : close + 1;
      start = i + 1;
    } else if (mode === 'powershell' && char === '#' && (i === start || /\s/.test(text[i - 1] as string))) {
      cut(i, true);
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end;
      start = i + 1;
    } else if (char === '|' && text[i + 1] !== '|') {
      cut(i, false, true);
      start = i + 1;
    } else if ((char === '|' || char === '&') && text[i + 1] === char) {
      cut(i, true);
      start = i + 2;
      i++;
    } else if (mode === 'powershell' && char === '{') {
      blocks.push({ owner: cut(i, true) as Pipeline, at: i });
      start = i + 1;
    } else if (mode === 'powershell' && char === '}') {
      cut(i, true);
      const opened = blocks.pop();
      if (opened) opened.owner.block = text.slice(opened.at + 1, i);
      afterBlock = opened?.owner ?? null;
      start = i + 1;
    } else if (mode === 'powershell' && char === '&' && ((pipeline.length > 0 && /^\s*$/.test(text.slice(start, i))) || /^\s*\$[^=]{1,400}=\s*$/.test(text.slice(start, i)))) {
      // Right after a `|` or an assignment's `=`, `&` calls what follows (`… | & { process { … } }`, `$d = & { … }`): it ends nothing.
    } else if ('\n\r&'.includes(char) || (mode === 'powershell' ? char === ';' : '()'.includes(char))) {
      cut(i, true);
      start = i + 1;
    }
  }
  cut(text.length, true);
  return { pipelines: pipelines.filter((entry) => entry.commands.length > 0 || entry.block !== null), nested };
}

/** The `$(…)` a double-quoted here-string holds, each as text of its own. */
function subexpressions(body: string): string[] {
  const found: string[] = [];
  for (let at = body.indexOf('$('); at !== -1; at = body.indexOf('$(', at + 1)) {
    const close = closingParen(body, at + 2);
    found.push(body.slice(at + 2, close));
    at = close;
  }
  return found;
}

/** A PowerShell variable's use at a position: `${name}` (1) or `$name`, `$env:NAME` (2). Bounded, so many `${` stay linear. */
const PS_VARIABLE = /\$(?:\{([^{}]{1,200})\}|(?:(?:global|script|local|private|using):)?((?:env:)?[a-z_]\w{0,200}))/iy;
/** A property or an index read from a variable: `.FullName`, `[0]`. */
const MEMBER = /\.[a-z_]\w{0,200}|\[[^[\]]{1,200}\]/iy;
/** A `$( )` that only holds a variable, maybe with a property or index: `$($_.FullName)`; 1 or 2 as PS_VARIABLE's, 3 the member. */
const SUBEXPRESSION_VARIABLE = /\$\(\s*\$(?:\{([^{}]{1,200})\}|(?:(?:global|script|local|private|using):)?((?:env:)?[a-z_]\w{0,200}))(\.[a-z_]\w{0,200}|\[\d{1,9}\])?\s*\)/iy;
/** A cmd variable's use at a position: `%NAME%` (1). */
const CMD_VARIABLE = /%([^%\s]{1,200})%/y;
/** A cmd variable's use with delayed expansion: `!NAME!` (1). */
const CMD_DELAYED = /!([^!\s%]{1,200})!/y;

/** Whether a `$( )` that only holds a variable starts at `at`. */
function onlyVariableAt(raw: string, at: number): boolean {
  SUBEXPRESSION_VARIABLE.lastIndex = at;
  return SUBEXPRESSION_VARIABLE.test(raw);
}

/** A known value with the members read from it at `at` (`.FullName`, `.Parent`, `.Trim()`: windows-members.ts), as far as they are known. */
function withMembers(value: string, raw: string, at: number, scope: Scope): { value: string; length: number } {
  return memberChain(value, raw, at, { argument: (text) => scope.evaluate?.(text, scope) ?? null, pick: (values) => scope.pick?.(values, scope) ?? (values[0] as string) });
}

/** A cmd variable the scope knows used with delayed expansion (`!NAME!`) at `at`, with its value and length; null otherwise. */
function delayedAt(raw: string, at: number, scope: Scope): { value: string; length: number } | null {
  CMD_DELAYED.lastIndex = at;
  const match = CMD_DELAYED.exec(raw);
  const value = match === null ? undefined : scope.variables.get(`env:${(match[1] ?? '').toLowerCase()}`);
  return match === null || value === undefined ? null : { value, length: match[0].length };
}

function cmdVariableAt(text: string, at: number): RegExpExecArray | null {
  CMD_VARIABLE.lastIndex = at;
  return CMD_VARIABLE.exec(text);
}

/**
 * A raw command cut into words as PowerShell (or cmd) passes them: quotes gone, escapes applied,
 * variables the scope knows given their values (not in single quotes), commas between array items
 * taken as spaces. A parenthesised operand is kept as one opaque word.
 */
export function words(raw: string, mode: Mode, scope: Scope): string[] {
  const all: string[] = [];
  let word = '';
  let started = false;
  let quote: string | null = null;
  /** Whether the quotes open (or last closed) at the start of the word. */
  let literal = false;
  const escape = mode === 'powershell' ? '`' : '^';
  const end = () => {
    if (started) all.push(word);
    word = '';
    started = false;
  };
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i] as string;
    if (char === escape && (mode === 'powershell' ? quote !== "'" : quote === null)) {
      // An escaped line break continues the command: the words go on after it.
      if (/[\r\n]/.test(raw[i + 1] ?? '')) end();
      else {
        word += raw[i + 1] ?? '';
        started = true;
      }
      i++;
    } else if (mode === 'powershell' && quote === null && char === '@' && !started && raw[i + 1] === '(') {
      // `@(…)`: the value of what it holds, when known.
      const close = closingParen(raw, i + 2);
      word = scope.evaluate?.(raw.slice(i + 2, close), scope) ?? raw.slice(i, close + 1);
      started = true;
      i = close;
    } else if (mode === 'powershell' && quote === null && char === '@' && !started && splatAt(raw, i, scope) !== null) {
      // `@args`, `@a`: a known variable splatted is its value, as a word of the command.
      const splat = splatAt(raw, i, scope) as { values: string[]; length: number };
      // A hashtable splatted is its entries, each a `-Name:value` word.
      for (const value of splat.values.slice(0, -1)) all.push(value);
      word = splat.values.at(-1) ?? '';
      started = true;
      i += splat.length - 1;
    } else if (mode === 'powershell' && quote === null && char === '@' && hereStringAt(raw, i) !== null) {
      const here = hereStringAt(raw, i) as HereString;
      word += hereStringText(raw.slice(here.bodyStart, here.bodyEnd), here.quote, scope);
      started = true;
      i = here.end - 1;
    } else if ((quote === "'" && char === "'") || (quote === '"' && char === '"')) {
      quote = null;
      // A string alone is a value: the members read from it (`'C:\Windowsx'.Replace('x', '')`) are read with it.
      if (literal && mode === 'powershell' && raw[i + 1] === '.') {
        const read = withMembers(word, raw, i + 1, scope);
        word = read.value;
        i += read.length;
      }
    } else if (quote === null && (char === '"' || (mode === 'powershell' && char === "'"))) {
      literal = !started;
      quote = char;
      started = true;
    } else if (quote === null && (/\s/.test(char) || (mode === 'powershell' && char === ','))) end();
    else if (mode === 'powershell' && quote !== "'" && char === '$' && raw[i + 1] === '(' && !onlyVariableAt(raw, i)) {
      // `$(…)`, quoted or not: the value of what it holds, when known.
      const close = closingParen(raw, i + 2);
      const value = scope.evaluate?.(raw.slice(i + 2, close), scope) ?? null;
      const read = value === null ? null : withMembers(value, raw, close + 1, scope);
      word += read?.value ?? raw.slice(i, close + 1);
      started = true;
      i = close + (read?.length ?? 0);
    } else if (mode === 'powershell' && quote !== "'" && char === '$') {
      const { text, length } = variableAt(raw, i, quote === null, scope);
      word += text;
      started = true;
      i += length - 1;
    } else if (mode === 'powershell' && quote === null && char === '(') {
      // A command's name ends where a group starts: `iex('…')` is iex given ('…'), `foreach($d in …)` foreach.
      if (all.length === 0 && started && !word.startsWith('$')) end();
      const close = closingParen(raw, i + 1);
      const inner = raw.slice(i + 1, close);
      const header = word === '' && HEADER_WORDS.has((all.at(-1) ?? '').toLowerCase());
      const value = groupValue(inner, scope) ?? (word === '' && !header ? (scope.evaluate?.(inner, scope) ?? null) : null);
      const read = value === null ? null : withMembers(value, raw, close + 1, scope);
      word += read?.value ?? raw.slice(i, close + 1);
      started = true;
      i = close + (read?.length ?? 0);
    } else if (mode === 'cmd' && char === '!' && delayedAt(raw, i, scope) !== null) {
      // `!NAME!`, expanded when the command runs where delayed expansion is on: read as if it were.
      const delayed = delayedAt(raw, i, scope) as { value: string; length: number };
      word += delayed.value;
      started = true;
      i += delayed.length - 1;
    } else if (mode === 'cmd' && char === '%') {
      const variable = cmdVariableAt(raw, i);
      const name = (variable?.[1] ?? '').toLowerCase();
      const value = name === 'cd' ? (scope.cwd ?? undefined) : scope.variables.get(`env:${name}`);
      word += value ?? variable?.[0] ?? char;
      started = true;
      i += (variable?.[0].length ?? 1) - 1;
    } else {
      word += char;
      started = true;
    }
  }
  end();
  return all;
}

/** A splatted variable the scope knows at `at` (`@args`, `@p`), with the words it makes (a hashtable's, under `@p`) and its length; null otherwise. */
function splatAt(raw: string, at: number, scope: Scope): { values: string[]; length: number } | null {
  const splat = /@([a-z_]\w{0,200})(?![\w({'"])/iy;
  splat.lastIndex = at;
  const match = splat.exec(raw);
  if (match === null) return null;
  const name = (match[1] ?? '').toLowerCase();
  const table = scope.variables.get(`@${name}`);
  if (table !== undefined) return { values: table === '' ? [] : table.split('\0'), length: match[0].length };
  const value = scope.variables.get(name);
  return value === undefined ? null : { values: [value], length: match[0].length };
}

/** What a group holding one string and nothing else is (`('C:\\')`, `(@'…'@)`): that string's value; null for any other group. */
function groupValue(inner: string, scope: Scope): string | null {
  const value = inner.trim();
  const literal = /^(?:'[^']*'|"(?:[^"`]|`[\s\S])*")$/.test(value) || (value.startsWith('@') && hereStringAt(value, 0)?.end === value.length);
  return literal ? (words(value, 'powershell', scope)[0] ?? '') : null;
}

/** A here-string's text as PowerShell gives it: as it is in `@'…'@`; in `@"…"@` read as in double quotes, where a `"` is itself. */
function hereStringText(body: string, quote: "'" | '"', scope: Scope): string {
  if (quote === "'") return body;
  // A backtick escapes the character after it; a `"` on its own is escaped, so it does not end the quotes.
  const escaped = body.replace(/`[\s\S]|"/g, (piece) => (piece === '"' ? '`"' : piece));
  return words(`"${escaped}"`, 'powershell', scope).join(' ');
}

/**
 * A PowerShell variable's use at `at`: its value when the scope knows it, else as written. Outside
 * quotes a property or an index read from it (`$_.FullName`, `$args[0]`) is part of the use, and so is a
 * `$( )` that only holds one: known by that name (`_.fullname`), or not known.
 */
function variableAt(raw: string, at: number, unquoted: boolean, scope: Scope): { text: string; length: number } {
  SUBEXPRESSION_VARIABLE.lastIndex = at;
  const subexpression = SUBEXPRESSION_VARIABLE.exec(raw);
  PS_VARIABLE.lastIndex = at;
  const variable = subexpression === null ? PS_VARIABLE.exec(raw) : null;
  if (subexpression === null && variable === null) return { text: '$', length: 1 };
  const written = (subexpression ?? variable) as RegExpExecArray;
  let name = (written[1] ?? written[2] ?? '').toLowerCase();
  let length = written[0].length;
  MEMBER.lastIndex = at + length;
  const member = subexpression === null && unquoted ? MEMBER.exec(raw) : null;
  if (member !== null) {
    name += member[0].toLowerCase();
    length += member[0].length;
  }
  name += (subexpression?.[3] ?? '').toLowerCase();
  // An item of a listing saved to a variable (`$items[0]`) may be any of them: `items[*]`.
  const item = member?.[0].startsWith('[') ? scope.variables.get(`${name.slice(0, -member[0].length)}[*]`) : undefined;
  // `$PWD`, `$PWD.Path`, `$PWD.ProviderPath`: the folder it runs in.
  const value = /^pwd(?:\.(?:path|providerpath))?$/.test(name) ? (scope.cwd ?? undefined) : (scope.variables.get(name) ?? item);
  if (!unquoted) return { text: value ?? raw.slice(at, at + length), length };
  // Members read from a known value (`$d.Parent.FullName`, `$p.Replace('x', '')`), or from the variable itself when its member is not known by name.
  const base = value === undefined && member !== null ? (subexpression === null ? baseValue(name.slice(0, -member[0].length), scope) : undefined) : undefined;
  if (base !== undefined) {
    const read = withMembers(base, raw, at + written[0].length, scope);
    if (read.length > 0) return { text: read.value, length: written[0].length + read.length };
  }
  if (value === undefined || subexpression !== null) return { text: value ?? raw.slice(at, at + length), length };
  const read = withMembers(value, raw, at + length, scope);
  return { text: read.value, length: length + read.length };
}

/** A variable's own value, by its lower-case name: the folder it runs in for `$PWD`. */
function baseValue(name: string, scope: Scope): string | undefined {
  return name === 'pwd' ? (scope.cwd ?? undefined) : scope.variables.get(name);
}

/**
 * An expression's items at its top-level commas (`'x', 'C:\'`), or at another separator (`separator` gives
 * its length at an index, 0 where there is none), outside quotes, groups, brackets and blocks.
 */
export function topLevelItems(text: string, separator: (text: string, at: number) => number = (all, at) => (all[at] === ',' ? 1 : 0)): string[] {
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
    else if (depth === 0 && separator(text, i) > 0) {
      items.push(text.slice(start, i));
      start = i + separator(text, i);
      i = start - 1;
    }
  }
  items.push(text.slice(start));
  return items.map((item) => item.trim()).filter((item) => item !== '');
}
