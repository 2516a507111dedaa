/**
 * Stop from outside the window: the global hotkey, the tray and the menu all end here. Stop sends
 * `session.stop` through the same protocol endpoint the UI uses, for every session still active
 * (normally one), so it behaves exactly like the Stop button.
 */
import type { HostCommand, HostMessage } from '../protocol';
import { DEFAULT_STOP_HOTKEY, FALLBACK_STOP_HOTKEY } from './desktop-settings';

export interface GlobalShortcutLike {
  register(accelerator: string, callback: () => void): boolean;
  unregister(accelerator: string): void;
}

let stopRequests = 0;

/** Sends session.stop for each id; resolves with the ids the host agreed to stop. */
export async function stopSessions(
  sessionIds: readonly string[],
  handle: (command: HostCommand) => Promise<HostMessage>,
): Promise<string[]> {
  const stopped: string[] = [];
  for (const sessionId of sessionIds) {
    const reply = await handle({ type: 'session.stop', id: `shell-stop-${++stopRequests}`, sessionId });
    if (reply.type === 'reply' && reply.ok) stopped.push(sessionId);
    else if (reply.type === 'reply') console.error(`[deskhand] stop ${sessionId}: ${reply.error.message}`);
  }
  return stopped;
}

/**
 * The global Stop hotkey. Registers the configured accelerator; when that is the default and the
 * system has it (Windows keeps Ctrl+Shift+Esc for the Task Manager), the fallback is tried.
 */
export class StopHotkey {
  private registered: string | null = null;

  constructor(
    private readonly shortcuts: GlobalShortcutLike,
    private readonly onStop: () => void,
  ) {}

  /** The accelerator in use, or null when none could be registered. */
  get current(): string | null {
    return this.registered;
  }

  /**
   * Moves Stop to `accelerator` (for the default, to its fallback when the default is taken). The new
   * one is registered before the one in use is let go, so a taken accelerator leaves Stop where it was.
   * Returns the accelerator now in use for it, or null when none could be registered.
   */
  set(accelerator: string): string | null {
    return this.register(accelerator === DEFAULT_STOP_HOTKEY ? [accelerator, FALLBACK_STOP_HOTKEY] : [accelerator]);
  }

  /**
   * Puts Stop back on `accelerator` itself, the one it had a moment ago: for the default, not its fallback
   * (which `set` keeps when Stop is on it). Returns the accelerator now in use, or null.
   */
  restore(accelerator: string): string | null {
    return this.register([accelerator]);
  }

  private register(candidates: readonly string[]): string | null {
    if (this.registered && candidates.includes(this.registered)) return this.registered;
    for (const candidate of candidates) {
      let ok = false;
      try {
        ok = this.shortcuts.register(candidate, this.onStop);
      } catch {
        ok = false; // an accelerator the platform cannot express
      }
      if (ok) {
        if (this.registered) this.shortcuts.unregister(this.registered);
        this.registered = candidate;
        return candidate;
      }
      console.error(`[deskhand] the Stop hotkey ${candidate} is taken by another program`);
    }
    return null;
  }

  clear(): void {
    if (this.registered) this.shortcuts.unregister(this.registered);
    this.registered = null;
  }
}

/**
 * Moves Stop to the hotkey new settings ask for, before they are saved: null when it is in use, else why
 * the settings must be refused (Stop keeps the hotkey it had). `saved` is the setting so far: when it is
 * what is asked and could not be registered (at start-up), it is tried again but never refused.
 */
export function changeStopHotkey(hotkey: StopHotkey, wanted: string, saved: string): string | null {
  if (hotkey.set(wanted) !== null || wanted === saved) return null;
  const kept = hotkey.current ? `Stop keeps ${describeAccelerator(hotkey.current)}` : 'Stop keeps no hotkey';
  return `${describeAccelerator(wanted)} is taken by another program: ${kept}`;
}

/**
 * Registers the saved Stop hotkey at start-up. When another program has it (a hotkey of the user's own in
 * desktop-settings.json), Stop takes the default (or its fallback) rather than having no hotkey at all;
 * the saved setting stays as it is, and is tried again at the next start. Returns what to log, or null.
 */
export function startStopHotkey(hotkey: StopHotkey, saved: string, platform: NodeJS.Platform = process.platform): string | null {
  if (hotkey.set(saved) !== null) return null;
  const name = (accelerator: string) => describeAccelerator(accelerator, platform);
  const used = saved === DEFAULT_STOP_HOTKEY ? null : hotkey.set(DEFAULT_STOP_HOTKEY);
  if (used) return `the Stop hotkey ${name(saved)} is taken by another program: Stop uses ${name(used)} instead`;
  const tried = [...new Set([saved, DEFAULT_STOP_HOTKEY, FALLBACK_STOP_HOTKEY])].map(name);
  const others = tried.slice(1);
  const also = others.length > 0 ? `, and so are ${others.join(' and ')}` : '';
  return `the Stop hotkey ${tried[0]} is taken by another program${also}: Stop has no hotkey (the Stop button and the tray still stop a run)`;
}

/** "CommandOrControl+Shift+Escape" as people read it on this platform. */
export function describeAccelerator(accelerator: string, platform: NodeJS.Platform = process.platform): string {
  const mac = platform === 'darwin';
  return accelerator
    .split('+')
    .map((part) => {
      switch (part.toLowerCase()) {
        case 'commandorcontrol':
        case 'cmdorctrl':
          return mac ? 'Cmd' : 'Ctrl';
        case 'command':
        case 'cmd':
          return 'Cmd';
        case 'control':
        case 'ctrl':
          return 'Ctrl';
        case 'option':
          return 'Option';
        case 'escape':
        case 'esc':
          return 'Esc';
        default:
          return part;
      }
    })
    .join('+');
}
