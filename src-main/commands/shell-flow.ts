import type { Pushed, Shell } from './shell-scope';
import type { Flow } from './shell-steps';

/**
 * Where the shell may be as the never-run rule (whole-tree.ts) reads its text, when not every command
 * of it runs: after `a && b` b may not have run, after `a || b` b ran only if a failed, an if's or a
 * case's branch may not be taken, a loop's body may run no time. Each command is read once, in the
 * order written (the reading stays linear in the text); at each fork the places the shell may be are
 * kept, and where the ways join again they are joined: the folders of each (a set of folders, in the
 * brace form `{a,b}` folderOf reads), their pushd stacks level by level. A way that ends (`exit`,
 * `exec prog`, `return` in a function's body) is left out of a join, so `cd build || exit 1; rm -rf *`
 * runs in build only. Outside a function `return` ends nothing: `bash -c`, which runs the command, says
 * it can only return from a function or a sourced script and goes on (`cd build || return; rm -rf *`
 * runs in home when the cd fails).
 *
 * Read per POSIX: `a && b || c` is `(a && b) || c`; b after `&&` from where a left the shell; c after
 * `||` from where the list before it failed: where its last command left the shell, or where that
 * command started, since a command may fail before it changes anything (a cd that fails stays). After a
 * list, where any of its ways stopped. A plain sequence (`cd x; rm -rf *`) is read as run in order,
 * each command taken as done: the text gives no sign that one may fail. Variables are not forked here:
 * an assignment that may be skipped (mayBeSkipped) is read by shell-scope's learn as giving the
 * variable either value, its own or the one before (`d=/; true || d=/tmp; rm -rf "$d"` reads both).
 */

/** Where the shell may be: its folder (or folders, `{a,b}`), its pushd stack, and whether this way has ended. */
export interface Place {
  cwd: string | null;
  pushed: Pushed;
  ended: boolean;
}

/**
 * Where an and-or list, or a command of it, leaves the shell: when it succeeds, when it fails (for a
 * `||` after it), and in all (for what comes after the list). A command that ran is taken as done
 * (`end` is where it left the shell, whether it failed or not); a list's end adds the ways that skipped
 * its last commands (`a && b`: a failed; `a || b`: a succeeded).
 */
interface Outcome {
  ok: Place;
  fail: Place;
  end: Place;
}

/** The text, a subshell or a group being read, with the list being read in it. */
interface Frame {
  kind: 'text' | 'subshell' | '{' | 'if' | 'loop' | 'case';
  /** Where the group started. */
  start: Place;
  /** The last and-or list read in it (a new one replaces it), null before any. */
  list: Outcome | null;
  /** The operator after the list's last command, whose next command is still to come. */
  pending: '&&' | '||' | null;
  /** A command (or group) came since the last `&&`, `||` or `;`. */
  operand: boolean;
  /** The next command's (or group's) outcome is reversed (`! cd x`). */
  negated: boolean;
  /** An if's last condition, whose failing way goes to the next elif, else or fi; a loop's condition. */
  condition: Outcome | null;
  /** The places the branches read so far ended in. */
  branches: Place | null;
  /** An if with an else (one branch is always taken); a case in a branch. */
  otherwise: boolean;
  /** Its commands may be skipped: it is in a branch or a loop, or after `&&` or `||`. */
  skippable: boolean;
  /** A case's branch just read ended in `;&` or `;;&`: the next may run after it. */
  fallthrough: boolean;
}

/** How much of two pushd stacks is joined level by level; below, the first's is kept. */
const MAX_PUSHED_JOINED = 8;

/**
 * The places a shell may be as its text's steps are read. `folders` joins two folders (each may be
 * several, `{a,b}`, or null: not known) into the braces that make each known one.
 */
export class ShellFlow {
  private readonly frames: Frame[] = [];
  /** In a function's body: where a `return` left it, for the caller to go on from. */
  private returned: Place | null = null;

