import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { resolve } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { MAX_MESSAGE_BYTES } from '../protocol';
import type { HostEvent, HostMessage } from '../protocol';
import {
  allowedHosts,
  assetCookie,
  hasValidAssetKey,
  hasValidToken,
  hostAndOriginAllowed,
  isLoopbackAddress,
  isWildcardAddress,
  newToken,
  presentedToken,
  reachableAddress,
  systemAddresses,
  urlHost,
  type HostAllowList,
  type MachineAddresses,
} from './auth';
import { safeJoin, sendFile } from './static-files';

/** The parts of the host core browser mode uses. */
export interface WebHost {
  readonly endpoint: { handleText(text: string): Promise<HostMessage> };
  readonly sessions: { subscribe(listener: (event: HostEvent) => void): () => void };
  readonly screenshots: { pathOf(sessionId: string, file: string): string | null };
}

export interface WebServerOptions {
  host: WebHost;
  rendererDir: string;
  token: string;
  bindHost: string;
  port: number;
  /** Binding to anything but loopback needs this, and prints a warning. */
  allowRemote: boolean;
  /**
   * This launch's mark for the page's title (`Deskhand · <mark>`), which the browser shows in its window's
   * title while the Deskhand tab is on screen: the device client, given the same mark, keeps off that window.
   */
  pageMark?: string;
  /** Open WebSockets at most; one more is refused with 503. */
  maxConnections?: number;
  /** A client whose unsent events exceed this is disconnected (1013); it reconnects and reloads. */
  maxBufferedBytes?: number;
  /** The machine's interfaces and name (tests pass their own). */
  machine?: MachineAddresses;
  /** Every this often each WebSocket is pinged; one that did not answer the last ping is dropped. */
  heartbeatMs?: number;
}

export interface WebServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export const MAX_CONNECTIONS = 16;
export const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
export const HEARTBEAT_MS = 30_000;
/** "Try again later": the client fell behind; reconnecting gives it a fresh view. */
const CLOSE_TRY_AGAIN_LATER = 1013;

const SCREENSHOT_PATH = /^\/screenshots\/([^/]+)\/([^/]+)$/;
const PAGE_MARK = /^[A-Za-z0-9_-]{6,64}$/;
const TITLE = /<title>([^<]*)<\/title>/;
/** A built file of the renderer (src-renderer/public): fetches the page with the token the tab kept, and starts it. */
const REENTER_SCRIPT = '/reenter.js';

function securityHeaders(): Record<string, string> {
  return {
    'Content-Security-Policy':
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
      "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'",
    'X-Content-Type-Options': 'nosniff',
    // The page URL carries the token: never send it to another site.
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

function refuse(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...securityHeaders() });
  response.end(text);
}

const UNAUTHORIZED = 'Unauthorized: open the address Deskhand printed, with its token';

function refuseUnauthorized(response: ServerResponse): void {
  refuse(response, 401, UNAUTHORIZED);
}

/** A title with this launch's mark after the name: "Deskhand" becomes "Deskhand · 1a2b3c4d". */
function markedTitle(title: string, mark: string | undefined): string {
  return mark ? `${title} · ${mark}` : title;
}

/** The built page with the mark in its title; without a title the window showing it would not be protected. */
function markedPage(html: string, mark: string | undefined, file: string): string {
  if (!mark) return html;
  if (!TITLE.test(html)) throw new Error(`${file} has no <title> to put the page mark in`);
  return html.replace(TITLE, (_element, title: string) => `<title>${markedTitle(title, mark)}</title>`);
}

function htmlText(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  // The HTTP server hands an upgrading socket over without its error listener: a client that resets
  // the connection would otherwise be an uncaught error, which ends the process.
  socket.on('error', () => socket.destroy());
  // It also keeps sockets half open and forgets an upgrading one: without this, a client that never
  // closes its side holds the socket (and close()) forever.
  socket.once('finish', () => socket.destroy());
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

function decodeSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** The request's target as a URL; null for one that is not (`GET http://[ HTTP/1.1` gets past Node's parser). */
function requestUrl(request: IncomingMessage): URL | null {
  try {
    return new URL(request.url ?? '/', 'http://deskhand.invalid');
  } catch {
    return null;
  }
}

function isReadMethod(method: string | undefined): boolean {
  return method === 'GET' || method === 'HEAD';
}

function isPagePath(pathname: string): boolean {
  return pathname === '/' || pathname === '/index.html';
}

/** The URL to print: the address the server is bound to, or for "every interface" one others can reach. */
function printableUrl(bindHost: string, bound: AddressInfo, token: string, machine: MachineAddresses): string {
  const address = isWildcardAddress(bindHost) ? reachableAddress(bindHost, machine) : bound.address;
  return `http://${urlHost(address)}:${bound.port}/?token=${token}`;
}

