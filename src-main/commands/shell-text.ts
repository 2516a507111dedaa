import { splitArgs } from '../device/split-args';
import { SPLIT } from './parameter-expansion';
import { assembled, type Op, type Step, StepWriter } from './shell-steps';

/**
 * Shell text read as a shell reads it, for the never-run rule (whole-tree.ts): cut into simple
 * commands, here-documents, `$'…'` words and substitutions included, and each cut into its words.
 */

/** What ends a simple command outside quotes: lines, ; && || | & ( ) and backquotes. */
const SEPARATORS = new Set(['\n', '\r', ';', '&', '|', '(', ')', '`']);

/** Text read with a reading of its own: the text itself, or a substitution in double quotes in it. */
interface Context {
  writer: StepWriter;
  /** Where the piece being read starts, and its text before a substitution in it, whose own text is left out. */
  start: number;
  before: string;
  /** What ends it: the `)` of `"$(`, a backquote, or nothing for the text itself. */
  closer: ')' | '`' | null;
  /** Unquoted `(` open in it, whose `)` does not end it. */
  parens: number;
  /**
   * The `${` open in it, and the `$(` open inside those, innermost last: in `${x:-(}` or `${x/)/}` a
   * parenthesis is part of the word, no subshell's start or end (a `$(` there still is one).
   */
  braces: Array<'{' | '('>;
  /** The here-documents opened on the line being read (`<<EOF`, `<<-'END'`): their bodies follow it. */
  hereDocs: Array<{ word: string; tabs: boolean }>;
}

/**
 * Shell text cut into the simple commands it runs, at separators outside quotes, in the order it runs
 * them with where each subshell starts and ends (shell-steps.ts): a quoted argument (`grep "rm -rf
 * /|mkfs"`) is one word, which only a shell given it as a script reads as commands. What runs inside
 * double quotes, `$(…)` and backquotes, comes just before the command it is in, in a subshell; it is
 * read in the same pass, however deep, with the text around it set aside until its end.
 * `lastPipeInShell`: a pipeline's last command runs in the shell itself (bash's lastpipe, zsh, ksh).
 */
