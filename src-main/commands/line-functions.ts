import { ScopedMap } from './scoped-map';
import { isFlow, type Step } from './shell-steps';

/**
 * Shell functions defined on the line, for the never-run rule (whole-tree.ts): `f() { …; }`,
 * `function f { …; }`, `function f() { …; }`, and `f() ( … )`, whose body runs in a subshell. Their
 * bodies' steps are kept, so a call of one (`f /`) can be read as its body run with the call's
 * arguments as $1, $2…
 */

/** A name a function can be given. */
const FUNCTION_NAME = /^[A-Za-z_][\w.:-]*$/;

interface OpenBody {
  name: string;
  steps: Step[];
  /** `{` groups open in it, its own included; for a body in parentheses, the subshells open in it. */
  depth: number;
  parens: boolean;
}

/**
 * A name whose body is still to come: after `f` its `()` is (`name`), inside them (`inParens`),
 * after them (`body`); after `function f`, either (`function`).
 */
interface Header {
  name: string;
  stage: 'name' | 'inParens' | 'body' | 'function';
  /** Written with `function`. */
  function: boolean;
}

/** The functions a text defines, learnt a step at a time, in the order they run. */
export class LineFunctions {
  private header: Header | null = null;
  private open: OpenBody | null = null;
  /** Subshells the text does not spell open after a header, whose commands come before the body's. */
  private hidden = 0;
  /**
   * The Flow markers read since the last other step: those a body's first command starts with (`{`,
   * `if`, `while`… of `f() { if …`) come before it, and are part of the body.
   */
  private flows: Step[] = [];

  /** `bodies`: the functions known so far, shared with the reading of a body, which can define more. */
  constructor(private readonly bodies = new ScopedMap<readonly Step[]>()) {}

  /** The same functions, for reading a body run by a call (its own definitions are learnt anew). */
  forCall(): LineFunctions {
    return new LineFunctions(this.bodies);
  }

  /** A copy whose definitions stay its own: for text that may not run (an alias's, an eval's). */
  apart(): LineFunctions {
    return new LineFunctions(this.bodies.copy());
  }

  /** Whether the step just read belongs to a body being defined, which runs only when called. */
  get defining(): boolean {
    return this.open !== null;
  }

  /** The body's steps of the function `name`, if defined on the line. */
  body(name: string): readonly Step[] | undefined {
    return this.bodies.get(name);
  }

  /** A mark to take the definitions back to, at the end of a subshell. */
  mark(): number {
    return this.bodies.mark();
  }

  rollback(mark: number): void {
    this.bodies.rollback(mark);
  }

  /** Learns from the next step (a command's words `all`): a header, a body's start, its steps. */
  read(step: Step, all: readonly string[]): void {
    const flows = this.flows;
    if (isFlow(step)) flows.push(step);
    else this.flows = [];
    if (this.open) this.extend(this.open, step, all);
    else if (this.header) this.afterHeader(this.header, step, all, flows);
    else if (typeof step === 'string') return;
    else if (all.length === 1 && FUNCTION_NAME.test(all[0] as string)) this.header = { name: all[0] as string, stage: 'name', function: false };
    else if (all[0] === 'function' && FUNCTION_NAME.test(all[1] ?? '')) {
      const name = all[1] as string;
      if (all.length === 2) this.header = { name, stage: 'function', function: true };
      else if (all[2] === '{') this.open = { name, steps: [...fromBrace(flows), step], depth: 1, parens: false };
    }
  }

  /** After `f` come `()`, which the reading cuts as a subshell around an empty command, then the body. */
  private afterHeader(header: Header, step: Step, all: readonly string[], flows: Step[]): void {
    // Where the text may fork (`f || g`, the `{` a body starts with): no command of its own.
    if (isFlow(step)) return;
    // A subshell the text does not spell after `()` (`"$(…)"` in the body's first command) is no part
    // of the header; after a name alone, it is another command (`ls | cat`).
    if (step === 'enter' && header.stage === 'name') {
      this.header = null;
      return;
    }
    if (step === 'enter' || step === 'leave') this.hidden += step === 'enter' ? 1 : -1;
    if (step === 'enter' || step === 'leave' || this.hidden > 0) return;
    const blank = typeof step !== 'string' && all.length === 0 && step.command.trim() === '';
    if (step === 'open' && (header.stage === 'name' || header.stage === 'function')) header.stage = 'inParens';
    else if (step === 'close' && header.stage === 'inParens') header.stage = 'body';
    else if (step === 'open' && header.stage === 'body') {
      this.header = null;
      this.open = { name: header.name, steps: [step], depth: 1, parens: true };
    } else if (blank && header.stage !== 'name') return;
    // `function f ( … )`: what follows its `(` is a body in parentheses, not `()`.
    else if (header.stage === 'inParens' && header.function) {
      this.header = null;
      this.open = { name: header.name, steps: ['open', ...flows, step], depth: 1, parens: true };
    } else {
      this.header = null;
      if (all[0] === '{' && header.stage !== 'name' && header.stage !== 'inParens') this.open = { name: header.name, steps: [...fromBrace(flows), step], depth: 1, parens: false };
      else {
        // Read as the line's own step, the markers before it with it (`f\nfunction g { if …`).
        this.flows = flows;
        this.read(step, all);
      }
    }
  }

  private extend(open: OpenBody, step: Step, all: readonly string[]): void {
    open.steps.push(step);
    if (open.parens ? step === 'open' : all[0] === '{') open.depth++;
    else if (open.parens ? step === 'close' : all[0] === '}') open.depth--;
    if (open.depth > 0) return;
    this.bodies.set(open.name, open.steps);
    this.open = null;
  }
}

/** The markers from the body's `{` on: those before it (`;` after the command before) are the line's. */
function fromBrace(flows: readonly Step[]): Step[] {
  const at = flows.indexOf('{');
  return at === -1 ? [] : flows.slice(at);
}
