/**
 * The order in which a shell runs the simple commands of its text, for the never-run rule
 * (whole-tree.ts), with where a subshell starts and ends: `( … )`, `$( … )` and backquotes, each
 * command of a pipeline (`cd x | true`: bash runs each in a subshell of its own), a command or group
 * run in the background (`cd x & …`), and a `{ … }` or `if … fi` group piped or run in the
 * background. What a subshell sets (its folder, variables, functions) is gone after it.
 */

/** A simple command's text, or where a subshell starts or ends. */
export type Step = { readonly command: string } | 'open' | 'close';

/**
 * What ends a piece of text: `;` (a line, `;`), `and` (`&&`, `||`), `;;` (the end of a case branch), `|`
 * (a pipe), `&` (the background), `glue` (the `&` of a redirection, `2>&1`, which ends no command),
 * a parenthesis, a backquote, or '' (the end of the text).
 */
export type Op = ';' | 'and' | ';;' | '|' | '&' | 'glue' | '(' | ')' | '`' | '';

/** Text between two separators; `before`: commands that run first in a subshell (`"$(…)"` in it, a here-document's lines). */
export interface Piece {
  text: string;
  op: Op;
  before: readonly Step[];
}

/** Reserved words a group starts with, that end one, and that may come before either at a command's start. */
const OPENERS = new Set(['{', 'if', 'while', 'until', 'for', 'select', 'case']);
const CLOSERS = new Set(['}', 'fi', 'done', 'esac']);
const BEFORE_OPENER = new Set(['!', 'time', 'then', 'do', 'else', 'elif', '{', 'if', 'while', 'until']);

/** A subshell, a group (`{ … }`, `if … fi`, `while … done`, `case … esac`) or the text itself, as it is read. */
interface Level {
  kind: 'text' | 'subshell' | 'group';
  /** Where its steps start, for an `open` if a group turns out to run in a subshell. */
  at: number;
  /** Where the and-or list being read in it starts (`a && b || c`): a `&` after it runs it all in the background. */
  list: number;
  /** A group that is the right side of a pipe. */
  piped: boolean;
  /** For a case group: its next `)` ends a pattern, not a subshell. */
  pattern: boolean | null;
}

/** The steps of `pieces`, the text cut at its separators, in order. */
export function stepsOf(pieces: readonly Piece[]): Step[] {
  const out: Step[] = [];
  /** Subshell starts to put before the step at an index, for what is found to run in one only at its end. */
  const opensAt = new Map<number, number>();
  const openAt = (at: number) => opensAt.set(at, (opensAt.get(at) ?? 0) + 1);
  const levels: Level[] = [{ kind: 'text', at: 0, list: 0, piped: false, pattern: null }];
  const level = () => levels.at(-1) as Level;
  let subshells = 0;
  let backquoted = false;
  let before: Op = ';';
  for (let i = 0; i < pieces.length; ) {
    // A redirection's & glues the pieces it cut into one command (`cd x 2>&1 & …` is run in the background whole).
    let end = i;
    while ((pieces[end] as Piece).op === 'glue' && end + 1 < pieces.length) end++;
    const { closers, openers } = leadingWords((pieces[i] as Piece).text);
    const closed: Level[] = [];
    for (let n = 0; n < closers && level().kind === 'group'; n++) closed.push(levels.pop() as Level);
    for (const kind of openers) levels.push({ kind: 'group', at: out.length, list: out.length, piped: before === '|', pattern: kind === 'case' ? true : null });
    const after = effectiveOp((pieces[end] as Piece).op, level());
    const piped = before === '|' || after === '|';
    if (piped) out.push('open');
    for (let at = i; at <= end; at++) {
      const piece = pieces[at] as Piece;
      if (piece.before.length > 0) {
        out.push('open');
        for (const step of piece.before) out.push(step);
        out.push('close');
      }
      out.push({ command: piece.text });
    }
    if (piped) out.push('close');
    for (const group of closed) {
      if (!group.piped && after !== '|') continue;
      openAt(group.at);
      out.push('close');
    }
    if (after === '&') {
      openAt(level().list);
      out.push('close');
    }
    if (after === ';' || after === '&') level().list = out.length;
    if (after === '(' || (after === '`' && !backquoted)) {
      out.push('open');
      levels.push({ kind: 'subshell', at: out.length, list: out.length, piped: false, pattern: null });
      subshells++;
    } else if ((after === ')' || after === '`') && subshells > 0) {
      subshells--;
      // Groups left open in it (a syntax error) end with it.
      for (let closing = levels.pop(); closing?.kind !== 'subshell'; closing = levels.pop()) continue;
      out.push('close');
    }
    if (after === '`') backquoted = !backquoted;
    before = after;
    i = end + 1;
  }
  if (opensAt.size === 0) return out;
  const all: Step[] = [];
  out.forEach((step, at) => {
    for (let n = opensAt.get(at) ?? 0; n > 0; n--) all.push('open');
    all.push(step);
  });
  // A list that ends the text in the background (`cd x &`) opened at its end.
  for (let n = opensAt.get(out.length) ?? 0; n > 0; n--) all.push('open');
  return all;
}

/**
 * `op` as it acts in `group`: in a case's pattern, `|` parts patterns and `(` `)` enclose one; `;;`
 * ends a branch, after which a pattern comes again.
 */
function effectiveOp(op: Op, group: Level): Op {
  if (op === ';;' || op === 'glue') {
    if (op === ';;' && group.pattern === false) group.pattern = true;
    return op === ';;' ? ';' : 'and';
  }
  if (group.pattern !== true || (op !== '|' && op !== '(' && op !== ')')) return op;
  if (op === ')') group.pattern = false;
  return ';';
}

/** The reserved words a piece starts with: how many groups they end (`}`, `fi`…), and the groups they start. */
function leadingWords(text: string): { closers: number; openers: string[] } {
  let closers = 0;
  const openers: string[] = [];
  const word = /\s*(\S+)/y;
  for (let match = word.exec(text); match !== null; match = word.exec(text)) {
    const next = match[1] as string;
    if (openers.length === 0 && CLOSERS.has(next)) closers++;
    else if (OPENERS.has(next)) openers.push(next);
    else if (!BEFORE_OPENER.has(next)) break;
    // for, select and case are followed by words, not commands.
    if (next === 'for' || next === 'select' || next === 'case') break;
  }
  return { closers, openers };
}
