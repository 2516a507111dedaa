/**
 * The order in which a shell runs the simple commands of its text, for the never-run rule
 * (whole-tree.ts), with where a subshell starts and ends: `( … )`, `$( … )` and backquotes, each
 * command of a pipeline (`cd x | true`: bash runs each in a subshell of its own), a command or group
 * run in the background (`cd x & …`), and a `{ … }` or `if … fi` group piped or run in the
 * background. What a subshell sets (its folder, variables, functions) is gone after it. Where the
 * commands may not all run (`&&`, `||`, a group's reserved words) is marked too (Flow).
 */

/**
 * A simple command's text, or where a subshell starts or ends: `open` and `close` for the text's own
 * parentheses (`( … )`, `$( … )`, backquotes), `enter` and `leave` for one the text does not spell (a
 * substitution in double quotes, a here-document's lines, a command of a pipeline, one run in the
 * background), which no function's body can be.
 */
export type Step = { readonly command: string } | 'open' | 'close' | 'enter' | 'leave' | Flow;

/**
 * Where the text's commands may not all run, for the reading to fork and join what the shell may be
 * (shell-flow.ts): `&&` and `||` after an and-or list's command, `;` where a list ends (`;&` where a
 * case branch ends that goes on into the next, `;&` or `;;&`); a group's
 * reserved words (`{`, `}`, `if`, `then`, `elif`, `else`, `fi`, `loop` for while, until, for and
 * select, `do`, `done`, `case`, `esac`), `branch` where a case pattern's `)` starts a branch, and `!`.
 * Each comes before the command whose piece starts with it; `&&`, `||`, `;` and `branch` after it.
 */
export type Flow = '&&' | '||' | ';' | ';&' | '{' | '}' | 'if' | 'then' | 'elif' | 'else' | 'fi' | 'loop' | 'do' | 'done' | 'case' | 'branch' | 'esac' | '!';

const FLOWS: ReadonlySet<string> = new Set<Flow>(['&&', '||', ';', ';&', '{', '}', 'if', 'then', 'elif', 'else', 'fi', 'loop', 'do', 'done', 'case', 'branch', 'esac', '!']);

/** Whether `step` is a Flow marker. */
export function isFlow(step: Step): step is Flow {
  return typeof step === 'string' && FLOWS.has(step);
}

/**
 * What ends a piece of text: `;` (a line, `;`), `&&`, `||`, `;;` (the end of a case branch), `;&`
 * (one that goes on into the next branch: `;&`, `;;&`), `|`
 * (a pipe), `&` (the background), `glue` (the `&` of a redirection, `2>&1`, which ends no command),
 * a parenthesis, a backquote, or '' (the end of the text).
 */
export type Op = ';' | '&&' | '||' | ';;' | ';&' | '|' | '&' | 'glue' | '(' | ')' | '`' | '';

/** Text between two separators, and the separator that ends it. */
export interface Piece {
  text: string;
  op: Op;
}

/** Reserved words a group starts with, that end one, and that may come before either at a command's start. */
const OPENERS = new Set(['{', 'if', 'while', 'until', 'for', 'select', 'case']);
const CLOSERS = new Set(['}', 'fi', 'done', 'esac']);
const BEFORE_OPENER = new Set(['!', 'time', 'then', 'do', 'else', 'elif', '{', 'if', 'while', 'until']);

/** A subshell, a group (`{ … }`, `if … fi`, `while … done`, `case … esac`) or the text itself, as it is read. */
interface Level {
  kind: 'text' | 'subshell' | 'group';
  /** Where its steps start, for an `enter` if a group turns out to run in a subshell. */
  at: number;
  /** Where the and-or list being read in it starts (`a && b || c`): a `&` after it runs it all in the background. */
  list: number;
  /** A group that is the right side of a pipe. */
  piped: boolean;
  /** For a case group: its next `)` ends a pattern, not a subshell. */
  pattern: boolean | null;
}

/**
 * The steps a text's pieces make, written as the pieces come to `out`, which the steps of a
 * substitution are written to as they are read, so nesting copies none. `opensAt` takes the subshell
 * starts found only at a group's or list's end, to put in when all is read (assembled).
 */
export class StepWriter {
  private readonly levels: Level[];
  private subshells = 0;
  private backquoted = false;
  private before: Op = ';';
  /** Pieces a redirection's & glues into one command (`cd x 2>&1 & …` is run in the background whole). */
  private run: Piece[] = [];

  constructor(
    private readonly out: Step[],
    private readonly opensAt: Map<number, number>,
    /** A pipeline's last command, or group, runs in the shell itself (bash's lastpipe, zsh, ksh). */
    private readonly lastPipeInShell = false,
  ) {
    this.levels = [{ kind: 'text', at: out.length, list: out.length, piped: false, pattern: null }];
  }

  piece(piece: Piece): void {
    // A line break (or a comment) after `&&`, `||` or `|` continues the list: the next line's command is
    // the one they run (`cd build &&⏎ rm -rf *`).
    if (piece.op === ';' && this.run.length === 0 && CONTINUED.has(this.before) && piece.text.trim() === '') return;
    this.run.push(piece);
    if (piece.op !== 'glue') this.flush();
  }

  /** Writes what is left at the end of the text. */
  end(): void {
    if (this.run.length > 0) this.flush();
  }

  private get level(): Level {
    return this.levels.at(-1) as Level;
  }

  private openAt(at: number): void {
    this.opensAt.set(at, (this.opensAt.get(at) ?? 0) + 1);
  }

