import { join } from 'node:path';
import { z } from 'zod';
import { readValidatedJson, writeJsonAtomic } from '../host/settings-store';

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

/**
 * Whether `value` is an Electron accelerator fit for a global hotkey: modifiers joined by '+', then
 * exactly one key, with at least one modifier other than Shift (a bare key would be taken from every
 * application on the desktop).
 */
export function isGlobalAccelerator(value: string): boolean {
  // "Plus" names the + key, so splitting on '+' is unambiguous.
  const parts = value.split('+');
  if (parts.length < 2 || parts.some((part) => part.trim() !== part || part === '')) return false;
  const key = parts.at(-1) as string;
  const modifiers = parts.slice(0, -1).map((part) => part.toLowerCase());
  if (!isKey(key) || MODIFIERS.has(key.toLowerCase())) return false;
  if (!modifiers.every((modifier) => MODIFIERS.has(modifier))) return false;
  if (new Set(modifiers).size !== modifiers.length) return false;
  return modifiers.some((modifier) => STRONG_MODIFIERS.has(modifier));
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
      .refine(isGlobalAccelerator, {
        message: 'a key with at least one of Ctrl, Alt, Cmd or Super, e.g. CommandOrControl+Shift+Escape',
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

/** Loads, checks and saves the desktop settings; a damaged file is kept aside and defaults are used. */
export class DesktopSettingsFile {
  readonly path: string;
  readonly loadProblem: string | null;
  private current: DesktopSettings;

  constructor(dir: string) {
    this.path = join(dir, DESKTOP_SETTINGS_FILE);
    const read = readValidatedJson(this.path, DesktopSettings);
    this.loadProblem = read.problem;
    this.current = read.value ?? DesktopSettings.parse({});
  }

  get(): DesktopSettings {
    return { ...this.current };
  }

  /** Merges `values` over the current settings; saves only when all of it is valid. */
  update(values: unknown): DesktopSettingsUpdate {
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
    writeJsonAtomic(this.path, parsed.data);
    this.current = parsed.data;
    return { ok: true, settings: this.get() };
  }
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