export function shellSteps(text: string, lastPipeInShell = false): Step[] {
  const out: Step[] = [];
  const opensAt = new Map<number, number>();
  const context = (start: number, closer: Context['closer']): Context => ({ writer: new StepWriter(out, opensAt, lastPipeInShell), start, before: '', closer, parens: 0, braces: [], hereDocs: [] });
  let ctx = context(0, null);
  /** The contexts set aside, each inside double quotes, innermost last. */
  const outer: Context[] = [];
  let quote: string | null = null;
  /** Where the last unescaped, unquoted `$` was: a `(` just after it starts a substitution. */
  let dollarAt = -1;
  const cut = (end: number, op: Op) => {
    ctx.writer.piece({ text: ctx.before + text.slice(ctx.start, end), op });
    ctx.before = '';
  };
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    const hereDoc = quote === null && char === '<' && text[i - 1] !== '<' ? hereDocAt(text, i) : null;
    if (char === '\\' && quote !== "'") i++;
    else if (hereDoc) {
      ctx.hereDocs.push({ word: hereDoc[3] as string, tabs: hereDoc[1] === '-' });
      i += hereDoc[0].length - 1;
    } else if (char === '\n' && ctx.hereDocs.length > 0) {
      // A body is text, not shell: its apostrophes open no quote. Its lines are read as the words
      // they hold, cut at every separator, since an unquoted one runs what it has in $(…).
      cut(i, ';');
      const bodyEnd = endOfHereDocs(text, i + 1, ctx.hereDocs.splice(0));
      out.push('enter');
      for (const command of text.slice(i + 1, bodyEnd).split(/[\n\r;&|()`]/)) out.push({ command });
      out.push('leave');
      i = bodyEnd;
      ctx.start = i + 1;
    } else if (quote === '"' && (char === '`' || text.startsWith('$(', i))) {
      // Shell text of its own: cut at its separators too (`"$(rm -rf /;true)"`). The command it is in
      // keeps only `"$()"` of it: a value computed as it runs, and nesting reads no text twice.
      const open = char === '`' ? i + 1 : i + 2;
      ctx.before += text.slice(ctx.start, open);
      outer.push(ctx);
      out.push('enter');
      ctx = context(open, char === '`' ? '`' : ')');
      quote = null;
      i = ctx.start - 1;
    } else if (quote === null && char === ctx.closer && (char === '`' || (ctx.parens === 0 && ctx.braces.at(-1) !== '{'))) {
      cut(i, '');
      ctx.writer.end();
      out.push('leave');
      ctx = outer.pop() as Context;
      ctx.start = i;
      quote = '"';
    } else if (quote !== null) quote = char === quote.at(-1) ? null : quote;
    else if (char === '"' || char === "'") quote = char;
    // $'…' takes \' as an apostrophe, so a backslash escapes there as in double quotes.
    else if (char === '$' && text[i + 1] === "'") {
      quote = "$'";
      i++;
    }
    // `$$` is the shell's pid: a `{` after it opens no ${…}.
    else if (char === '$' && text[i + 1] === '$') i++;
    else if (char === '$' && text[i + 1] === '{') {
      ctx.braces.push('{');
      i++;
    } else if (char === '$') dollarAt = i;
    else if (char === '}' && ctx.braces.at(-1) === '{') ctx.braces.pop();
    // Inside ${…} a parenthesis (not a `$(`) is part of the word: cut there as before, but no subshell.
    else if ((char === '(' || char === ')') && ctx.braces.at(-1) === '{' && !(char === '(' && dollarAt === i - 1)) {
      cut(i, ';');
      ctx.start = i + 1;
    }
    // A comment runs to the end of its line: an apostrophe in it (`# don't`) opens no quote.
    else if (char === '#' && (i === ctx.start || /\s/.test(text[i - 1] as string))) {
      cut(i, ';');
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end;
      ctx.start = i + 1;
    } else if (SEPARATORS.has(char)) {
      if (char === '(') ctx.parens++;
      else if (char === ')' && ctx.parens > 0) ctx.parens--;
      if (char === '(' && ctx.braces.length > 0) ctx.braces.push('(');
      else if (char === ')' && ctx.braces.at(-1) === '(') ctx.braces.pop();
      cut(i, separatorAt(text, i));
      // The second character of `&&`, `||`, `;;`, `|&` is read with the first: no piece between them.
      if (/^(?:&&|\|\||;;&?|;&|\|&)/.test(text.slice(i, i + 3))) i += /^;;&/.test(text.slice(i, i + 3)) ? 2 : 1;
      ctx.start = i + 1;
    }
  }
  // A quote that never closes (an apostrophe in typed prose) is no shell's: the text is cut at every separator.
  if (quote !== null || outer.length > 0) return text.split(/[\n\r;&|()`]/).map((command) => ({ command }));
  cut(text.length, '');
  ctx.writer.end();
  return assembled(out, opensAt);
}

/** What the separator at `at` does: `&&` and `||` run the next command in the same shell, if at all. */
function separatorAt(text: string, at: number): Op {
  const char = text[at] as string;
  const next = text[at + 1];
  if (char === '&') {
    if (next === '&') return '&&';
    // `2>&1`, `<&0`, `&> f`: a redirection, which the reading cuts at its & but which ends no command.
    return next === '>' || /[<>]/.test(text[at - 1] ?? '') ? 'glue' : '&';
  }
  if (char === '|') return next === '|' ? '||' : '|';
  if (char === ';') return next === '&' || (next === ';' && text[at + 2] === '&') ? ';&' : next === ';' ? ';;' : ';';
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
    return { all: splitArgs(withBlanksInBraces(withoutRedirections(withAnsiCDecoded(command)))), cut: false };
  } catch {
    // Text whose quotes never close is cut at every separator (`sh -c 'cd /tmp; rm -rf /`): a quote left over is no part of a word.
    const all = command
      .split(/\s+/)
      .map((word) => word.replace(/["']/g, ''))
      .filter((word) => word !== '');
    return { all, cut: true };
  }
}

/** `command` with each blank inside `${…}` and outside quotes given as SPLIT, so the word is not cut there (`${X:-/ x}`). */
function withBlanksInBraces(command: string): string {
  if (!command.includes('${')) return command;
  let out = '';
  let quote: string | null = null;
  let depth = 0;
  for (let i = 0; i < command.length; i++) {
    const char = command[i] as string;
    if (quote === "'") {
      if (char === "'") quote = null;
    } else if (char === '\\') {
      out += char + (command[i + 1] ?? '');
      i++;
      continue;
    } else if (char === '"' || char === "'") quote = quote === char ? null : (quote ?? char);
    else if (char === '$' && command[i + 1] === '{') {
      depth++;
      out += '${';
      i++;
      continue;
    } else if (char === '}' && depth > 0) depth--;
    else if (depth > 0 && quote === null && /\s/.test(char)) {
      out += SPLIT;
      continue;
    }
    out += char;
  }
  return out;
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
