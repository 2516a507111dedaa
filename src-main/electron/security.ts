/**
 * Electron guards: navigation and window-open guards, webview refusal, and
 * permission handlers that deny unless listed. The window's web preferences are written out where the
 * window is created (shell.ts), so Electronegativity can check them there.
 */
import type { Session, WebContents } from 'electron';
import { isAppUrl } from './ipc';

/** Where our pages may navigate: app://deskhand only (the renderer is a single page). */
export function mayNavigate(url: string): boolean {
  return isAppUrl(url);
}

/**
 * Permissions a page may have, by name. Only the app's own page, and only copying to the clipboard
 * (a "Copy" button); everything else (camera, microphone, geolocation, notifications from the page,
 * HID, serial, USB, fullscreen, ...) is denied. Notifications come from the main process.
 */
const ALLOWED_PERMISSIONS: ReadonlySet<string> = new Set(['clipboard-sanitized-write']);

export function mayGrantPermission(permission: string, requestingUrl: string | undefined | null): boolean {
  return ALLOWED_PERMISSIONS.has(permission) && typeof requestingUrl === 'string' && isAppUrl(requestingUrl);
}

export interface GuardOptions {
  /** Told about blocked navigations and windows (for the log). */
  onBlocked?(what: string, url: string): void;
}

/**
 * Guards one web contents: no navigation or redirect away from the app, no new windows (links the user
 * clicks are opened by the preload's click handler through IPC), no webviews.
 */
export function guardWebContents(contents: WebContents, options: GuardOptions = {}): void {
  const blocked = options.onBlocked ?? (() => undefined);
  contents.on('will-navigate', (event) => {
    if (!mayNavigate(event.url)) {
      event.preventDefault();
      blocked('navigation', event.url);
    }
  });
  // Sub-frames (the main frame is covered by will-navigate above).
  contents.on('will-frame-navigate', (event) => {
    if (!event.isMainFrame && !mayNavigate(event.url)) {
      event.preventDefault();
      blocked('frame navigation', event.url);
    }
  });
  contents.on('will-redirect', (event) => {
    if (!mayNavigate(event.url)) {
      event.preventDefault();
      blocked('redirect', event.url);
    }
  });
  contents.setWindowOpenHandler(({ url }) => {
    blocked('new window', url);
    return { action: 'deny' };
  });
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
    blocked('webview', '');
  });
}

/** Permission request and check handlers that deny unless `mayGrantPermission` says yes. */
export function guardSession(session: Session): void {
  session.setPermissionRequestHandler((_contents, permission, callback, details) => {
    callback(mayGrantPermission(permission, details.requestingUrl));
  });
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin, details) => {
    return mayGrantPermission(permission, details.requestingUrl ?? requestingOrigin);
  });
  // No device pickers either (WebHID, WebSerial, WebUSB, Bluetooth): nothing may be chosen.
  session.setDevicePermissionHandler(() => false);
  session.on('select-hid-device', (event, _details, callback) => {
    event.preventDefault();
    callback('');
  });
  session.on('select-serial-port', (event, _ports, _contents, callback) => {
    event.preventDefault();
    callback('');
  });
  session.on('select-usb-device', (event, _details, callback) => {
    event.preventDefault();
    callback();
  });
}
