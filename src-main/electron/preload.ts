/**
 * The preload: the only code with IPC access in the renderer process. It hands the page a few small
 * functions through contextBridge and nothing else: no ipcRenderer, no IpcRendererEvent, no Node.
 *
 *   window.deskhand.invoke(command)        -> Promise<reply message>   (the protocol; checked in main)
 *   window.deskhand.onMessage(callback)    -> unsubscribe              (host events)
 *   window.deskhand.desktop.getSettings()  -> Promise<DesktopSettingsReply>
 *   window.deskhand.desktop.setSettings(v) -> Promise<DesktopSettingsReply>
 *
 * It also opens http(s) links the user clicks in the default browser: the click must be a real one
 * (`isTrusted`, which page script cannot fake) and is handled here, in the isolated world, so the page
 * itself has no way to ask for a URL to be opened.
 *
 * Sandboxed preloads are CommonJS and bundled on their own: only constants come from ./channels.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { Channel, type InvokeArgs, type InvokeChannel, type InvokeResult } from './channels';
import type { DesktopSettingsInput } from './desktop-settings';

function invoke<C extends InvokeChannel>(channel: C, ...args: InvokeArgs<C>): Promise<InvokeResult<C>> {
  return ipcRenderer.invoke(channel, ...args) as Promise<InvokeResult<C>>;
}

const api = {
  invoke: (command: unknown): Promise<unknown> => invoke(Channel.command, command),
  onMessage(callback: (message: unknown) => void): () => void {
    if (typeof callback !== 'function') throw new TypeError('onMessage needs a function');
    // The page gets the message only, never the event (which would reach ipcRenderer via event.sender).
    const listener = (_event: IpcRendererEvent, message: unknown): void => callback(message);
    ipcRenderer.on(Channel.message, listener);
    return () => {
      ipcRenderer.removeListener(Channel.message, listener);
    };
  },
  desktop: {
    getSettings: () => invoke(Channel.desktopSettingsGet),
    setSettings: (values: DesktopSettingsInput) => invoke(Channel.desktopSettingsSet, values),
  },
};

export type DeskhandDesktopApi = typeof api;

contextBridge.exposeInMainWorld('deskhand', api);

// --- links the user clicks -------------------------------------------------------------------------
// The project's Node type settings have no DOM library, so the few DOM shapes used are spelled out.

interface ClickEventLike {
  readonly isTrusted: boolean;
  readonly defaultPrevented: boolean;
  readonly target: unknown;
  preventDefault(): void;
}

interface PageLike {
  addEventListener(type: 'click', listener: (event: ClickEventLike) => void, capture: boolean): void;
  readonly navigator?: { readonly userActivation?: { readonly isActive: boolean } };
}

/** The absolute http(s) URL of the link under a click, or null (SVG links have no string href). */
function externalLinkOf(target: unknown): string | null {
  const element = target as { closest?: (selector: string) => unknown } | null;
  const anchor = typeof element?.closest === 'function' ? (element.closest('a[href]') as { href?: unknown } | null) : null;
  if (typeof anchor?.href !== 'string') return null;
  try {
    const url = new URL(anchor.href);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

const page = globalThis as unknown as PageLike;
page.addEventListener(
  'click',
  (event) => {
    if (!event.isTrusted || event.defaultPrevented) return;
    const url = externalLinkOf(event.target);
    if (!url) return;
    // Never navigate the app window away, whatever happens next.
    event.preventDefault();
    const activation = page.navigator?.userActivation;
    if (activation && !activation.isActive) return;
    void invoke(Channel.openExternal, url);
  },
  true,
);
