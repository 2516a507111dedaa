/**
 * The one place IPC handlers are registered. Every call goes through the same gate, in this order:
 *   1. the sender: a frame of one of our windows, the main frame (not an iframe), showing app://deskhand;
 *   2. the size of the arguments;
 *   3. the arguments, parsed with the channel's zod schema (the protocol's for commands);
 *   4. the handler; an exception becomes the channel's refusal, never a raw error for the page.
 *
 * The gate knows nothing of Electron: it takes an `ipcMain`-like object, so tests drive it with plain
 * objects standing in for frames and web contents.
 */
import { z } from 'zod';
import { MAX_MESSAGE_BYTES } from '../protocol';
import { HostCommand, type HostMessage } from '../protocol';
import {
  APP_HOST,
  APP_SCHEME,
  Channel,
  type DesktopSettingsReply,
  type InvokeChannel,
  type InvokeResult,
} from './channels';
import type { DesktopSettingsInput } from './desktop-settings';

/** What the gate reads of a sending frame (Electron's WebFrameMain has these). */
export interface FrameLike {
  readonly url: string;
  readonly parent: FrameLike | null;
}

/** What the gate reads of an IPC event (Electron's IpcMainInvokeEvent has these). */
export interface IpcEventLike {
  readonly senderFrame: FrameLike | null;
  readonly sender: unknown;
}

export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcEventLike, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
}

export type RefusalCode = 'untrusted-sender' | 'invalid-input' | 'failed';
export interface Refusal {
  code: RefusalCode;
  message: string;
}

/** True for `app://deskhand/...` (compared by parts: Node's URL gives custom schemes an opaque origin). */
export function isAppUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST && parsed.username === '' && parsed.password === '';
  } catch {
    return false;
  }
}

/** Why a sender is not trusted, or null when it is. */
export function senderProblem(event: IpcEventLike, isOurContents: (sender: unknown) => boolean): string | null {
  if (!isOurContents(event.sender)) return 'not one of our windows';
  const frame = event.senderFrame;
  // Null when the frame navigated away or was destroyed while the message was in flight.
  if (!frame) return 'the sending frame is gone';
  if (frame.parent !== null) return 'not the main frame';
  if (!isAppUrl(frame.url)) return 'not the app origin';
  return null;
}

export interface ChannelSpec<C extends InvokeChannel, P> {
  /** Checks the argument list (a tuple); its output is what `handle` gets. */
  readonly input: z.ZodType<P>;
  handle(input: P, event: IpcEventLike): Promise<InvokeResult<C>> | InvokeResult<C>;
  /** The answer for a refused call (sender, size, input or handler failure). */
  refuse(refusal: Refusal, rawArgs: readonly unknown[]): InvokeResult<C>;
}

/** A channel spec with its input type hidden, so specs of different channels fit one map. */
export interface RegisteredChannel<C extends InvokeChannel> {
  run(rawArgs: readonly unknown[], event: IpcEventLike): Promise<InvokeResult<C>>;
  refuse(refusal: Refusal, rawArgs: readonly unknown[]): InvokeResult<C>;
}

export function defineChannel<C extends InvokeChannel, P>(_channel: C, spec: ChannelSpec<C, P>): RegisteredChannel<C> {
  return {
    refuse: (refusal, rawArgs) => spec.refuse(refusal, rawArgs),
    async run(rawArgs, event) {
      const parsed = spec.input.safeParse(rawArgs);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        // Paths are [argument index, ...field path]; the page thinks in fields.
        const where = issue && issue.path.length > 1 ? `${issue.path.slice(1).join('.')}: ` : '';
        return spec.refuse({ code: 'invalid-input', message: `invalid input: ${where}${issue?.message ?? 'unknown problem'}` }, rawArgs);
      }
      return spec.handle(parsed.data, event);
    },
  };
}

export type ChannelMap = { [C in InvokeChannel]: RegisteredChannel<C> };

export interface RegisterIpcOptions {
  /** True for the web contents of our own windows. */
  isOurContents(sender: unknown): boolean;
  /** Told about refused calls (channel and reason only: arguments may hold secrets). */
  onRefused?(channel: InvokeChannel, refusal: Refusal): void;
  maxArgBytes?: number;
}

