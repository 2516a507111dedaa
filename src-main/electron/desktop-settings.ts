import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { readValidatedJson, writeJsonAtomic } from '../common/json-file';

/**
 * Settings only the desktop app has (the stop hotkey, what the window does while the agent acts,
 * notifications), in `desktop-settings.json` in the userData folder. They are not part of
 * `DeskhandConfig` because browser mode and the CLI have no use for them.
 */

const MODIFIERS = new Set([
  'command',
  'cmd',
  'control',
  'ctrl',
  'commandorcontrol',
  'cmdorctrl',
  'alt',
  'option',
  'altgr',
  'shift',
  'super',
  'meta',
]);
/** Modifiers that make a combination safe to grab system-wide (Shift alone is not: it types). */
const STRONG_MODIFIERS = new Set([...MODIFIERS].filter((name) => name !== 'shift'));

const NAMED_KEYS = new Set(
  [
    'Plus', 'Space', 'Tab', 'Capslock', 'Numlock', 'Scrolllock', 'Backspace', 'Delete', 'Insert', 'Return',
    'Enter', 'Up', 'Down', 'Left', 'Right', 'Home', 'End', 'PageUp', 'PageDown', 'Escape', 'Esc',
    'VolumeUp', 'VolumeDown', 'VolumeMute', 'MediaNextTrack', 'MediaPreviousTrack', 'MediaStop',
    'MediaPlayPause', 'PrintScreen', 'numdec', 'numadd', 'numsub', 'nummult', 'numdiv',
  ].map((key) => key.toLowerCase()),
);

