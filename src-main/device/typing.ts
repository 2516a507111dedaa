import { clipboard, Key } from '@nut-tree-fork/nut-js';
import { throwIfAborted } from './abort';
import { findClipboardTool, primaryPasteApp, setSelections } from './clipboard';
import { hasCommand, runFile } from './exec';
import { pressChord, tapKey, typeWithNut } from './input';
import { usLayoutKey } from './keys';
import { TYPING_DELAY_MS, typingBudgetMs } from './timeouts';
import { getWindow, windowIds } from './windows';
import { chunkBySlots, missingChars, openKeymapSession } from './xkeymap';

/**
 * type_text. nut.js keyboard.type() on X11 drops Shift for symbols (`>` arrives as `.`) and cannot type
 * non-ASCII at all, so on X11 the text goes through `xdotool type`, with characters the layout lacks
 * bound to spare keycodes first (xkeymap.ts). Newlines press Enter, tabs press Tab. Any other control
 * character refuses the whole text, whichever way it would go (refuseControlCharacters).
 *
 * Paste: text longer than PASTE_THRESHOLD_CHARS (typing 10,000 characters takes over a minute), text
 * the available typing method cannot produce, or `method: "paste"` goes through the clipboard
 * instead: on X11 the CLIPBOARD selection is set (PRIMARY too when the focused window is xterm or
 * another terminal that pastes PRIMARY; clipboard.ts) and Shift+Insert pressed, which pastes in GTK,
 * Qt, Chromium and terminals alike; elsewhere nut.js sets the clipboard and Ctrl+V (Cmd+V on macOS)
 * pastes. The clipboard keeps the text afterwards. `method: "type"` never pastes.
 *
 * Stop: text is typed in pieces of TYPING_PIECE_CHARS with a check of the call's signal between them,
 * so a cancelled call stops within one piece. The typing program is not killed mid-piece: a key it has
 * pressed but not yet released (Shift, say) would stay down for the whole desktop. The same checkpoint
 * runs the caller's `beforeKeys` (the keyboard check: is the focus still where the input was judged
 * for?), and before the key that pastes.
 */

export type TypingMethod = 'xdotool' | 'nut-us-layout' | 'nut' | 'paste';
export type TypingMode = 'auto' | 'type' | 'paste';

/**
 * Runs before each piece of input is sent, with how many characters went before it; throws to stop the
 * input there.
 */
export type BeforeKeys = (sent: number) => Promise<void>;

/** Above this many characters, auto mode pastes when a clipboard is available. */
export const PASTE_THRESHOLD_CHARS = 1_000;
/** Typing goes in pieces of at most this many characters, with a check for a cancel between them. */
export const TYPING_PIECE_CHARS = 32;
/** The application reads the selection asynchronously after the paste key; give it this long. */
const PASTE_SETTLE_MS = 150;

export class UntypableTextError extends Error {
  override name = 'UntypableTextError';
}

/**
 * Text with a control character type_text refuses, typed or pasted alike. Not an UntypableTextError:
 * that one makes auto mode paste the text instead, and a paste is exactly where a control character
 * does harm (a terminal takes ESC as the start of an escape sequence, U+0003 as Ctrl+C).
 */
export class ControlCharacterError extends Error {
  override name = 'ControlCharacterError';
}

/**
 * The first control character (Unicode Cc: C0, DEL and the C1 controls U+0080..U+009F) other than a
 * line break or a tab, which are keys (Enter, Tab); undefined when there is none.
 */
export function forbiddenControl(text: string): string | undefined {
  for (const char of text) {
    if (char !== '\n' && char !== '\t' && /\p{Cc}/u.test(char)) return char;
  }
  return undefined;
}

