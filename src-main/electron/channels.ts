/**
 * The IPC contract between the preload and the main process, GitHub Desktop style: one map from
 * channel name to argument and result types. Only types and string constants live here, so the preload
 * (bundled on its own, sandboxed) pulls in nothing else; `ipc.ts` holds the schemas that check inputs.
 */
import type { HostMessage } from '../protocol';
import type { DesktopSettings, DesktopSettingsInput } from './desktop-settings';

export const APP_SCHEME = 'app';
/** The renderer's origin: `app://deskhand/index.html`. */
export const APP_HOST = 'deskhand';
/** Stored screenshots: `app://screenshots/<sessionId>/<file>`. */
export const SCREENSHOTS_HOST = 'screenshots';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

export const Channel = {
  /** A protocol command; the reply is a protocol reply message (never throws). */
  command: 'deskhand:command',
  /** Host events pushed to the page (main -> renderer only). */
  message: 'deskhand:message',
  /** A link the user clicked: opened in the default browser when it is http(s). */
  openExternal: 'deskhand:open-external',
  desktopSettingsGet: 'deskhand:desktop-settings.get',
  desktopSettingsSet: 'deskhand:desktop-settings.set',
} as const;

export type DesktopSettingsReply =
  | { ok: true; settings: DesktopSettings; hotkeyRegistered: string | null }
  | { ok: false; errors: Array<{ path: string; message: string }> };

/** renderer -> main, request/response (`ipcRenderer.invoke` / `ipcMain.handle`). */
export interface InvokeChannels {
  [Channel.command]: { args: [command: unknown]; result: HostMessage };
  [Channel.openExternal]: { args: [url: string]; result: boolean };
  [Channel.desktopSettingsGet]: { args: []; result: DesktopSettingsReply };
  [Channel.desktopSettingsSet]: { args: [values: DesktopSettingsInput]; result: DesktopSettingsReply };
}

/** main -> renderer pushes (`webContents.send` / `ipcRenderer.on`). */
export interface PushChannels {
  [Channel.message]: HostMessage;
}

export type InvokeChannel = keyof InvokeChannels;
export type InvokeArgs<C extends InvokeChannel> = InvokeChannels[C]['args'];
export type InvokeResult<C extends InvokeChannel> = InvokeChannels[C]['result'];
