import { ElectronBridge } from './electron';
import { WebSocketBridge, tokenFromSearch } from './websocket';
import type { Bridge } from './types';

export type { Bridge, BridgeConnection, CommandInput, Unsubscribe } from './types';
export { HostCommandError } from './errors';
export { ElectronBridge, type DeskhandPreloadApi } from './electron';
export { WebSocketBridge, tokenFromSearch, type SocketLike } from './websocket';

/** A bridge that is not yet listening: call `start()` once every subscriber is attached. */
export type StartableBridge = Bridge & { start(): void };

/** The desktop app's preload defines `window.deskhand`; without it we are in a browser, talking WebSocket. */
export function createBridge(): StartableBridge {
  if (window.deskhand) return new ElectronBridge(window.deskhand);
  const token = tokenFromSearch(location.search);
  return new WebSocketBridge({
    host: location.host,
    secure: location.protocol === 'https:',
    token,
    createSocket: (url) => new WebSocket(url),
    // The page's own address answers 401 to a token this server does not know (a network error: no answer).
    tokenRefused: async () => {
      const response = await fetch(`/?token=${encodeURIComponent(token)}`, { method: 'HEAD', cache: 'no-store', credentials: 'omit' });
      return response.status === 401;
    },
  });
}
