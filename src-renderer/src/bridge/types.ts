import type { CommandResult, HostCommandInput, HostCommandType, HostEvent, ScreenshotRef } from '../../../src-main/protocol';

/** A command as a UI writes it: the bridge assigns the id. */
export type CommandInput<T extends HostCommandType> = { type: T } & Omit<Extract<HostCommandInput, { type: T }>, 'id'>;

/**
 * `unreachable`: several attempts in a row failed without a connection; `refused`: the host answered
 * that the token is not (or no longer) valid, which only opening the address it printed again mends.
 */
export type BridgeConnection = 'connecting' | 'connected' | 'disconnected' | 'unreachable' | 'refused';

export type Unsubscribe = () => void;

/** A stored screenshot held for an <img> while a component shows it. */
export interface ScreenshotLease {
  /** Its address, once it can be shown; rejects when it cannot be loaded. */
  readonly url: Promise<string>;
  /** No longer shown: its memory may go. */
  release(): void;
}

/** The renderer's only way to talk to the host; the same components run on either implementation. */
export interface Bridge {
  /** Sends a command and resolves with its validated result; rejects with the host's message when it refuses. */
  send<T extends HostCommandType>(command: CommandInput<T>): Promise<CommandResult<T>>;
  onEvent(listener: (event: HostEvent) => void): Unsubscribe;
  /** The listener is called at once with the current state, then on every change. */
  onConnection(listener: (state: BridgeConnection) => void): Unsubscribe;
  /** Problems not tied to one `send` (an error reply without an id, a transport failure). */
  onError(listener: (error: Error) => void): Unsubscribe;
  /**
   * A step's screenshot. Its address never carries the access token: an image address can be copied
   * ("Copy image address"), and shown on a screen the agent takes pictures of.
   */
  screenshot(ref: ScreenshotRef): ScreenshotLease;
}
