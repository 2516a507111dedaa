import { runFile } from './exec';

/**
 * Temporary X keymap entries for characters the current layout cannot type.
 *
 * `xdotool type` handles such characters (ü, €, 中, or `{` on layouts that need AltGr) by binding them
 * to a scratch keycode, sending the key, and unbinding at once. Clients look the keycode up lazily after
 * the MappingNotify, often after the unbinding, so about one in ten such characters is lost (measured
 * under Xvfb with xterm). Binding every needed character before xdotool starts, waiting for clients to
 * catch up, and unbinding after a pause types them all.
 */

const ASCII_KEYSYMS: Record<string, string> = {
  ' ': 'space',
  '!': 'exclam',
  '"': 'quotedbl',
  '#': 'numbersign',
  $: 'dollar',
  '%': 'percent',
  '&': 'ampersand',
  "'": 'apostrophe',
  '(': 'parenleft',
  ')': 'parenright',
  '*': 'asterisk',
  '+': 'plus',
  ',': 'comma',
  '-': 'minus',
  '.': 'period',
  '/': 'slash',
  ':': 'colon',
  ';': 'semicolon',
  '<': 'less',
  '=': 'equal',
  '>': 'greater',
  '?': 'question',
  '@': 'at',
  '[': 'bracketleft',
  '\\': 'backslash',
  ']': 'bracketright',
  '^': 'asciicircum',
  _: 'underscore',
  '`': 'grave',
  '{': 'braceleft',
  '|': 'bar',
  '}': 'braceright',
  '~': 'asciitilde',
};

/** Keysym name for one character: ASCII by its X name, anything else as a Unicode keysym "U00FC". */
export function keysymFor(char: string): string {
  const ascii = ASCII_KEYSYMS[char];
  if (ascii) return ascii;
  if (/^[A-Za-z0-9]$/.test(char)) return char;
  const code = char.codePointAt(0) ?? 0;
  return `U${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

export interface Keymap {
  /** Keycodes with no keysyms at all, highest first. */
  free: number[];
  /** Keysym names reachable without modifiers other than Shift (first two columns). */
  typable: Set<string>;
}

/** Parses `xmodmap -pke`. */
export function parseKeymap(output: string): Keymap {
  const free: number[] = [];
  const typable = new Set<string>();
  for (const line of output.split('\n')) {
    const match = /^keycode\s+(\d+)\s*=(.*)$/.exec(line);
    if (!match) continue;
    const code = Number(match[1]);
    const syms = (match[2] ?? '').trim().split(/\s+/).filter(Boolean);
    // Keycode 8 is valid in X11 but some toolkits ignore it.
    if (syms.length === 0 && code > 8) free.push(code);
    for (const sym of syms.slice(0, 2)) if (sym !== 'NoSymbol') typable.add(sym);
  }
  free.sort((a, b) => b - a);
  return { free, typable };
}

/** Characters of `text` the keymap cannot type directly (newline and tab are always fine). */
export function missingChars(text: string, keymap: Keymap): string[] {
  const missing = new Set<string>();
  for (const char of text) {
    if (char === '\n' || char === '\t') continue;
    const sym = keysymFor(char);
    if (!keymap.typable.has(sym) && !keymap.typable.has(sym.toLowerCase())) missing.add(char);
  }
  return [...missing];
}

/**
 * Splits text into pieces that each need at most `slots` extra characters, keeping order.
 * Returns the pieces with the characters each needs.
 */
export function chunkBySlots(text: string, missing: ReadonlySet<string>, slots: number): { text: string; needs: string[] }[] {
  const chunks: { text: string; needs: string[] }[] = [];
  let current = '';
  let needs = new Set<string>();
  for (const char of text) {
    if (missing.has(char) && !needs.has(char) && needs.size >= slots) {
      chunks.push({ text: current, needs: [...needs] });
      current = '';
      needs = new Set();
    }
    if (missing.has(char)) needs.add(char);
    current += char;
  }
  if (current) chunks.push({ text: current, needs: [...needs] });
  return chunks;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface KeymapSession {
  keymap: Keymap;
  /** Binds the characters to free keycodes (replacing the previous binding of this session). */
  bind(chars: readonly string[]): Promise<void>;
  /** Unbinds everything this session bound. */
  restore(): Promise<void>;
}

/** Clients need a moment to process MappingNotify before keys arrive, and after, before unbinding. */
export const SETTLE_MS = 80;

export async function openKeymapSession(env: NodeJS.ProcessEnv): Promise<KeymapSession> {
  const keymap = parseKeymap(await runFile('xmodmap', ['-pke'], { env, timeoutMs: 5_000 }));
  let bound: number[] = [];
  const xmodmap = (expressions: string[]): Promise<string> =>
    runFile('xmodmap', expressions.flatMap((e) => ['-e', e]), { env, timeoutMs: 5_000 });
  return {
    keymap,
    async bind(chars) {
      if (chars.length > keymap.free.length) throw new Error('more characters than free keycodes');
      const codes = keymap.free.slice(0, chars.length);
      const stale = bound.filter((code) => !codes.includes(code));
      await xmodmap([
        ...chars.map((char, i) => `keycode ${codes[i]} = ${keysymFor(char)}`),
        ...stale.map((code) => `keycode ${code} =`),
      ]);
      bound = codes;
      await sleep(SETTLE_MS);
    },
    async restore() {
      if (bound.length === 0) return;
      await sleep(SETTLE_MS);
      const codes = bound;
      bound = [];
      await xmodmap(codes.map((code) => `keycode ${code} =`));
    },
  };
}
