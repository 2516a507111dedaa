import type { CommandResult, HostCommandType, HostEvent, ScreenshotRef } from '../../../src-main/protocol';
import { REPLY_DEADLINE_MS, withReplyDeadline } from './deadline';
import { HostCommandError, toError } from './errors';
import { ListenerSet } from './listeners';
import { tooLargeToSend } from './message-size';
import { nextRequestId, parseHostMessage, resultFromReply, withRequestId, type ReplyMessage } from './replies';
import { ScreenshotBlobs, type ObjectUrls } from './screenshot-blobs';
import { screenshotPath } from './screenshot-path';
import type { Bridge, BridgeConnection, CommandInput, ScreenshotLease, Unsubscribe } from './types';

/** The part of the browser's WebSocket this bridge uses; tests pass a fake. */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(): void;
  addEventListener(type: 'open' | 'close', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
}

/** What the bridge uses of `fetch`; tests pass a fake. */
export type FetchLike = (
  url: string,
  init: { headers: Record<string, string>; signal: AbortSignal; credentials: 'omit' },
) => Promise<{ ok: boolean; status: number; blob(): Promise<Blob> }>;

/** WebSocket.OPEN, spelled out so this file needs no DOM types. */
const SOCKET_OPEN = 1;

/** Attempts in a row that never connected, after which the user is told how to get back in (about 8 s at the default delays). */
const ATTEMPTS_BEFORE_UNREACHABLE = 5;

export interface WebSocketBridgeOptions {
  /** `host:port` of the Deskhand browser-mode server. */
  host: string;
  secure: boolean;
  token: string;
  createSocket(url: string): SocketLike;
  initialRetryDelayMs?: number;
  maxRetryDelayMs?: number;
  /**
   * Asks the server, after an attempt that never connected, whether it refuses the token (a browser
   * hides why a WebSocket handshake failed). True only when it answered so; then retrying stops.
   */
  tokenRefused?(): Promise<boolean>;
  /** Loads screenshots (default: the global fetch). */
  fetch?: FetchLike;
  /** Makes and revokes their blob: URLs (default: URL.createObjectURL and URL.revokeObjectURL). */
  objectUrls?: ObjectUrls;
  /** How long a command waits for its answer (default `REPLY_DEADLINE_MS`). */
  replyDeadlineMs?: number;
}

interface PendingRequest {
  settle(reply: ReplyMessage): void;
  fail(error: Error): void;
}

/** Browser mode: the protocol over one WebSocket, reconnecting with exponential backoff. */
export class WebSocketBridge implements Bridge {
  private socket: SocketLike | null = null;
  private connection: BridgeConnection = 'connecting';
  private readonly pending = new Map<string, PendingRequest>();
  private failedAttempts = 0;
  /** Attempts since the last connection that never connected. */
  private failedInARow = 0;
  private refused = false;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private started = false;
  private disposed = false;
  private readonly events = new ListenerSet<HostEvent>();
  private readonly connections = new ListenerSet<BridgeConnection>();
  private readonly errors = new ListenerSet<Error>();
  private readonly screenshots: ScreenshotBlobs;

  constructor(private readonly options: WebSocketBridgeOptions) {
    this.screenshots = new ScreenshotBlobs(
      (path, signal) => this.fetchScreenshot(path, signal),
      options.objectUrls ?? { create: (blob) => URL.createObjectURL(blob), revoke: (url) => URL.revokeObjectURL(url) },
    );
  }

  /** Connects; call after subscribing so that nothing the host sends first is missed. */
  start(): void {
    if (this.started) return;
    this.started = true;
    if (!this.options.token) {
      this.errors.emit(new Error('The address has no access token: open the link Deskhand printed (…/?token=…).'));
    }
    this.connect();
  }

  dispose(): void {
    this.disposed = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.socket?.close();
    this.failPending(new Error('The connection to Deskhand was closed.'));
  }

  send<T extends HostCommandType>(command: CommandInput<T>): Promise<CommandResult<T>> {
    const socket = this.socket;
    if (!socket || socket.readyState !== SOCKET_OPEN) {
      return Promise.reject(new Error('Not connected to Deskhand; reconnecting…'));
    }
    const id = nextRequestId();
    const text = JSON.stringify(withRequestId(command, id));
    // The host closes the connection on a message over its limit before reading it: said here instead,
    // the connection stays, and so does everything else on the page.
    const tooLarge = tooLargeToSend(text);
    if (tooLarge) return Promise.reject(new Error(tooLarge));
    const answered = new Promise<CommandResult<T>>((resolve, reject) => {
      this.pending.set(id, {
        settle: (reply) => {
          try {
            resolve(resultFromReply(command.type, reply));
          } catch (error) {
            reject(toError(error));
          }
        },
        fail: reject,
      });
      try {
        socket.send(text);
      } catch (error) {
        this.pending.delete(id);
        reject(toError(error));
      }
    });
    return withReplyDeadline(answered, command.type, this.options.replyDeadlineMs ?? REPLY_DEADLINE_MS, () => this.pending.delete(id));
  }