function sizeOf(args: readonly unknown[]): number {
  try {
    return Buffer.byteLength(JSON.stringify(args) ?? '', 'utf8');
  } catch {
    return Number.POSITIVE_INFINITY; // cycles, BigInt: not something the protocol sends
  }
}

/** Registers every channel of `channels`; returns a function that removes them again. */
export function registerIpc(ipcMain: IpcMainLike, channels: ChannelMap, options: RegisterIpcOptions): () => void {
  const maxBytes = options.maxArgBytes ?? MAX_MESSAGE_BYTES;
  const names = Object.keys(channels) as InvokeChannel[];
  for (const name of names) {
    const channel = channels[name] as RegisteredChannel<InvokeChannel>;
    ipcMain.handle(name, async (event, ...args) => {
      const refuse = (refusal: Refusal) => {
        options.onRefused?.(name, refusal);
        return channel.refuse(refusal, args);
      };
      const problem = senderProblem(event, options.isOurContents);
      if (problem) return refuse({ code: 'untrusted-sender', message: `refused: ${problem}` });
      if (sizeOf(args) > maxBytes) return refuse({ code: 'invalid-input', message: `refused: input larger than ${maxBytes} bytes` });
      try {
        return await channel.run(args, event);
      } catch (error) {
        console.error(`[deskhand] IPC ${name} failed:`, error);
        return refuse({ code: 'failed', message: 'the app could not do that' });
      }
    });
  }
  return () => {
    for (const name of names) ipcMain.removeHandler(name);
  };
}

// ---------------------------------------------------------------------------------------------------
// The channels

function commandId(rawArgs: readonly unknown[]): string | null {
  const command = rawArgs[0];
  if (typeof command === 'object' && command !== null && 'id' in command) {
    const id = (command as { id: unknown }).id;
    if (typeof id === 'string' && id.length > 0 && id.length <= 64) return id;
  }
  return null;
}

function errorReply(refusal: Refusal, rawArgs: readonly unknown[]): HostMessage {
  const code = refusal.code === 'failed' ? 'internal' : 'bad_message';
  return { type: 'reply', id: commandId(rawArgs), ok: false, error: { code, message: refusal.message } };
}

export interface ChannelDeps {
  /** The host's protocol endpoint. */
  handleCommand(command: HostCommand): Promise<HostMessage>;
  /** Opens an http(s) URL in the default browser (the channel has checked the URL). */
  openInBrowser(url: string): Promise<void>;
  getDesktopSettings(): DesktopSettingsReply;
  setDesktopSettings(values: DesktopSettingsInput): DesktopSettingsReply;
}

/** An absolute http(s) URL with a host and no credentials, or null. */
export function externalHttpUrl(value: string): string | null {
  try {
    const url = new URL(value);
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !url.hostname) return null;
    if (url.username || url.password) return null;
    return url.href;
  } catch {
    return null;
  }
}

const settingsRefusal = (refusal: Refusal): DesktopSettingsReply => ({
  ok: false,
  errors: [{ path: '', message: refusal.message }],
});

export function createChannels(deps: ChannelDeps): ChannelMap {
  return {
    [Channel.command]: defineChannel(Channel.command, {
      input: z.tuple([HostCommand]),
      handle: ([command]) => deps.handleCommand(command),
      refuse: errorReply,
    }),
    [Channel.openExternal]: defineChannel(Channel.openExternal, {
      input: z.tuple([z.string().max(2_048)]),
      async handle([url]) {
        const safe = externalHttpUrl(url);
        if (!safe) return false;
        await deps.openInBrowser(safe);
        return true;
      },
      refuse: () => false,
    }),
    [Channel.desktopSettingsGet]: defineChannel(Channel.desktopSettingsGet, {
      input: z.tuple([]),
      handle: () => deps.getDesktopSettings(),
      refuse: settingsRefusal,
    }),
    [Channel.desktopSettingsSet]: defineChannel(Channel.desktopSettingsSet, {
      input: z.tuple([z.record(z.string(), z.unknown())]),
      handle: ([values]) => deps.setDesktopSettings(values as DesktopSettingsInput),
      refuse: settingsRefusal,
    }),
  };
}
