import { posix } from 'node:path';
import { outputFiles, programOf } from './shell-text';
import { hereStringOf, writtenText } from './written-text';

/**
 * Scripts written and run on the same line, for the never-run rule (whole-tree.ts): what `echo` or
 * `printf` writes to a file (`> x.sh`, `>> x.sh`, `| tee x.sh`) is shell text when a later command of
 * the line runs that file (`bash x.sh`, `. x.sh`, `./x.sh`, `crontab x.sh`), or at once when the file is
 * one a shell or cron runs by itself (`~/.bashrc`, `/etc/profile.d/…`, `/etc/cron.d/…`). Text only
 * printed, or written to a file nothing runs (`echo 'rm -rf /' > notes.txt`), is not read.
 */

/** Files a shell runs when it starts, or cron runs on schedule: anything written there runs later. */
const STARTUP_FILE =
  /(?:^|\/)(?:\.(?:bashrc|bash_profile|bash_login|bash_logout|profile|zshrc|zprofile|zshenv|zlogin|zlogout|kshrc|mkshrc|xprofile|xinitrc|xsessionrc)|bash\.bashrc|config\.fish|rc\.local|crontab|profile|profile\.d\/[^/]+|cron\.\w+\/[^/]+|cron\/(?:crontabs\/)?[^/]+)$/i;

/**
 * Programs that only read, list or change a file's metadata, and so do not run it (`cat x.sh`,
 * `chmod +x x.sh`): any other that names a written file may run it, and it is read.
 */
const READERS = new Set([
  'cat', 'less', 'more', 'head', 'tail', 'grep', 'egrep', 'fgrep', 'rg', 'wc', 'ls', 'stat', 'file', 'diff', 'cmp', 'nl',
  'od', 'xxd', 'hexdump', 'md5sum', 'sha1sum', 'sha256sum', 'shellcheck', 'vi', 'vim', 'nvim', 'nano', 'emacs', 'code',
  'gedit', 'chmod', 'touch', 'rm', 'echo', 'printf', 'test', '[', 'git', 'sort', 'uniq', 'cut', 'tr', 'awk', 'sed',
]);
/** Programs that run a file named after them even when a reader's name comes first (`sudo -u cat bash x.sh`). */
const RUNNERS = new Set([
  'sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'busybox', 'source', '.', 'exec', 'xargs', 'crontab', 'at', 'batch',
]);

/** The files a `tee` among `all` writes to: its words after it but options and a here-string. */
function teeFiles(all: readonly string[]): string[] {
  const tee = all.findIndex((word) => programOf(word) === 'tee');
  if (tee === -1) return [];
  const args = all.slice(tee + 1);
  return args.filter((word, at) => !word.startsWith('-') && !word.startsWith('<<<') && args[at - 1] !== '<<<');
}

/**
 * A written file's text to read as commands (null: too long to keep, so it cannot be read): `atHome`
 * when a shell or cron runs it by itself, from home.
 */
export interface ScriptRun {
  text: string | null;
  atHome: boolean;
}

/** A file's text is kept up to this length: copies of copies (`cat x >> y; cat y >> x`…) could double it at each. */
const MAX_KEPT = 1_000_000;

/** The text written to files on the line so far, learnt a simple command at a time. */
export class WrittenScripts {
  /** By the file's name (any folder: a folder the rule cannot follow must not hide it), in lower case; null past MAX_KEPT. */
  private readonly texts = new Map<string, string | null>();
  /** What the command before wrote, for a `tee` or a lone `&> f` it goes to. */
  private lastWritten: string | null = null;

  /**
   * Learns from the next simple command (`command`, its words `all`, `expand` giving a word its known
   * variables) and gives the written text it runs, or that reaches a start-up file. `piped`: the text
   * pipes into a shell (whatever names a file may feed it) or into tee.
   */
  read(command: string, all: readonly string[], expand: (word: string) => string, piped: { shell: boolean; tee: boolean }): ScriptRun[] {
    const targets = outputFiles(command).map(expand);
    const names = this.namedIn(command, all, expand);
    const runs = names.length > 0 && (piped.shell || !onlyReads(all, names)) ? names.map((name) => ({ text: this.texts.get(name) ?? null, atHome: false })) : [];
    // What a command that names a written file writes out may be that file (`cat x.sh > y.sh`); a lone
    // redirection writes what the command before wrote (`echo … &> f`, which the reading cuts at `&`).
    const copied = names.filter((name) => !targets.some((file) => keyOf(file) === name)).map((name) => this.texts.get(name) ?? null);
    const written = [withText(writtenText(all)) ?? '', all.length === 0 ? (this.lastWritten ?? '') : '', ...copied];
    const teeText = hereStringOf(all) ?? (piped.tee ? this.lastWritten : null);
    this.lastWritten = withText(writtenText(all));
    return [...runs, ...this.write(targets, joined(written)), ...this.write(teeFiles(all).map(expand), teeText ?? '')];
  }

  /** Records `text` as written to each of `files`; gives it back to read at once for a start-up file. */
  private write(files: readonly string[], text: string | null): ScriptRun[] {
    if (text === '') return [];
    const runs: ScriptRun[] = [];
    for (const file of files.filter((name) => name !== '')) {
      if (STARTUP_FILE.test(file)) runs.push({ text, atHome: true });
      const key = keyOf(file);
      const before = this.texts.get(key);
      this.texts.set(key, joined([before ?? '', text]));
    }
    return runs;
  }

  /** The written files `command` (its words `all`) names, as a word or a redirection's file (`bash < x.sh`), by key. */
  private namedIn(command: string, all: readonly string[], expand: (word: string) => string): string[] {
    if (this.texts.size === 0) return [];
    const tokens = command.replace(/["']/g, '').split(/[\s<>;&|()]+/).map(expand);
    const names = new Set([...tokens, ...all].map(keyOf));
    return [...names].filter((name) => this.texts.has(name));
  }
}

/** What echo or printf wrote, null when only blanks: nothing that runs. */
function withText(text: string | null): string | null {
  return text !== null && /\S/.test(text) ? text : null;
}

/**
 * Texts one after the other, as a file appended to holds them (`echo -n 'rm -rf '`, then `echo /`
 * appended, is one line); null when one is too long to keep, or all are together. Joined with +
 * (which does not copy them), since a file can be appended to many times.
 */
function joined(texts: ReadonlyArray<string | null>): string | null {
  if (texts.includes(null)) return null;
  const parts = texts as readonly string[];
  if (parts.reduce((sum, text) => sum + text.length, 0) > MAX_KEPT) return null;
  return parts.reduce((all, text) => all + text, '');
}

function keyOf(file: string): string {
  return posix.basename(file).toLowerCase();
}

/**
 * Whether the command only reads the files it names: a reader comes before any word naming one of
 * them, and no program that runs a file is among its words.
 */
function onlyReads(all: readonly string[], names: readonly string[]): boolean {
  const reader = all.findIndex((word) => READERS.has(programOf(word)));
  if (reader === -1 || all.some((word) => RUNNERS.has(programOf(word)))) return false;
  const named = new Set(names);
  return all.every((word, at) => at > reader || !named.has(keyOf(word)));
}
