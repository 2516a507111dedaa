import { Key } from '@nut-tree-fork/nut-js';

/**
 * The tools' key names (lowercase) -> nut.js keys. Aliases cover what models commonly write
 * instead ("control", "return", "escape", "cmd", ...). Matching is case-insensitive.
 */
const NAMED: Record<string, Key> = {
  ctrl: Key.LeftControl,
  control: Key.LeftControl,
  alt: Key.LeftAlt,
  option: Key.LeftAlt,
  altgr: Key.RightAlt,
  shift: Key.LeftShift,
  meta: Key.LeftSuper,
  cmd: Key.LeftSuper,
  command: Key.LeftSuper,
  win: Key.LeftSuper,
  super: Key.LeftSuper,
  enter: Key.Enter,
  return: Key.Enter,
  tab: Key.Tab,
  esc: Key.Escape,
  escape: Key.Escape,
  backspace: Key.Backspace,
  delete: Key.Delete,
  del: Key.Delete,
  insert: Key.Insert,
  space: Key.Space,
  up: Key.Up,
  down: Key.Down,
  left: Key.Left,
  right: Key.Right,
  home: Key.Home,
  end: Key.End,
  pageup: Key.PageUp,
  pagedown: Key.PageDown,
  capslock: Key.CapsLock,
  printscreen: Key.Print,
  menu: Key.Menu,
  f1: Key.F1,
  f2: Key.F2,
  f3: Key.F3,
  f4: Key.F4,
  f5: Key.F5,
  f6: Key.F6,
  f7: Key.F7,
  f8: Key.F8,
  f9: Key.F9,
  f10: Key.F10,
  f11: Key.F11,
  f12: Key.F12,
};

const SYMBOLS: Record<string, Key> = {
  '`': Key.Grave,
  '-': Key.Minus,
  '=': Key.Equal,
  '[': Key.LeftBracket,
  ']': Key.RightBracket,
  '\\': Key.Backslash,
  ';': Key.Semicolon,
  "'": Key.Quote,
  ',': Key.Comma,
  '.': Key.Period,
  '/': Key.Slash,
  ' ': Key.Space,
};

const DIGITS = [Key.Num0, Key.Num1, Key.Num2, Key.Num3, Key.Num4, Key.Num5, Key.Num6, Key.Num7, Key.Num8, Key.Num9];

export class KeyNameError extends Error {
  override name = 'KeyNameError';
}

export function keyFromName(name: string): Key | undefined {
  const lower = name.toLowerCase();
  // Own properties only: "constructor" would otherwise find Object, and a chord would press it.
  if (Object.hasOwn(NAMED, lower)) return NAMED[lower];
  if (name.length !== 1) return undefined;
  if (lower >= 'a' && lower <= 'z') return Key[lower.toUpperCase() as keyof typeof Key];
  if (name >= '0' && name <= '9') return DIGITS[Number(name)];
  return Object.hasOwn(SYMBOLS, name) ? SYMBOLS[name] : undefined;
}

/** Maps every name or throws one error naming all unknown ones and what is accepted. */
export function parseKeys(names: readonly string[]): Key[] {
  const unknown = names.filter((name) => keyFromName(name) === undefined);
  if (unknown.length > 0) {
    throw new KeyNameError(
      `unknown key name${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => JSON.stringify(n)).join(', ')}; ` +
        'use ctrl, alt, shift, meta, enter, tab, esc, backspace, delete, space, up, down, left, right, home, end, ' +
        'pageup, pagedown, f1..f12, or a single letter, digit or unshifted symbol (` - = [ ] \\ ; \' , . /)',
    );
  }
  return names.map((name) => keyFromName(name) as Key);
}

/** US-layout keys for printable ASCII: [key, needs shift]. Used only where xdotool is unavailable. */
const SHIFTED: Record<string, string> = {
  '~': '`',
  '!': '1',
  '@': '2',
  '#': '3',
  $: '4',
  '%': '5',
  '^': '6',
  '&': '7',
  '*': '8',
  '(': '9',
  ')': '0',
  _: '-',
  '+': '=',
  '{': '[',
  '}': ']',
  '|': '\\',
  ':': ';',
  '"': "'",
  '<': ',',
  '>': '.',
  '?': '/',
};

export function usLayoutKey(char: string): { key: Key; shift: boolean } | undefined {
  if (char === '\n') return { key: Key.Enter, shift: false };
  if (char === '\t') return { key: Key.Tab, shift: false };
  if (char >= 'A' && char <= 'Z') return { key: keyFromName(char) as Key, shift: true };
  const base = SHIFTED[char];
  if (base !== undefined) return { key: keyFromName(base) as Key, shift: true };
  const key = keyFromName(char);
  return key === undefined || char.length !== 1 ? undefined : { key, shift: false };
}
