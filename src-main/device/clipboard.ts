import { spawn } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { hasCommand, runFile } from './exec';

/**
 * The X11 clipboard, for type_text's paste method. Uses `xclip` or `xsel` from PATH, else the xsel
 * binary that ships with nut.js's clipboard provider (clipboardy), so pasting works without extra
 * system packages on x86-64 Linux. Shift+Insert pastes: GTK, Qt, Chromium and most terminals read the
 * CLIPBOARD selection for it, and Ctrl+V would type a control character into a terminal. xterm and a
 * few other terminals read PRIMARY instead (primaryPasteApp); only for those is PRIMARY set too,
 * because taking PRIMARY makes other applications drop their own text selection, so the paste would
 * no longer replace the selected text.
 *
 * The clipboard keeps the pasted text afterwards: restoring the previous content would race with the
 * application, which asks for the selection asynchronously.
 */

export interface ClipboardTool {
  kind: 'xclip' | 'xsel';
  path: string;
}

export type Selection = 'clipboard' | 'primary';

const TIMEOUT_MS = 5_000;

async function executable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** clipboardy's bundled xsel, when it is on disk and runnable (not inside an asar archive). */
async function bundledXsel(): Promise<string | null> {
  if (process.platform !== 'linux' || process.arch !== 'x64') return null;
  try {
    const require = createRequire(import.meta.url);
    // clipboardy's exports map hides package.json; its main file sits at the package root.
    let base: string;
    try {
      base = dirname(require.resolve('clipboardy'));
    } catch {
      const provider = require.resolve('@nut-tree-fork/default-clipboard-provider');
      base = dirname(createRequire(provider).resolve('clipboardy'));
    }
    const path = join(base, 'fallbacks', 'linux', 'xsel').replace(/\.asar([\\/])/, '.asar.unpacked$1');
    return (await executable(path)) ? path : null;
  } catch {
    return null;
  }
}

let cached: Promise<ClipboardTool | null> | null = null;

/**
 * The first of xclip, xsel, bundled xsel that exists; null when none does (or not on X11). A tool found
 * is kept for the process's life; none found is looked for again on the next call, so a paste works as
 * soon as the agent has installed xclip.
 */
export function findClipboardTool(): Promise<ClipboardTool | null> {
  if (cached) return cached;
  const lookup = lookForClipboardTool();
  cached = lookup;
  const forget = (): void => {
    if (cached === lookup) cached = null;
  };
  void lookup.then((tool) => (tool ? undefined : forget()), forget);
  return lookup;
}

async function lookForClipboardTool(): Promise<ClipboardTool | null> {
  if (process.platform !== 'linux' || !process.env.DISPLAY) return null;
  if (await hasCommand('xclip')) return { kind: 'xclip', path: 'xclip' };
  if (await hasCommand('xsel')) return { kind: 'xsel', path: 'xsel' };
  const bundled = await bundledXsel();
  return bundled ? { kind: 'xsel', path: bundled } : null;
}

function utf8Env(): NodeJS.ProcessEnv {
  const locale = process.env.LC_ALL || process.env.LC_CTYPE || process.env.LANG || '';
  return /utf-?8/i.test(locale) ? process.env : { ...process.env, LC_ALL: 'C.UTF-8' };
}

function writeArgs(tool: ClipboardTool, selection: Selection): string[] {
  return tool.kind === 'xclip' ? ['-selection', selection, '-in'] : [`--${selection}`, '--input'];
}

function readArgs(tool: ClipboardTool, selection: Selection): string[] {
  return tool.kind === 'xclip' ? ['-selection', selection, '-out'] : [`--${selection}`, '--output'];
}

/**
 * Hands `text` to the tool on stdin. Both tools fork a process that serves the selection until another
 * program takes it; that process keeps any pipe it inherited open, so stdout and stderr are not piped.
 */
function write(tool: ClipboardTool, selection: Selection, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool.path, writeArgs(tool, selection), { stdio: ['pipe', 'ignore', 'ignore'], env: utf8Env() });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${tool.kind} did not take the text within ${TIMEOUT_MS} ms`));
    }, TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`${tool.kind} exited with code ${code} while setting the ${selection} selection`));
    });
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(text, 'utf8');
  });
}

export async function readSelection(tool: ClipboardTool, selection: Selection): Promise<string> {
  return runFile(tool.path, readArgs(tool, selection), { timeoutMs: TIMEOUT_MS, env: utf8Env() });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const PRIMARY_PASTE_APPS = new Set(['xterm', 'uxterm', 'rxvt', 'urxvt', 'st', 'st-256color', 'kitty', 'alacritty']);

/** Whether Shift+Insert in this application (WM_CLASS instance or class) pastes PRIMARY. */
export function primaryPasteApp(app: string): boolean {
  return PRIMARY_PASTE_APPS.has(app.toLowerCase());
}

/**
 * Puts `text` in the given selections and waits until reading them back gives the same text (the
 * serving process takes ownership a moment after the tool returns).
 */
export async function setSelections(
  tool: ClipboardTool,
  text: string,
  selections: readonly Selection[] = ['clipboard'],
): Promise<void> {
  for (const selection of selections) {
    await write(tool, selection, text);
    const deadline = Date.now() + 2_000;
    for (;;) {
      const now = await readSelection(tool, selection).catch(() => null);
      if (now === text) break;
      if (Date.now() > deadline) throw new Error(`the ${selection} selection did not take the text (${tool.kind})`);
      await sleep(20);
    }
  }
}