  constructor(
    private readonly shell: Shell,
    private readonly folders: (a: string | null, b: string | null) => string | null,
    /** The steps are a function's body, read at a call: `return` ends the call, not the caller. */
    private readonly body = false,
  ) {
    this.frames.push(this.frame('text'));
  }

  /** Whether the next command may be skipped (after `&&` or `||`, in a branch, a loop's condition or body). */
  mayBeSkipped(): boolean {
    const top = this.top;
    return top.skippable || top.pending !== null;
  }

  /** Where the shell is now. */
  here(): Place {
    const { cwd, pushed, ended } = this.shell;
    return { cwd, pushed, ended };
  }

  /**
   * A command read from `start` (here before it), with the shell now where it left it; `how`: it
   * ends the way (`exit`, `exec prog`; `return` in a function's body).
   */
  ran(start: Place, how: 'exit' | 'return' | null): void {
    // Outside a function, bash -c (which runs the command) says return is not allowed there and goes on.
    const ends = how === 'return' && !this.body ? null : how;
    let after = this.here();
    if (ends === 'return' && this.body && !after.ended) this.returned = this.returned === null ? after : this.join(this.returned, after);
    if (ends !== null) {
      after = { ...after, ended: true };
      this.shell.ended = true;
    }
    this.operand({ ok: after, fail: after.ended ? after : this.join(start, after), end: after });
  }

  /** A subshell starts: its commands' ways are its own. */
  open(): void {
    this.frames.push(this.frame('subshell'));
  }

  /** A subshell ends, the shell being back where it started (as restored): its groups left open end with it. */
  close(): void {
    const at = this.frames.findLastIndex((frame) => frame.kind === 'subshell');
    if (at > 0) this.frames.length = at;
  }

  /** A Flow marker of the steps. */
  flow(marker: Flow): void {
    const top = this.top;
    switch (marker) {
      case '&&':
      case '||':
        this.endOperand();
        if (top.list !== null) this.set(marker === '&&' ? top.list.ok : top.list.fail);
        top.pending = marker;
        top.operand = false;
        return;
      case ';':
      case ';&':
        this.endOperand();
        top.pending = null;
        top.operand = false;
        if (top.kind === 'case') top.fallthrough = marker === ';&';
        return;
      case '!':
        top.negated = !top.negated;
        return;
      case '{':
        this.frames.push(this.frame('{'));
        return;
      case 'if':
        this.frames.push(this.frame('if'));
        return;
      case 'loop':
        this.frames.push(this.frame('loop'));
        return;
      case 'case':
        this.frames.push(this.frame('case'));
        return;
      case '}':
        if (top.kind === '{') this.pop(this.result(top));
        return;
      case 'then':
        if (top.kind !== 'if') return;
        top.condition = this.result(top);
        this.set(top.condition.ok);
        this.restart(top);
        return;
      case 'elif':
      case 'else':
        if (top.kind !== 'if') return;
        top.branches = this.joinOf(top.branches, this.here());
        this.set(top.condition?.fail ?? top.start);
        if (marker === 'else') top.otherwise = true;
        this.restart(top);
        return;
      case 'fi': {
        if (top.kind !== 'if') return;
        let all = this.join(top.branches ?? this.here(), this.here());
        // With no else, no branch may be taken: where the last condition failed.
        if (!top.otherwise) all = this.join(all, top.condition?.fail ?? top.start);
        this.pop({ ok: all, fail: all, end: all });
        return;
      }
      case 'do':
        if (top.kind !== 'loop') return;
        top.condition = this.result(top);
        this.restart(top);
        return;
      case 'done': {
        if (top.kind !== 'loop') return;
        // The body may run no time, or any number: where the loop started, its condition ended, its body ended.
        const all = this.join(this.join(top.start, top.condition?.end ?? top.start), this.here());
        this.pop({ ok: all, fail: all, end: all });
        return;
      }
      case 'branch':
        if (top.kind !== 'case') return;
        if (top.otherwise) top.branches = this.joinOf(top.branches, this.here());
        // After `;&` (or `;;&`) the branch may also run from where the one before ended.
        this.set(top.otherwise && top.fallthrough ? this.join(top.start, this.here()) : top.start);
        top.otherwise = true;
        top.fallthrough = false;
        this.restart(top);
        return;
      case 'esac': {
        if (top.kind !== 'case') return;
        // No pattern may match: where the case started.
        let all = this.join(top.start, top.branches ?? top.start);
        if (top.otherwise) all = this.join(all, this.here());
        this.pop({ ok: all, fail: all, end: all });
        return;
      }
    }
  }