function isKey(part: string): boolean {
  if (/^[A-Za-z0-9]$/.test(part)) return true;
  if (/^F([1-9]|1\d|2[0-4])$/i.test(part)) return true;
  if (/^num[0-9]$/i.test(part)) return true;
  if (/^[)!@#$%^&*(:;<=,_\->.?/~`{}[\]|\\'"]$/.test(part)) return true;
  return NAMED_KEYS.has(part.toLowerCase());
}

/** Modifier names by what they are: Ctrl and Cmd both count as the "primary" one (copy is Ctrl+C or Cmd+C). */
function modifierRole(modifier: string): 'primary' | 'alt' | 'shift' | 'super' {
  switch (modifier) {
    case 'alt':
    case 'option':
    case 'altgr':
      return 'alt';
    case 'shift':
      return 'shift';
    case 'super':
    case 'meta':
      return 'super';
    default:
      return 'primary';
  }
}

const KEY_ALIASES: Record<string, string> = { esc: 'escape', return: 'enter' };

/** "alt+shift+tab": roles in a fixed order, then the key, lower case. */
function canonical(roles: ReadonlySet<string>, key: string): string {
  const lower = key.toLowerCase();
  const ordered = ['primary', 'alt', 'shift', 'super'].filter((role) => roles.has(role));
  return [...ordered, KEY_ALIASES[lower] ?? lower].join('+');
}

/**
 * Shortcuts every application or the desktop relies on; taken as a global hotkey, Stop would take them
 * from all of them. "Ctrl" stands for Ctrl and Cmd alike.
 */
const RESERVED_SHORTCUTS: ReadonlyArray<readonly [use: string, shortcuts: string]> = [
  ['copy, cut and paste', 'Ctrl+C Ctrl+X Ctrl+V Ctrl+Insert Ctrl+Shift+V Ctrl+Shift+C'],
  ['undo and redo', 'Ctrl+Z Ctrl+Y Ctrl+Shift+Z'],
  [
    'selecting and editing text',
    'Ctrl+A Ctrl+Backspace Ctrl+Delete Ctrl+Left Ctrl+Right Ctrl+Up Ctrl+Down Ctrl+Home Ctrl+End ' +
      'Ctrl+Shift+Left Ctrl+Shift+Right Ctrl+Shift+Up Ctrl+Shift+Down Ctrl+Shift+Home Ctrl+Shift+End',
  ],
  ['saving, opening, printing and finding', 'Ctrl+S Ctrl+Shift+S Ctrl+O Ctrl+N Ctrl+Shift+N Ctrl+P Ctrl+F Ctrl+H Ctrl+R'],
  ['closing, hiding and quitting', 'Alt+F4 Ctrl+F4 Ctrl+W Ctrl+Shift+W Ctrl+Q Ctrl+M Ctrl+T Ctrl+Shift+T'],
  [
    'switching windows and tabs',
    'Alt+Tab Alt+Shift+Tab Alt+Escape Ctrl+Tab Ctrl+Shift+Tab Ctrl+` Ctrl+PageUp Ctrl+PageDown Alt+Left Alt+Right ' +
      'Super+Tab Super+Shift+Tab Ctrl+Alt+Left Ctrl+Alt+Right Ctrl+Alt+Up Ctrl+Alt+Down',
  ],
  [
    "the desktop's own shortcuts",
    'Ctrl+Alt+Delete Ctrl+Alt+Escape Ctrl+Escape Ctrl+Space Alt+Space Super+Space Alt+F1 Alt+F2 Ctrl+Alt+T ' +
      'Super+L Super+D Super+E Super+R Super+Up Super+Down Super+Left Super+Right Ctrl+Shift+3 Ctrl+Shift+4 Ctrl+Shift+5',
  ],
];

const RESERVED = new Map<string, string>(
  RESERVED_SHORTCUTS.flatMap(([use, shortcuts]) =>
    shortcuts.split(' ').map((shortcut) => {
      const parts = shortcut.split('+');
      const roles = new Set(parts.slice(0, -1).map((part) => modifierRole(part.toLowerCase())));
      return [canonical(roles, parts.at(-1) as string), use] as const;
    }),
  ),
);

/** Modifiers and key of a well-formed accelerator, or null. */
function parseAccelerator(value: string): { modifiers: string[]; key: string } | null {
  // "Plus" names the + key, so splitting on '+' is unambiguous.
  const parts = value.split('+');
  if (parts.length < 2 || parts.some((part) => part.trim() !== part || part === '')) return null;
  const key = parts.at(-1) as string;
  const modifiers = parts.slice(0, -1).map((part) => part.toLowerCase());
  if (!isKey(key) || MODIFIERS.has(key.toLowerCase())) return null;
  if (!modifiers.every((modifier) => MODIFIERS.has(modifier))) return null;
  if (new Set(modifiers).size !== modifiers.length) return null;
  return { modifiers, key };
}

/**
 * What other programs use `value` for ("copy, cut and paste"), when it is one of the shortcuts a
 * global hotkey must not take; null otherwise.
 */
export function reservedShortcutUse(value: string): string | null {
  const parsed = parseAccelerator(value);
  if (!parsed) return null;
  const roles = new Set(parsed.modifiers.map(modifierRole));
  const found = RESERVED.get(canonical(roles, parsed.key));
  if (found) return found;
  // Super is the Windows key on Windows and Linux but Cmd on macOS, where Super+C copies.
  if (!roles.has('super')) return null;
  const asCmd = new Set([...roles].filter((role) => role !== 'super'));
  asCmd.add('primary');
  return RESERVED.get(canonical(asCmd, parsed.key)) ?? null;
}

/**
 * Whether `value` is an Electron accelerator fit for a global hotkey: modifiers joined by '+', then
 * exactly one key, with at least one modifier other than Shift (a bare key would be taken from every
 * application on the desktop), and none of the editing or window shortcuts other programs rely on.
 */
export function isGlobalAccelerator(value: string): boolean {
  const parsed = parseAccelerator(value);
  if (!parsed || !parsed.modifiers.some((modifier) => STRONG_MODIFIERS.has(modifier))) return false;
  return reservedShortcutUse(value) === null;
}

/** Ctrl+Shift+Escape (Cmd+Shift+Escape on macOS). */
export const DEFAULT_STOP_HOTKEY = 'CommandOrControl+Shift+Escape';
/**
 * Tried when the default is taken: on Windows Ctrl+Shift+Esc belongs to the Task Manager and cannot be
 * registered by an application.
 */
export const FALLBACK_STOP_HOTKEY = 'CommandOrControl+Alt+Shift+Escape';

/**
 * What the app's own window does while the agent acts, so it never appears in the agent's screenshots:
 * - protect: stay visible but excluded from screen capture (`setContentProtection`; macOS and Windows;
 *   on Linux, where it has no effect, it means minimize);
 * - minimize / hide: get out of the way while the agent acts, come back (without taking focus) when it
 *   waits for the user or stops;
 * - leave: do nothing (the agent sees the window);
 * - auto: protect where the OS supports it, otherwise minimize.
 */
export const WindowWhileActing = z.enum(['auto', 'protect', 'minimize', 'hide', 'leave']);
export type WindowWhileActing = z.infer<typeof WindowWhileActing>;

export const DesktopSettings = z
  .object({
    stopHotkey: z
      .string()
      .max(100)
      .superRefine((value, ctx) => {
        const use = reservedShortcutUse(value);
        if (use) {
          ctx.addIssue({
            code: 'custom',
            message: `${value} is one of the shortcuts for ${use} in other programs, and a Stop hotkey would take it from all of them: choose another, e.g. ${DEFAULT_STOP_HOTKEY}`,
          });
        } else if (!isGlobalAccelerator(value)) {
          ctx.addIssue({
            code: 'custom',
            message: `a key with at least one of Ctrl, Alt, Cmd or Super, e.g. ${DEFAULT_STOP_HOTKEY}`,
          });
        }
      })
      .default(DEFAULT_STOP_HOTKEY),
    windowWhileActing: WindowWhileActing.default('auto'),
    /** Tell the user (system notification) when the agent waits and the window is not focused. */
    notifications: z.boolean().default(true),
  })
  .strict();
export type DesktopSettings = z.infer<typeof DesktopSettings>;
export type DesktopSettingsInput = z.input<typeof DesktopSettings>;

export const DESKTOP_SETTINGS_FILE = 'desktop-settings.json';

export type DesktopSettingsUpdate =
  | { ok: true; settings: DesktopSettings }
  | { ok: false; errors: Array<{ path: string; message: string }> };

/**
 * Loads, checks and saves the desktop settings. A file with values that cannot be used is kept aside
 * (`.bad`) and its good values are kept; one that is no JSON object gives the defaults.
 */
export class DesktopSettingsFile {
  readonly path: string;
  readonly loadProblem: string | null;
  private current: DesktopSettings;

  constructor(dir: string) {
    this.path = join(dir, DESKTOP_SETTINGS_FILE);
    const raw = readJsonObject(this.path);
    const read = readValidatedJson(this.path, DesktopSettings);
    this.loadProblem = read.problem;
    this.current = read.value ?? DesktopSettings.parse({});
    // The file is edited by hand: one bad value (a misspelt policy, a hotkey another version refuses)
    // drops only itself, not the Stop hotkey and the rest with it. The file as it was is kept aside.
    if (read.problem && raw && !existsSync(this.path)) {
      const { settings, dropped } = salvage(raw);
      this.current = settings;
      let kept = 'the other values are kept';
      try {
        writeJsonAtomic(this.path, settings);
      } catch (error) {
        kept = `the other values are kept for this run only (they could not be written back: ${(error as Error).message})`;
      }
      this.loadProblem = `${this.path} had values Deskhand cannot use, which were dropped (${dropped.join('; ')}); ${kept}; the file as it was is ${this.path}.bad`;
    }
  }

  get(): DesktopSettings {
    return { ...this.current };
  }

  /** `values` merged over the current settings and checked, without saving them. */
  check(values: unknown): DesktopSettingsUpdate {
    if (typeof values !== 'object' || values === null || Array.isArray(values)) {
      return { ok: false, errors: [{ path: '', message: 'expected an object of settings' }] };
    }
    const parsed = DesktopSettings.safeParse({ ...this.current, ...values });
    if (!parsed.success) {
      return {
        ok: false,
        errors: parsed.error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message })),
      };
    }
    return { ok: true, settings: parsed.data };
  }

  save(settings: DesktopSettings): void {
    writeJsonAtomic(this.path, settings);
    this.current = { ...settings };
  }
}