async function listen(server: Server, port: number, bindHost: string): Promise<AddressInfo> {
  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(port, bindHost, () => {
      server.off('error', rejectListen);
      resolveListen();
    });
  });
  return server.address() as AddressInfo;
}

/**
 * Browser mode: the built renderer over HTTP and the protocol over WebSocket (`/ws`), loopback by
 * default, with Host/Origin checks against DNS rebinding. The per-launch token (`?token=` or Bearer)
 * opens the page, the screenshots and the WebSocket; the page's cookie holds a separate per-launch key
 * that opens only the renderer's built files (scripts, styles), which the browser fetches without the token.
 * The page takes the token out of its address at once (src-renderer/src/bridge/page-token.ts) and sends it
 * in a header from then on; the WebSocket, which cannot have one, gets it in its URL, which no one sees.
 */
export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  if (!isLoopbackAddress(options.bindHost) && !options.allowRemote) {
    throw new Error(
      `refusing to listen on ${options.bindHost}: browser mode listens on loopback unless DESKHAND_ALLOW_REMOTE=1 is set`,
    );
  }
  if (options.pageMark !== undefined && !PAGE_MARK.test(options.pageMark)) {
    throw new Error('the page mark must be 6 to 64 letters, digits, - or _');
  }
  const { host, token, rendererDir } = options;
  const machine = options.machine ?? systemAddresses;
  const maxConnections = options.maxConnections ?? MAX_CONNECTIONS;
  const maxBufferedBytes = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
  const assetKey = newToken();
  let port = 0;
  let hosts: HostAllowList = new Set<string>();
  /** Open WebSockets, each with whether it answered the last ping. */
  const sockets = new Map<WebSocket, boolean>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const indexPath = resolve(rendererDir, 'index.html');

  const serveScreenshot = async (response: ServerResponse, sessionId: string, file: string): Promise<void> => {
    const decodedSession = decodeSegment(sessionId);
    const decodedFile = decodeSegment(file);
    const path = decodedSession !== null && decodedFile !== null ? host.screenshots.pathOf(decodedSession, decodedFile) : null;
    // A picture of the user's screen: not stored by the browser, whose disk cache would keep it after the
    // session is deleted. The page keeps the screenshots it shows in memory (bridge/screenshot-blobs.ts).
    const headers = { ...securityHeaders(), 'Cache-Control': 'no-store' };
    // The screenshots folder: a screenshot's path is <root>/<session>/<file>.
    if (path && (await sendFile(response, path, resolve(path, '..', '..'), headers))) return;
    refuse(response, 404, 'Not Found');
  };

  const servePage = async (response: ServerResponse): Promise<void> => {
    const html = await readFile(indexPath, 'utf8').catch(() => null);
    if (html === null) return refuse(response, 503, 'The UI is not built: run `npm run build` first');
    const page = markedPage(html, options.pageMark, indexPath);
    response.writeHead(200, {
      ...securityHeaders(),
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(page)),
      'Cache-Control': 'no-store',
      'Set-Cookie': assetCookie(port, assetKey),
    });
    response.end(page);
  };

  /**
   * The page asked for without the token, by a browser that has this launch's asset cookie: a reload of a
   * Deskhand tab, whose address the page took the token out of. Refused like any request without the
   * token, with a page that holds nothing but a built script: it fetches the page with the token the tab
   * kept (in a header) and starts it; in a tab that kept none, the refusal is what stays on screen.
   */
  const serveReentry = (response: ServerResponse): void => {
    const body =
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${htmlText(markedTitle('Deskhand', options.pageMark))}</title>` +
      `<script type="module" src="${REENTER_SCRIPT}"></script></head><body><p>${htmlText(UNAUTHORIZED)}</p></body></html>`;
    response.writeHead(401, { ...securityHeaders(), 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    response.end(body);
  };

  /** The page or a built file of the renderer; without the token (by the asset key) only the built files. */
  const serveRenderer = async (request: IncomingMessage, response: ServerResponse, url: URL, withToken: boolean): Promise<void> => {
    const path = isPagePath(url.pathname) ? indexPath : safeJoin(rendererDir, url.pathname);
    // Compared without case: on macOS and Windows /INDEX.HTML is the same file.
    if (path?.toLowerCase() === indexPath.toLowerCase()) {
      if (withToken) return servePage(response);
      // A wrong token (a link from an earlier launch) is refused plainly: no reload brings that tab back.
      return presentedToken(request, url) === null ? serveReentry(response) : refuseUnauthorized(response);
    }
    if (path && (await sendFile(response, path, rendererDir, { ...securityHeaders(), 'Cache-Control': 'private, max-age=3600' }))) return;
    refuse(response, 404, 'Not Found');
  };

  const handleHttp = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (!hostAndOriginAllowed(request, hosts)) return refuse(response, 403, 'Forbidden: unexpected Host or Origin');
    const url = requestUrl(request);
    if (!url) return refuse(response, 400, 'Bad Request');
    const screenshot = SCREENSHOT_PATH.exec(url.pathname);
    if (!hasValidToken(request, url, token)) {
      const opensAsset = isReadMethod(request.method) && !screenshot && hasValidAssetKey(request, port, assetKey);
      return opensAsset ? serveRenderer(request, response, url, false) : refuseUnauthorized(response);
    }
    if (!isReadMethod(request.method)) return refuse(response, 405, 'Method Not Allowed');
    if (screenshot) return serveScreenshot(response, screenshot[1] ?? '', screenshot[2] ?? '');
    return serveRenderer(request, response, url, true);
  };

  const server: Server = createServer((request, response) => {
    handleHttp(request, response).catch((error: unknown) => {
      console.error('[deskhand] HTTP request failed:', error);
      if (!response.headersSent) refuse(response, 500, 'Internal Server Error');
      else response.destroy();
    });
  });

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Thrown here, an error would end the process: nothing catches an 'upgrade' listener's errors.
    const url = requestUrl(request);
    if (!url) return refuseUpgrade(socket, 400, 'Bad Request');
    if (url.pathname !== '/ws') return refuseUpgrade(socket, 404, 'Not Found');
    if (!hostAndOriginAllowed(request, hosts)) return refuseUpgrade(socket, 403, 'Forbidden');
    if (!hasValidToken(request, url, token)) return refuseUpgrade(socket, 401, 'Unauthorized');
    // Exact, not racy: handleUpgrade runs the 'connection' handler (which counts the socket) before it returns.
    if (sockets.size >= maxConnections) return refuseUpgrade(socket, 503, 'Service Unavailable');
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  });

  wss.on('connection', (ws: WebSocket) => {
    sockets.set(ws, true);
    ws.on('pong', () => sockets.set(ws, true));
    let unsubscribe = (): void => {};
    const send = (message: HostMessage): void => {
      if (ws.readyState !== ws.OPEN) return;
      if (ws.bufferedAmount > maxBufferedBytes) {
        // A client that does not read would hold every event in memory: drop it; on reconnect it reloads.
        unsubscribe();
        ws.close(CLOSE_TRY_AGAIN_LATER, 'too far behind: reconnect to reload');
        return;
      }
      ws.send(JSON.stringify(message));
    };
    unsubscribe = host.sessions.subscribe((event) => send({ type: 'event', event }));
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        send({ type: 'reply', id: null, ok: false, error: { code: 'bad_message', message: 'binary messages are not accepted' } });
        return;
      }
      void host.endpoint.handleText(data.toString()).then(send);
    });
    ws.on('close', () => {
      unsubscribe();
      sockets.delete(ws);
    });
    ws.on('error', (error) => console.error('[deskhand] WebSocket error:', error.message));
  });

  // A peer that went away without closing (network gone, machine asleep) would hold its slot for good:
  // nothing is sent to an idle connection, so nothing ever fails.
  const heartbeat = setInterval(() => {
    for (const [ws, answered] of sockets) {
      if (!answered) {
        ws.terminate();
        continue;
      }
      sockets.set(ws, false);
      ws.ping();
    }
  }, options.heartbeatMs ?? HEARTBEAT_MS);
  heartbeat.unref();

  const bound = await listen(server, options.port, options.bindHost).catch((error: unknown) => {
    clearInterval(heartbeat);
    throw error;
  });
  port = bound.port;
  hosts = allowedHosts(options.bindHost, bound.address, port, machine);
  if (!isLoopbackAddress(options.bindHost)) {
    console.warn(
      `[deskhand] WARNING: browser mode listens on ${options.bindHost}: anyone who can reach this address and has ` +
        'the token can drive this computer. The traffic is not encrypted.',
    );
  }
  return {
    url: printableUrl(options.bindHost, bound, token, machine),
    port,
    async close() {
      clearInterval(heartbeat);
      for (const ws of sockets.keys()) ws.terminate();
      wss.close();
      const stopped = new Promise<void>((done) => server.close(() => done()));
      // Keep-alive connections that were still finishing a response would hold close() for seconds.
      server.closeAllConnections();
      await stopped;
    },
  };
}