  private flush(): void {
    const { out, levels } = this;
    const run = this.run;
    this.run = [];
    const { closers, openers, flows } = leadingWords((run[0] as Piece).text);
    const closed: Level[] = [];
    for (let n = 0; n < closers && this.level.kind === 'group'; n++) closed.push(levels.pop() as Level);
    // The words that end or part a group (`}`, `fi`, `then`, `do`…) come first, before a list that
    // starts here; those that start one after, the group's steps starting before them.
    const opening = flows.findIndex((flow) => OPENING_FLOWS.has(flow));
    const listHere = this.level.list === out.length;
    for (const flow of opening === -1 ? flows : flows.slice(0, opening)) out.push(flow);
    if (listHere) this.level.list = out.length;
    const opened: Level[] = [];
    for (const kind of openers) {
      opened.push({ kind: 'group', at: out.length, list: out.length, piped: this.before === '|' && !this.lastPipeInShell, pattern: kind === 'case' ? true : null });
    }
    levels.push(...opened);
    if (opening !== -1) for (const flow of flows.slice(opening)) out.push(flow);
    for (const level of opened) level.list = out.length;
    const last = (run.at(-1) as Piece).op;
    const branch = this.level.pattern === true && last === ')';
    const after = effectiveOp(last, this.level);
    const piped = (this.before === '|' && !this.lastPipeInShell) || after === '|';
    if (piped) out.push('enter');
    for (const piece of run) out.push({ command: piece.text });
    if (piped) out.push('leave');
    for (const group of closed) {
      if (!group.piped && after !== '|') continue;
      this.openAt(group.at);
      out.push('leave');
    }
    if (after === '&') {
      this.openAt(this.level.list);
      out.push('leave');
    }
    if (branch) out.push('branch');
    if (after === '&&' || after === '||' || after === ';' || after === '&') out.push(after === '&' ? ';' : last === ';&' ? ';&' : after);
    if (after === ';' || after === '&') this.level.list = out.length;
    if (after === '(' || (after === '`' && !this.backquoted)) {
      out.push('open');
      levels.push({ kind: 'subshell', at: out.length, list: out.length, piped: false, pattern: null });
      this.subshells++;
    } else if ((after === ')' || after === '`') && this.subshells > 0) {
      this.subshells--;
      // Groups left open in it (a syntax error) end with it.
      for (let closing = levels.pop(); closing?.kind !== 'subshell'; closing = levels.pop()) continue;
      out.push('close');
    }
    if (after === '`') this.backquoted = !this.backquoted;
    this.before = after;
  }
}

/** The operators a list or a pipeline goes on after, past line breaks. */
const CONTINUED: ReadonlySet<Op> = new Set<Op>(['&&', '||', '|']);

/** `out` with the subshell starts `opensAt` holds put in before the steps at their indices. */
export function assembled(out: readonly Step[], opensAt: ReadonlyMap<number, number>): Step[] {
  if (opensAt.size === 0) return [...out];
  const all: Step[] = [];
  for (let at = 0; at <= out.length; at++) {
    for (let n = opensAt.get(at) ?? 0; n > 0; n--) all.push('enter');
    if (at < out.length) all.push(out[at] as Step);
  }
  return all;
}

/**
 * `op` as it acts in `group`: in a case's pattern, `|` parts patterns and `(` `)` enclose one; `;;`
 * ends a branch, after which a pattern comes again.
 */
function effectiveOp(op: Op, group: Level): Op {
  if (op === ';;' || op === ';&' || op === 'glue') {
    if (op !== 'glue' && group.pattern === false) group.pattern = true;
    return op === 'glue' ? 'glue' : ';';
  }
  if (group.pattern !== true || (op !== '|' && op !== '(' && op !== ')')) return op;
  if (op === ')') group.pattern = false;
  return ';';
}

/** A function's name after `function`, followed by its body's `{`. */
const FUNCTION_HEADER = /\s+[^\s{}()]+(?=\s+\{(?:\s|$))/y;

/** The Flow marker each reserved word a piece may start with is read as. */
const FLOW_OF: Readonly<Record<string, Flow>> = {
  '{': '{', '}': '}', if: 'if', then: 'then', elif: 'elif', else: 'else', fi: 'fi', while: 'loop', until: 'loop', for: 'loop', select: 'loop',
  do: 'do', done: 'done', case: 'case', esac: 'esac', '!': '!',
};

/** The markers that start a group, and those that may come with them (`! {`). */
const OPENING_FLOWS: ReadonlySet<Flow> = new Set<Flow>(['{', 'if', 'loop', 'case']);

/**
 * The reserved words a piece starts with: how many groups they end (`}`, `fi`…), the groups they start,
 * and the Flow marker of each, in order.
 */
function leadingWords(text: string): { closers: number; openers: string[]; flows: Flow[] } {
  let closers = 0;
  const openers: string[] = [];
  const flows: Flow[] = [];
  const word = /\s*(\S+)/y;
  for (let match = word.exec(text); match !== null; match = word.exec(text)) {
    const next = match[1] as string;
    // `function f { …`: the body's `{` starts a group as any other does.
    FUNCTION_HEADER.lastIndex = word.lastIndex;
    if (next === 'function' && FUNCTION_HEADER.test(text)) {
      word.lastIndex = FUNCTION_HEADER.lastIndex;
      continue;
    }
    if (openers.length === 0 && CLOSERS.has(next)) closers++;
    else if (OPENERS.has(next)) openers.push(next);
    else if (!BEFORE_OPENER.has(next)) break;
    const flow = FLOW_OF[next];
    if (flow !== undefined) flows.push(flow);
    // for, select and case are followed by words, not commands.
    if (next === 'for' || next === 'select' || next === 'case') break;
  }
  return { closers, openers, flows };
}
