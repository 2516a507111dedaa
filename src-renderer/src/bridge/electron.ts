import type { CommandResult, HostCommandInput, HostCommandType, HostEvent, ScreenshotRef } from '../../../src-main/protocol';
import { REPLY_DEADLINE_MS, withReplyDeadline } from './deadline';
import { HostCommandError, toError } from './errors';
import { ListenerSet } from './listeners';
import { tooLargeToSend } from './message-size';
import { nextRequestId, parseHostMessage, resultFromReply, withRequestId } from './replies';
import { screenshotPath } from './screenshot-path';
import type { Bridge, BridgeConnection, CommandInput, ScreenshotLease, Unsubscribe } from './types';

/** What the Electron preload exposes as `window.deskhand` (contextBridge). */
export interface DeskhandPreloadApi {
  /** Sends one command; resolves with the host's reply message (validated here, not trusted). */
  invoke(command: HostCommandInput): Promise<unknown>;
  /** Every message the host pushes (events); returns an unsubscribe function. */
  onMessage(listener: (message: unknown) => void): () => void;
}

declare global {
  interface Window {
    deskhand?: DeskhandPreloadApi;
  }
}

/** Desktop mode: commands over IPC `invoke`, events over the preload's message channel. */
export class ElectronBridge implements Bridge {
  private readonly events = new ListenerSet<HostEvent>();
  private readonly errors = new ListenerSet<Error>();
  private stopListening: (() => void) | null = null;

  constructor(
    private readonly api: DeskhandPreloadApi,
    private readonly replyDeadlineMs = REPLY_DEADLINE_MS,
  ) {}

  start(): void {
    if (this.stopListening) return;
    this.stopListening = this.api.onMessage((raw) => {
      const message = parseHostMessage(raw);
      if (!message) return;
      if (message.type === 'event') this.events.emit(message.event);
      // Replies come back through `invoke`; only an error nobody asked for needs telling here.
      else if (!message.ok && message.id === null) {
        this.errors.emit(new HostCommandError(message.error.message, message.error.code));
      }
    });
  }

  dispose(): void {
    this.stopListening?.();
    this.stopListening = null;
  }

  async send<T extends HostCommandType>(command: CommandInput<T>): Promise<CommandResult<T>> {
    const id = nextRequestId();
    const message = withRequestId(command, id);
    // Measured as the main process measures it: the list of the call's arguments.
    const tooLarge = tooLargeToSend(JSON.stringify([message]));
    if (tooLarge) throw new Error(tooLarge);
    let raw: unknown;
    try {
      raw = await withReplyDeadline(this.api.invoke(message), command.type, this.replyDeadlineMs);
    } catch (error) {
      throw toError(error);
    }
    const reply = parseHostMessage(raw);
    if (!reply || reply.type !== 'reply') {
      throw new Error(`The host sent no valid reply to ${command.type}.`);
    }
    if (reply.id !== null && reply.id !== id) {
      throw new Error(`The host replied to ${reply.id} when asked ${id}.`);
    }
    return resultFromReply(command.type, reply);
  }

  onEvent(listener: (event: HostEvent) => void): Unsubscribe {
    return this.events.add(listener);
  }

  /** IPC to the main process cannot drop, so the desktop app is always connected. */
  onConnection(listener: (state: BridgeConnection) => void): Unsubscribe {
    listener('connected');
    return () => {};
  }

  onError(listener: (error: Error) => void): Unsubscribe {
    return this.errors.add(listener);
  }

  /** app:// needs no token: only this app's own pages can load from it. */
  screenshot(ref: ScreenshotRef): ScreenshotLease {
    return { url: Promise.resolve(`app://screenshots/${screenshotPath(ref)}`), release: () => undefined };
  }
}
