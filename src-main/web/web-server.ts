import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { join } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Host } from '../host/create-host';
import { MAX_MESSAGE_BYTES } from '../host/protocol-endpoint';
import type { HostMessage } from '../protocol';
import { allowedHosts, hasValidToken, hostAndOriginAllowed, isLoopbackAddress, TOKEN_COOKIE } from './auth';
import { safeJoin, sendFile } from './static-files';

export interface WebServerOptions {
  host: Host;
  rendererDir: string;
  token: string;
  bindHost: string;
  port: number;
  /** Binding to anything but loopback needs this, and prints a warning. */
  allowRemote: boolean;
}

export interface WebServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

const SCREENSHOT_PATH = /^\/screenshots\/([^/]+)\/([^/]+)$/;

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

function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/**
 * Browser mode: the built renderer over HTTP and the protocol over WebSocket (`/ws`), loopback by
 * default, with the per-launch token on every request and Host/Origin checks against DNS rebinding.
 */
export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  if (!isLoopbackAddress(options.bindHost) && !options.allowRemote) {
    throw new Error(
      `refusing to listen on ${options.bindHost}: browser mode listens on loopback unless DESKHAND_ALLOW_REMOTE=1 is set`,
    );
  }
  const { host, token } = options;
  let hosts = new Set<string>();
  const sockets = new Set<WebSocket>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });

  const handleHttp = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (!hostAndOriginAllowed(request, hosts)) return refuse(response, 403, 'Forbidden: unexpected Host or Origin');
    const url = new URL(request.url ?? '/', 'http://deskhand.invalid');
    if (!hasValidToken(request, url, token)) {
      return refuse(response, 401, 'Unauthorized: open the address Deskhand printed, with its token');
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') return refuse(response, 405, 'Method Not Allowed');

    const screenshot = SCREENSHOT_PATH.exec(url.pathname);
    if (screenshot) {
      const path = host.screenshots.pathOf(decodeURIComponent(screenshot[1] ?? ''), decodeURIComponent(screenshot[2] ?? ''));
      if (path && (await sendFile(response, path, { ...securityHeaders(), 'Cache-Control': 'private, max-age=86400' }))) return;
      return refuse(response, 404, 'Not Found');
    }

    const isPage = url.pathname === '/' || url.pathname === '/index.html';
    const path = isPage ? join(options.rendererDir, 'index.html') : safeJoin(options.rendererDir, url.pathname);
    const headers: Record<string, string> = {
      ...securityHeaders(),
      'Cache-Control': isPage ? 'no-store' : 'private, max-age=3600',
    };
    if (isPage) headers['Set-Cookie'] = `${TOKEN_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`;
    if (path && (await sendFile(response, path, headers))) return;
    if (isPage) return refuse(response, 503, 'The UI is not built: run `npm run build` first');
    return refuse(response, 404, 'Not Found');
  };

  const server: Server = createServer((request, response) => {
    handleHttp(request, response).catch((error: unknown) => {
      console.error('[deskhand] HTTP request failed:', error);
      if (!response.headersSent) refuse(response, 500, 'Internal Server Error');
      else response.destroy();
    });
  });

  server.on('upgrade', (request, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://deskhand.invalid');
    if (url.pathname !== '/ws') return refuseUpgrade(socket, 404, 'Not Found');
    if (!hostAndOriginAllowed(request, hosts)) return refuseUpgrade(socket, 403, 'Forbidden');
    if (!hasValidToken(request, url, token)) return refuseUpgrade(socket, 401, 'Unauthorized');
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  });

  wss.on('connection', (ws: WebSocket) => {
    sockets.add(ws);
    const send = (message: HostMessage): void => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    };
    const unsubscribe = host.sessions.subscribe((event) => send({ type: 'event', event }));
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

  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(options.port, options.bindHost, () => {
      server.off('error', rejectListen);
      resolveListen();
    });
  });
  const port = (server.address() as AddressInfo).port;
  hosts = allowedHosts(options.bindHost, port);
  if (!isLoopbackAddress(options.bindHost)) {
    console.warn(
      `[deskhand] WARNING: browser mode listens on ${options.bindHost}: anyone who can reach this address and has ` +
        'the token can drive this computer. The traffic is not encrypted.',
    );
  }
  const shownHost = isLoopbackAddress(options.bindHost) ? '127.0.0.1' : options.bindHost;
  return {
    url: `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}/?token=${token}`,
    port,
    async close() {
      for (const ws of sockets) ws.terminate();
      wss.close();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
