import { ElectronBridge } from './electron';
import { takePageToken, type TabStorage } from './page-token';
import { WebSocketBridge } from './websocket';
import type { Bridge } from './types';

export type { Bridge, BridgeConnection, CommandInput, ScreenshotLease, Unsubscribe } from './types';
export { HostCommandError } from './errors';
export { ElectronBridge, type DeskhandPreloadApi } from './electron';
export { WebSocketBridge, type SocketLike } from './websocket';

/** A bridge that is not yet listening: call `start()` once every subscriber is attached. */
export type StartableBridge = Bridge & { start(): void };

/** The desktop app's preload defines `window.deskhand`; without it we are in a browser, talking WebSocket. */
export function createBridge(): StartableBridge {
  if (window.deskhand) return new ElectronBridge(window.deskhand);
  const token = takePageToken(location, history, tabStorage());
  return new WebSocketBridge({
    host: location.host,
    secure: location.protocol === 'https:',
    token,
    createSocket: (url) => new WebSocket(url),
    // The page's own address answers 401 to a token this server does not know (a network error: no answer).
    tokenRefused: async () => {
      const response = await fetch('/', { method: 'HEAD', headers: { Authorization: `Bearer ${token}` }, cache: 'no-store', credentials: 'omit' });
      return response.status === 401;
    },
  });
}

/** This tab's sessionStorage, or null where the browser refuses it (reading the property can throw). */
function tabStorage(): TabStorage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}