/** The JSON object in `path`, or null (missing, unreadable, no JSON, or not an object). */
function readJsonObject(path: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The settings of `raw` that are valid one by one (defaults for the rest), and what was dropped and why. */
function salvage(raw: Record<string, unknown>): { settings: DesktopSettings; dropped: string[] } {
  const kept: Record<string, unknown> = {};
  const dropped: string[] = [];
  for (const [name, value] of Object.entries(raw)) {
    if (!Object.hasOwn(DesktopSettings.shape, name)) {
      dropped.push(`${name}: not a desktop setting`);
      continue;
    }
    const parsed = DesktopSettings.safeParse({ [name]: value });
    if (parsed.success) kept[name] = value;
    else dropped.push(`${name}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  }
  return { settings: DesktopSettings.parse(kept), dropped };
}

/** What `auto` means on this platform (content protection exists on macOS and Windows only). */
export function effectiveWindowPolicy(
  setting: WindowWhileActing,
  platform: NodeJS.Platform = process.platform,
): Exclude<WindowWhileActing, 'auto'> {
  const canProtect = platform === 'darwin' || platform === 'win32';
  // Content protection does nothing on Linux: there, "protect" would leave the window in every screenshot.
  if (setting === 'auto' || (setting === 'protect' && !canProtect)) return canProtect ? 'protect' : 'minimize';
  return setting;
}