/** U+001B for ESC. */
export function codePointName(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Throws ControlCharacterError naming the first control character `text` may not hold. */
export function refuseControlCharacters(text: string): void {
  const control = forbiddenControl(text);
  if (control === undefined) return;
  throw new ControlCharacterError(
    `the text holds the control character ${codePointName(control)}, which type_text neither types nor pastes: press keys with hotkey instead`,
  );
}

export function normaliseNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

function isUtf8Locale(env: NodeJS.ProcessEnv): boolean {
  const locale = env.LC_ALL || env.LC_CTYPE || env.LANG || '';
  return /utf-?8/i.test(locale);
}

/** xdotool decodes its argument with the C library's locale; in the C locale any non-ASCII byte fails. */
function xdotoolEnv(): NodeJS.ProcessEnv {
  return isUtf8Locale(process.env) ? process.env : { ...process.env, LC_ALL: 'C.UTF-8' };
}

/**
 * `text` cut into pieces of at most `size` characters (code points, so no character is split), and
 * before every line break: Enter is the key that runs a line, so the check between pieces comes right
 * before it.
 */
export function typingPieces(text: string, size = TYPING_PIECE_CHARS): string[] {
  const pieces: string[] = [];
  let piece: string[] = [];
  for (const char of text) {
    if (piece.length === size || (char === '\n' && piece.length > 0)) {
      pieces.push(piece.join(''));
      piece = [];
    }
    piece.push(char);
  }
  if (piece.length > 0) pieces.push(piece.join(''));
  return pieces;
}

async function xdotoolType(text: string, before: BeforeKeys): Promise<void> {
  const env = xdotoolEnv();
  let sent = 0;
  const type = async (chunk: string): Promise<void> => {
    for (const piece of typingPieces(chunk)) {
      await before(sent);
      await runFile('xdotool', ['type', '--clearmodifiers', '--delay', String(TYPING_DELAY_MS), '--', piece], {
        env,
        timeoutMs: typingBudgetMs(piece),
      });
      sent += [...piece].length;
    }
  };

  const needsKeymap = /[^A-Za-z0-9 \n\t]/.test(text);
  if (!needsKeymap || !(await hasCommand('xmodmap'))) {
    await type(text);
    return;
  }
  const session = await openKeymapSession(env);
  const missing = missingChars(text, session.keymap);
  if (missing.length === 0 || session.keymap.free.length === 0) {
    await type(text);
    return;
  }
  try {
    for (const chunk of chunkBySlots(text, new Set(missing), session.keymap.free.length)) {
      if (chunk.needs.length > 0) await session.bind(chunk.needs);
      await type(chunk.text);
    }
  } finally {
    await session.restore();
  }
}

/** X11 without xdotool: one key at a time with explicit Shift, correct for US layouts only. */
async function usLayoutType(text: string, before: BeforeKeys, signal?: AbortSignal): Promise<void> {
  const chars = [...text];
  const untypable = [...new Set(chars.filter((c) => usLayoutKey(c) === undefined))];
  if (untypable.length > 0) {
    throw new UntypableTextError(
      `cannot type ${untypable.map((c) => JSON.stringify(c)).join(', ')} without xdotool; install it (apt install xdotool)`,
    );
  }
  let sinceCheck = 0;
  for (const [index, char] of chars.entries()) {
    if (sinceCheck === TYPING_PIECE_CHARS || char === '\n' || index === 0) {
      await before(index);
      sinceCheck = 0;
    }
    sinceCheck++;
    throwIfAborted(signal);
    const mapped = usLayoutKey(char);
    if (mapped) await tapKey(mapped.key, mapped.shift);
  }
}

async function nutType(text: string, before: BeforeKeys, signal?: AbortSignal): Promise<void> {
  const lines = text.split('\n');
  let sent = 0;
  for (let i = 0; i < lines.length; i++) {
    for (const piece of typingPieces(lines[i] ?? '')) {
      await before(sent);
      await typeWithNut(piece);
      sent += [...piece].length;
    }
    if (i < lines.length - 1) {
      await before(sent);
      await pressChord([Key.Enter], signal);
      sent += 1;
    }
  }
}

export async function chooseTypingMethod(): Promise<Exclude<TypingMethod, 'paste'>> {
  if (process.platform === 'linux' && process.env.DISPLAY) {
    return (await hasCommand('xdotool')) ? 'xdotool' : 'nut-us-layout';
  }
  return 'nut';
}

/** Whether paste can work here: an X11 clipboard tool, or nut.js's clipboard on Windows and macOS. */
export async function canPaste(): Promise<boolean> {
  if (process.platform === 'linux') return (await findClipboardTool()) !== null;
  return process.platform === 'darwin' || process.platform === 'win32';
}

async function focusedAppPastesPrimary(): Promise<boolean> {
  try {
    const { active } = await windowIds();
    return active !== null && primaryPasteApp((await getWindow(active)).app);
  } catch {
    return false;
  }
}

/**
 * Pastes `text` into the focused control. A final newline is pressed as Enter after the paste rather
 * than pasted: shells with bracketed paste (bash 5.1 and later, zsh) hold pasted newlines in the
 * command line, and only a key press runs it, as typing the text would have.
 */
async function pasteText(raw: string, signal?: AbortSignal, beforeKeys?: BeforeKeys): Promise<void> {
  const before = checkpoint(signal, beforeKeys);
  const enter = raw.endsWith('\n');
  const text = enter ? raw.slice(0, -1) : raw;
  if (text.length > 0) await pasteOnly(text, before);
  if (enter) {
    await before([...text].length);
    await pressChord([Key.Enter]);
  }
}

/** Stop, then the caller's check, before each piece of input. */
function checkpoint(signal: AbortSignal | undefined, beforeKeys: BeforeKeys | undefined): BeforeKeys {
  return async (sent) => {
    throwIfAborted(signal);
    await beforeKeys?.(sent);
    // The check can take a while (X round trips): a Stop meanwhile still stops this piece.
    throwIfAborted(signal);
  };
}

async function pasteOnly(text: string, before: BeforeKeys): Promise<void> {
  if (process.platform === 'linux') {
    const tool = await findClipboardTool();
    if (!tool) {
      throw new Error('cannot paste: no clipboard tool (install xclip or xsel, e.g. apt install xclip)');
    }
    await setSelections(tool, text, (await focusedAppPastesPrimary()) ? ['clipboard', 'primary'] : ['clipboard']);
    await before(0);
    await pressChord([Key.LeftShift, Key.Insert]);
  } else {
    await clipboard.setContent(text);
    await before(0);
    await pressChord([process.platform === 'darwin' ? Key.LeftSuper : Key.LeftControl, Key.V]);
  }
  await new Promise((resolve) => setTimeout(resolve, PASTE_SETTLE_MS));
}

async function typeWith(method: Exclude<TypingMethod, 'paste'>, text: string, before: BeforeKeys, signal?: AbortSignal): Promise<void> {
  if (method === 'xdotool') await xdotoolType(text, before);
  else if (method === 'nut-us-layout') await usLayoutType(text, before, signal);
  else await nutType(text, before, signal);
}

/**
 * Types (or pastes) `raw` into the focused control and says which way it went. Rejects with a
 * ControlCharacterError, sending nothing, when the text holds a control character other than a line
 * break (\r\n and \r count as \n) or a tab; with the signal's reason once it is aborted, or with what
 * `beforeKeys` throws, leaving the rest of the text untyped.
 */
export async function typeText(raw: string, mode: TypingMode = 'auto', signal?: AbortSignal, beforeKeys?: BeforeKeys): Promise<TypingMethod> {
  const text = normaliseNewlines(raw);
  // Before any way of sending it is chosen, so the clipboard is not touched either.
  refuseControlCharacters(text);
  if (mode === 'paste') {
    await pasteText(text, signal, beforeKeys);
    return 'paste';
  }
  if (mode === 'auto' && [...text].length > PASTE_THRESHOLD_CHARS && (await canPaste())) {
    await pasteText(text, signal, beforeKeys);
    return 'paste';
  }
  const method = await chooseTypingMethod();
  try {
    await typeWith(method, text, checkpoint(signal, beforeKeys), signal);
  } catch (error) {
    // Nothing was typed yet when the text is refused up front, so pasting instead types nothing twice.
    if (mode === 'auto' && error instanceof UntypableTextError && (await canPaste())) {
      await pasteText(text, signal, beforeKeys);
      return 'paste';
    }
    throw error;
  }
  return method;
}
