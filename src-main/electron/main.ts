import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { app, BrowserWindow, ipcMain, net, protocol, session, shell } from 'electron';
import { configFromEnv } from '../host/config';
import { createHost, type Host } from '../host/create-host';
import { appRoot, rendererDir } from '../host/paths';
import { safeJoin } from '../web/static-files';
import { APP_SCHEME, COMMAND_CHANNEL, MESSAGE_CHANNEL } from './channels';

const APP_ORIGIN = `${APP_SCHEME}://deskhand`;

protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
]);

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: app:; " +
  "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

function serveAppProtocol(host: Host): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url);
    let path: string | null = null;
    if (url.host === 'screenshots') {
      const [sessionId = '', file = ''] = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
      path = host.screenshots.pathOf(sessionId, file);
    } else if (url.host === 'deskhand') {
      path = safeJoin(rendererDir(), url.pathname === '/' ? '/index.html' : url.pathname);
    }
    if (!path) return new Response('Not Found', { status: 404 });
    const response = await net.fetch(pathToFileURL(path).href);
    const headers = new Headers(response.headers);
    headers.set('Content-Security-Policy', CSP);
    headers.set('X-Content-Type-Options', 'nosniff');
    return new Response(response.body, { status: response.status, headers });
  });
}

function isTrustedSender(frame: Electron.WebFrameMain | null, window: BrowserWindow): boolean {
  return frame !== null && frame === window.webContents.mainFrame && new URL(frame.url).origin === APP_ORIGIN;
}

function createWindow(host: Host): BrowserWindow {
  const window = new BrowserWindow({
    width: 1200,
    height: 820,
    title: 'Deskhand',
    webPreferences: {
      preload: join(appRoot(), 'out', 'preload', 'preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  });
  window.webContents.on('will-navigate', (event) => event.preventDefault());
  window.webContents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  const unsubscribe = host.sessions.subscribe((event) => {
    if (!window.isDestroyed()) window.webContents.send(MESSAGE_CHANNEL, { type: 'event', event });
  });
  window.on('closed', unsubscribe);
  void window.loadURL(`${APP_ORIGIN}/index.html`);
  return window;
}

async function start(): Promise<void> {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  await app.whenReady();
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  const host = createHost({
    dataDir: process.env.DESKHAND_DATA_DIR || app.getPath('userData'),
    config: configFromEnv(process.env),
  });
  serveAppProtocol(host);
  let window = createWindow(host);
  ipcMain.handle(COMMAND_CHANNEL, (event, payload: unknown) => {
    if (!isTrustedSender(event.senderFrame, window)) {
      return { type: 'reply', id: null, ok: false, error: { code: 'bad_message', message: 'unknown sender' } };
    }
    return host.endpoint.handle(payload);
  });
  app.on('second-instance', () => {
    if (window.isDestroyed()) window = createWindow(host);
    window.focus();
  });
  app.on('window-all-closed', () => {
    void host.close().finally(() => app.quit());
  });
}

start().catch((error: unknown) => {
  console.error(`Deskhand could not start: ${(error as Error).message}`);
  app.exit(1);
});