  onEvent(listener: (event: HostEvent) => void): Unsubscribe {
    return this.events.add(listener);
  }

  onConnection(listener: (state: BridgeConnection) => void): Unsubscribe {
    listener(this.connection);
    return this.connections.add(listener);
  }

  onError(listener: (error: Error) => void): Unsubscribe {
    return this.errors.add(listener);
  }

  /** Fetched with the token in a header and shown from a blob: URL, which works only inside this page. */
  screenshot(ref: ScreenshotRef): ScreenshotLease {
    return this.screenshots.lease(`/screenshots/${screenshotPath(ref)}`);
  }

  private async fetchScreenshot(path: string, signal: AbortSignal): Promise<Blob> {
    const fetchImage: FetchLike = this.options.fetch ?? ((url, init) => fetch(url, init));
    const response = await fetchImage(path, { headers: { Authorization: `Bearer ${this.options.token}` }, signal, credentials: 'omit' });
    if (!response.ok) throw new Error(`the screenshot could not be loaded (HTTP ${response.status})`);
    return response.blob();
  }

  private connect(): void {
    if (this.disposed || this.refused) return;
    const scheme = this.options.secure ? 'wss' : 'ws';
    const url = `${scheme}://${this.options.host}/ws?token=${encodeURIComponent(this.options.token)}`;
    let socket: SocketLike;
    try {
      socket = this.options.createSocket(url);
    } catch (error) {
      this.errors.emit(toError(error));
      this.attemptFailed();
      return;
    }
    this.socket = socket;
    let opened = false;
    socket.addEventListener('open', () => {
      if (this.socket !== socket) return;
      opened = true;
      this.failedAttempts = 0;
      this.failedInARow = 0;
      this.setConnection('connected');
    });
    socket.addEventListener('message', (message) => {
      if (this.socket === socket) this.receive(message.data);
    });
    // 'error' is always followed by 'close', which is where reconnecting happens.
    socket.addEventListener('close', () => {
      if (this.socket !== socket) return;
      this.socket = null;
      // The host may have acted on the command before the drop: said so, so that it is not sent twice
      // blindly; the view is read again from the host once reconnected.
      this.failPending(new Error('The connection to Deskhand was lost before it replied: it may have been done. The view reloads once reconnected.'));
      if (opened) {
        this.setConnection('disconnected');
        this.scheduleReconnect();
      } else {
        this.attemptFailed();
        void this.checkToken();
      }
    });
  }

  /** An attempt that never connected: after several in a row the user is told, and retrying goes on. */
  private attemptFailed(): void {
    this.failedInARow += 1;
    if (this.connection !== 'refused') this.setConnection(this.failedInARow >= ATTEMPTS_BEFORE_UNREACHABLE ? 'unreachable' : 'disconnected');
    this.scheduleReconnect();
  }

  /** A refused token stays refused (a restarted host has a new one): stop retrying and say so. */
  private async checkToken(): Promise<void> {
    const ask = this.options.tokenRefused;
    if (!ask || this.refused) return;
    let refused = false;
    try {
      refused = await ask();
    } catch {
      return;
    }
    if (!refused || this.disposed || this.connection === 'connected') return;
    this.refused = true;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.setConnection('refused');
  }

  private receive(data: unknown): void {
    if (typeof data !== 'string') {
      console.warn('Deskhand: dropped a binary message; the protocol is JSON text');
      return;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(data);
    } catch {
      console.warn('Deskhand: dropped a message that is not JSON', data);
      return;
    }
    const message = parseHostMessage(raw);
    if (!message) return;
    if (message.type === 'event') {
      this.events.emit(message.event);
      return;
    }
    if (message.id === null) {
      if (!message.ok) this.errors.emit(new HostCommandError(message.error.message, message.error.code));
      return;
    }
    const request = this.pending.get(message.id);
    if (!request) {
      console.warn(`Deskhand: a reply for an unknown request ${message.id}`, message);
      if (!message.ok) this.errors.emit(new HostCommandError(message.error.message, message.error.code));
      return;
    }
    this.pending.delete(message.id);
    request.settle(message);
  }

  private failPending(error: Error): void {
    const requests = [...this.pending.values()];
    this.pending.clear();
    for (const request of requests) request.fail(error);
  }

  private setConnection(state: BridgeConnection): void {
    if (this.connection === state) return;
    this.connection = state;
    this.connections.emit(state);
  }

  private scheduleReconnect(): void {
    if (this.disposed || this.refused || this.retryTimer !== null) return;
    const initial = this.options.initialRetryDelayMs ?? 500;
    const max = this.options.maxRetryDelayMs ?? 10_000;
    const delay = Math.min(max, initial * 2 ** this.failedAttempts);
    this.failedAttempts += 1;
    // Jitter keeps several open tabs from hammering a restarted host in lockstep.
    const jittered = delay * (0.75 + Math.random() * 0.5);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, jittered);
  }
}
