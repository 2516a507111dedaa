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

  /** (Re)registers; returns the accelerator in use or null. */
  set(accelerator: string): string | null {
    this.clear();
    const candidates = accelerator === DEFAULT_STOP_HOTKEY ? [accelerator, FALLBACK_STOP_HOTKEY] : [accelerator];
    for (const candidate of candidates) {
      let ok = false;
      try {
        ok = this.shortcuts.register(candidate, this.onStop);
      } catch {
        ok = false; // an accelerator the platform cannot express
      }
      if (ok) {
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
