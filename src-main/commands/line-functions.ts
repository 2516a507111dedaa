/**
 * Shell functions defined on the line, for the never-run rule (whole-tree.ts): `f() { …; }`,
 * `function f { …; }`, `function f() { …; }`. Their bodies' simple commands are kept, so a call of
 * one (`f /`) can be read as its body run with the call's arguments as $1, $2… A body in parentheses
 * (`f() ( … )`) is not kept: its commands are still read where it is defined, without the arguments.
 */

/** A name a function can be given. */
const FUNCTION_NAME = /^[A-Za-z_][\w.:-]*$/;

interface OpenBody {
  name: string;
  commands: string[];
  /** `{` groups open in it, its own included. */
  depth: number;
}

/** The functions a text defines, learnt a simple command at a time, in the order they run. */
export class LineFunctions {
  /** A function's name whose `{` is still to come (after `f()`, or `function f`); `parens`: its `()` is still to come. */
  private header: { name: string; parens: boolean } | null = null;
  private open: OpenBody | null = null;

  /** `bodies`: the functions known so far, shared with the reading of a body, which can define more. */
  constructor(private readonly bodies = new Map<string, readonly string[]>()) {}

  /** The same functions, for reading a body run by a call (its own definitions are learnt anew). */
  forCall(): LineFunctions {
    return new LineFunctions(this.bodies);
  }

  /** A copy whose definitions stay its own: for text that may not run (an alias's, an eval's). */
  apart(): LineFunctions {
    return new LineFunctions(new Map(this.bodies));
  }

  /** Whether the command just read belongs to a body being defined, which runs only when called. */
  get defining(): boolean {
    return this.open !== null;
  }

  /** The body's simple commands of the function `name`, if defined on the line. */
  body(name: string): readonly string[] | undefined {
    return this.bodies.get(name);
  }

  /** Learns from the next simple command (`command`, its words `all`): a header, a body's start, its commands. */
  read(command: string, all: readonly string[]): void {
    if (this.open) this.extend(this.open, command, all);
    else if (this.header) this.afterHeader(this.header, command, all);
    else if (all.length === 1 && FUNCTION_NAME.test(all[0] as string)) this.header = { name: all[0] as string, parens: true };
    else if (all[0] === 'function' && FUNCTION_NAME.test(all[1] ?? '')) {
      const name = all[1] as string;
      if (all.length === 2) this.header = { name, parens: false };
      else if (all[2] === '{') this.open = { name, commands: [command], depth: 1 };
    }
  }

  /** After `f` comes `()`, which the shell's reading cuts into an empty command, then the body's `{`. */
  private afterHeader(header: { name: string; parens: boolean }, command: string, all: readonly string[]): void {
    if (all.length === 0 && command.trim() === '') {
      this.header = { name: header.name, parens: false };
      return;
    }
    this.header = null;
    if (all[0] === '{' && !header.parens) this.open = { name: header.name, commands: [command], depth: 1 };
    else this.read(command, all);
  }

  private extend(open: OpenBody, command: string, all: readonly string[]): void {
    open.commands.push(command);
    if (all[0] === '{') open.depth++;
    else if (all[0] === '}') open.depth--;
    if (open.depth > 0) return;
    this.bodies.set(open.name, open.commands);
    this.open = null;
  }
}
