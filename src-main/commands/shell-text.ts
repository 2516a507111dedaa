import { splitArgs } from '../device/split-args';
import { type Op, type Piece, type Step, stepsOf } from './shell-steps';

/**
 * Shell text read as a shell reads it, for the never-run rule (whole-tree.ts): cut into simple
 * commands, here-documents, `$'…'` words and substitutions included, and each cut into its words.
 */

/** What ends a simple command outside quotes: lines, ; && || | & ( ) and backquotes. */
const SEPARATORS = new Set(['\n', '\r', ';', '&', '|', '(', ')', '`']);

/**
 * Shell text cut into the simple commands it runs, at separators outside quotes, in the order it runs
 * them with where each subshell starts and ends (shell-steps.ts): a quoted argument (`grep "rm -rf
 * /|mkfs"`) is one word, which only a shell given it as a script reads as commands. What runs inside
 * double quotes, `$(…)` and backquotes, comes just before the command it is in, in a subshell.
 */
export function shellSteps(text: string): Step[] {
  const pieces: Piece[] = [];
  let substituted: Step[] = [];
  let quote: string | null = null;
  let start = 0;
  const cut = (end: number, op: Op) => {
    pieces.push({ text: text.slice(start, end), op, before: substituted });
    substituted = [];
  };
  /** The here-documents opened on the line being read (`<<EOF`, `<<-'END'`): their bodies follow it. */
  const hereDocs: Array<{ word: string; tabs: boolean }> = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    const hereDoc = quote === null && char === '<' && text[i - 1] !== '<' ? hereDocAt(text, i) : null;
    if (char === '\\' && quote !== "'") i++;
    else if (hereDoc) {
      hereDocs.push({ word: hereDoc[3] as string, tabs: hereDoc[1] === '-' });
      i += hereDoc[0].length - 1;
    } else if (char === '\n' && hereDocs.length > 0) {
      // A body is text, not shell: its apostrophes open no quote. Its lines are read as the words
      // they hold, cut at every separator, since an unquoted one runs what it has in $(…).
      cut(i, ';');
      const bodyEnd = endOfHereDocs(text, i + 1, hereDocs.splice(0));
      const lines = text.slice(i + 1, bodyEnd).split(/[\n\r;&|()`]/).map((command) => ({ command }));
      pieces.push({ text: '', op: ';', before: lines });
      i = bodyEnd;
      start = i + 1;
    } else if (quote === '"' && (char === '`' || text.startsWith('$(', i))) {
      const open = char === '`' ? i + 1 : i + 2;
      const close = char === '`' ? text.indexOf('`', open) : closingParen(text, open);
      // Shell text of its own: cut at its separators too (`"$(rm -rf /;true)"`).
      substituted.push('open');
      for (const step of shellSteps(text.slice(open, close === -1 ? text.length : close))) substituted.push(step);
      substituted.push('close');
      i = close === -1 ? text.length : close;
    } else if (quote !== null) quote = char === quote.at(-1) ? null : quote;
    else if (char === '"' || char === "'") quote = char;
    // $'…' takes \' as an apostrophe, so a backslash escapes there as in double quotes.
    else if (char === '$' && text[i + 1] === "'") {
      quote = "$'";
      i++;
    }
    // A comment runs to the end of its line: an apostrophe in it (`# don't`) opens no quote.
    else if (char === '#' && (i === start || /\s/.test(text[i - 1] as string))) {
      cut(i, ';');
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end;
      start = i + 1;
    } else if (SEPARATORS.has(char)) {
      const op = separatorAt(text, i);
      cut(i, op);
      // The second character of `&&`, `||`, `;;`, `|&` is read with the first: no piece between them.
      if (/^(?:&&|\|\||;;&?|;&|\|&)/.test(text.slice(i, i + 3))) i += /^;;&/.test(text.slice(i, i + 3)) ? 2 : 1;
      start = i + 1;
    }
  }
  // A quote that never closes (an apostrophe in typed prose) is no shell's: the text is cut at every separator.
  if (quote !== null) return text.split(/[\n\r;&|()`]/).map((command) => ({ command }));
  cut(text.length, '');
  return stepsOf(pieces);
}

/** What the separator at `at` does: `&&` and `||` run the next command in the same shell, as `;` does. */
function separatorAt(text: string, at: number): Op {
  const char = text[at] as string;
  const next = text[at + 1];
  if (char === '&') {
    if (next === '&') return 'and';
    // `2>&1`, `<&0`, `&> f`: a redirection, which the reading cuts at its & but which ends no command.
    return next === '>' || /[<>]/.test(text[at - 1] ?? '') ? 'glue' : '&';
  }
  if (char === '|') return next === '|' ? 'and' : '|';
  if (char === ';') return next === ';' || next === '&' ? ';;' : ';';
  return char === '(' || char === ')' || char === '`' ? char : ';';
}

/** `<<WORD`, `<< 'WORD'`, `<<-"WORD"` (not `<<<`, a here-string): 1 the dash, 3 the word. */
const HERE_DOC = /<<(-?)[ \t]*(["']?)([\w.-]+)\2/y;

function hereDocAt(text: string, at: number): RegExpExecArray | null {
  HERE_DOC.lastIndex = at;
  return HERE_DOC.exec(text);
}

/** Where the bodies of `hereDocs`, starting at `from`, end: the newline after the last one's closing word, or the end. */
function endOfHereDocs(text: string, from: number, hereDocs: ReadonlyArray<{ word: string; tabs: boolean }>): number {
  let at = from;
  for (const { word, tabs } of hereDocs) {
    for (;;) {
      const newline = text.indexOf('\n', at);
      const lineEnd = newline === -1 ? text.length : newline;
      const line = text.slice(at, lineEnd).replace(/\r$/, '');
      at = lineEnd + 1;
      if ((tabs ? line.replace(/^\t+/, '') : line) === word) break;
      if (newline === -1) return text.length;
    }
  }
  return at - 1;
}

/** Where the `$(` whose text starts at `open` closes: the `)` outside quotes that its own `(`s leave; -1 if none. */
function closingParen(text: string, open: number): number {
  let quote: string | null = null;
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const char = text[i] as string;
    if (char === '\\' && quote !== "'") i++;
    else if (quote !== null) quote = char === quote ? null : quote;
    else if (char === '"' || char === "'") quote = char;
    else if (char === '(') depth++;
    else if (char === ')' && depth-- === 0) return i;
  }
  return -1;
}

const ANSI_C_ESCAPES: Record<string, string> = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/**
 * The text of an ANSI-C quoted word (`$'…'`, from just after its opening quote) as bash decodes it, and
 * where its closing quote is; null when it never closes. `\x72m` is `rm`, `\'` an apostrophe.
 */
function ansiCWord(text: string, from: number): { value: string; end: number } | null {
  let value = '';
  for (let i = from; i < text.length; i++) {
    const char = text[i] as string;
    if (char === "'") return { value, end: i };
    if (char !== '\\' || i + 1 >= text.length) {
      value += char;
      continue;
    }
    const next = text[++i] as string;
    const hex = next === 'x' ? /^[0-9a-fA-F]{1,2}/.exec(text.slice(i + 1)) : null;
    const octal = /^[0-7]{1,3}/.exec(text.slice(i));
    if (hex) {
      value += String.fromCharCode(parseInt(hex[0], 16));
      i += hex[0].length;
    } else if (octal) {
      value += String.fromCharCode(parseInt(octal[0], 8));
      i += octal[0].length - 1;
    } else value += ANSI_C_ESCAPES[next] ?? ('\\\'"?'.includes(next) ? next : `\\${next}`);
  }
  return null;
}

/** `command` with each ANSI-C quoted word (`$'…'`) given as the double-quoted word the shell makes of it. */
function withAnsiCDecoded(command: string): string {
  if (!command.includes("$'")) return command;
  let out = '';
  let quote: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const char = command[i] as string;
    const ansi = quote === null && char === '$' && command[i + 1] === "'" ? ansiCWord(command, i + 2) : null;
    if (ansi) {
      out += `"${ansi.value.replace(/["\\$`]/g, '\\$&')}"`;
      i = ansi.end;
      continue;
    }
    out += char;
    if (char === '\\' && quote !== "'") out += command[++i] ?? '';
    else if (quote !== null) quote = char === quote ? null : quote;
    else if (char === '"' || char === "'") quote = char;
  }
  return out;
}

/** The words of a simple command; `cut`: it was cut inside quotes, so they are only a guess. */
export function words(command: string): { all: string[]; cut: boolean } {
  try {
    return { all: splitArgs(withoutRedirections(withAnsiCDecoded(command))), cut: false };
  } catch {
    // Text whose quotes never close is cut at every separator (`sh -c 'cd /tmp; rm -rf /`): a quote left over is no part of a word.
    const all = command
      .split(/\s+/)
      .map((word) => word.replace(/["']/g, ''))
      .filter((word) => word !== '');
    return { all, cut: true };
  }
}

/**
 * A redirection outside quotes and its file (`>/dev/null`, `2>> log`, `< list`), which the shell takes
 * apart from the word it is written against (`rm -rf ~>/dev/null` removes ~). Here-strings and
 * here-documents (`<<<`, `<<`) are not: a shell given one reads it. Matched on text whose quotes are blanked.
 */
const REDIRECTION = /(?:(?<=^|\s)\d+)?(?<![<>])(?:>>?|>\||<>?)(?![<>])\s*(?:"[^"]*"|'[^']*'|[^\s<>;&|"'])*/g;

/** `command` with its redirections and their files left out. */
function withoutRedirections(command: string): string {
  if (!/[<>]/.test(command)) return command;
  let out = command;
  for (const match of blankQuoted(command).matchAll(REDIRECTION)) {
    out = out.slice(0, match.index) + ' '.repeat(match[0].length) + out.slice(match.index + match[0].length);
  }
  return out;
}

/** An output redirection outside quotes (`> f`, `>> f`, `>| f`, `2> f`): 1 its file. Matched on text whose quotes are blanked. */
const OUTPUT_REDIRECTION = /(?<![<>])(?:>>?|>\|)(?![<>&])\s*((?:"[^"]*"|'[^']*'|[^\s<>;&|"'])+)/g;

/** The files `command` writes its output to, unquoted: `echo x > "a b"` writes a b. */
export function outputFiles(command: string): string[] {
  if (!command.includes('>')) return [];
  return [...blankQuoted(command).matchAll(OUTPUT_REDIRECTION)].flatMap((match) => {
    const start = match.index + match[0].length - (match[1] as string).length;
    try {
      return splitArgs(command.slice(start, match.index + match[0].length));
    } catch {
      return [];
    }
  });
}

/** Lower case: a case-insensitive file system (macOS, Windows) runs RM as rm. */
export function programOf(word: string): string {
  return (word.split('/').pop() ?? '').toLowerCase();
}

/** `text` with what its quotes hold blanked out: a `|` or a program name in a quoted argument is no pipe. */
export function blankQuoted(text: string): string {
  let out = '';
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char === '\\' && quote !== "'") {
      out += '  ';
      i++;
    } else if (quote !== null) {
      out += char === quote ? char : ' ';
      if (char === quote) quote = null;
    } else {
      if (char === '"' || char === "'") quote = char;
      out += char;
    }
  }
  return out;
}
