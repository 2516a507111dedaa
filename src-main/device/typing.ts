import { Key } from '@nut-tree-fork/nut-js';
import { hasCommand, runFile } from './exec';
import { pressChord, tapKey, typeWithNut } from './input';
import { usLayoutKey } from './keys';
import { TYPING_DELAY_MS, typingBudgetMs } from './timeouts';
import { chunkBySlots, missingChars, openKeymapSession } from './xkeymap';

/**
 * type_text. nut.js keyboard.type() on X11 drops Shift for symbols (`>` arrives as `.`) and cannot type
 * non-ASCII at all, so on X11 the text goes through `xdotool type`, with characters the layout lacks
 * bound to spare keycodes first (xkeymap.ts). Newlines press Enter, tabs press Tab.
 */

export type TypingMethod = 'xdotool' | 'nut-us-layout' | 'nut';

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

async function xdotoolType(text: string): Promise<void> {
  const env = xdotoolEnv();
  const type = (piece: string): Promise<string> =>
    runFile('xdotool', ['type', '--clearmodifiers', '--delay', String(TYPING_DELAY_MS), '--', piece], {
      env,
      timeoutMs: typingBudgetMs(piece),
    });

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
async function usLayoutType(text: string): Promise<void> {
  const chars = [...text];
  const untypable = [...new Set(chars.filter((c) => usLayoutKey(c) === undefined))];
  if (untypable.length > 0) {
    throw new Error(
      `cannot type ${untypable.map((c) => JSON.stringify(c)).join(', ')} without xdotool; install it (apt install xdotool)`,
    );
  }
  for (const char of chars) {
    const mapped = usLayoutKey(char);
    if (mapped) await tapKey(mapped.key, mapped.shift);
  }
}

async function nutType(text: string): Promise<void> {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line) await typeWithNut(line);
    if (i < lines.length - 1) await pressChord([Key.Enter]);
  }
}

export async function chooseTypingMethod(): Promise<TypingMethod> {
  if (process.platform === 'linux' && process.env.DISPLAY) {
    return (await hasCommand('xdotool')) ? 'xdotool' : 'nut-us-layout';
  }
  return 'nut';
}

export async function typeText(raw: string): Promise<TypingMethod> {
  const text = normaliseNewlines(raw);
  const method = await chooseTypingMethod();
  if (method === 'xdotool') await xdotoolType(text);
  else if (method === 'nut-us-layout') await usLayoutType(text);
  else await nutType(text);
  return method;
}