  /** At the end of the steps: a body's `return`s join where it ended; the shell is where any way left it. */
  end(): void {
    if (this.returned !== null) this.set(this.join(this.here(), this.returned));
  }

  private get top(): Frame {
    return this.frames.at(-1) as Frame;
  }

  private frame(kind: Frame['kind']): Frame {
    const parent = this.frames.at(-1) as Frame | undefined;
    const skippable = parent !== undefined && (parent.skippable || parent.pending !== null || (kind !== 'subshell' && kind !== '{'));
    return { kind, start: this.here(), list: null, pending: null, operand: false, negated: false, condition: null, branches: null, otherwise: false, skippable, fallthrough: false };
  }

  /** A group's list starts again (a branch, a body). */
  private restart(frame: Frame): void {
    frame.list = null;
    frame.pending = null;
    frame.operand = false;
    frame.negated = false;
  }

  /** Where the last list read in `frame` leaves the shell: here when there is none. */
  private result(frame: Frame): Outcome {
    if (frame.pending !== null) this.endOperand();
    const here = this.here();
    return frame.list ?? { ok: here, fail: here, end: here };
  }

  /** A group ends with `outcome`: read as a command of the list it is in. */
  private pop(outcome: Outcome): void {
    if (this.frames.length > 1) this.frames.pop();
    this.operand(outcome);
  }

  /** Before `&&`, `||` or `;`, a command not read as one (a pipeline, a subshell): the shell where it is. */
  private endOperand(): void {
    const top = this.top;
    const here = this.here();
    if (!top.operand) this.operand({ ok: here, fail: here, end: here });
  }

  /** A command or group of the list being read, that ended as `outcome`. */
  private operand(outcome: Outcome): void {
    const top = this.top;
    const { ok, fail, end } = top.negated ? { ok: outcome.fail, fail: outcome.ok, end: outcome.end } : outcome;
    const list = top.list;
    if (top.pending === '&&' && list !== null) top.list = { ok, fail: this.join(list.fail, fail), end: this.join(end, list.fail) };
    else if (top.pending === '||' && list !== null) top.list = { ok: this.join(list.ok, ok), fail, end: this.join(end, list.ok) };
    else top.list = { ok, fail, end };
    top.pending = null;
    top.negated = false;
    top.operand = true;
    this.set(top.list.end);
  }

  private set(place: Place): void {
    this.shell.cwd = place.cwd;
    this.shell.pushed = place.pushed;
    this.shell.ended = place.ended;
  }

  private joinOf(a: Place | null, b: Place): Place {
    return a === null ? b : this.join(a, b);
  }

  /** Either place: a way that ended is left out, unless both have (then where either was). */
  private join(a: Place, b: Place): Place {
    if (a === b) return a;
    if (a.ended !== b.ended) return a.ended ? b : a;
    return { cwd: this.folders(a.cwd, b.cwd), pushed: this.joinPushed(a.pushed, b.pushed, 0), ended: a.ended };
  }

  private joinPushed(a: Pushed, b: Pushed, depth: number): Pushed {
    if (a === b || b === null || depth >= MAX_PUSHED_JOINED) return a;
    if (a === null) return b;
    return { folder: this.folders(a.folder, b.folder), below: this.joinPushed(a.below, b.below, depth + 1) };
  }
}
