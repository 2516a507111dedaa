/**
 * The `app://` protocol: the renderer at `app://deskhand/...` (files of out/renderer) and stored
 * screenshots at `app://screenshots/<sessionId>/<file>`, instead of file:// (which would give the page
 * the whole disk's origin). Nothing outside those two roots is ever served, through a symbolic link either.
 *
 * The core (`resolveAppUrl`, `handleAppRequest`) has no Electron in it and is unit-tested with traversal
 * attempts; `registerAppProtocol` plugs it into Electron's `protocol.handle`.
 */
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { ScreenshotFileName } from '../protocol';
import { realPathInside } from '../common/real-path-inside';
import { APP_HOST, APP_SCHEME, SCREENSHOTS_HOST } from './channels';

export interface AppRoots {
  /** The built renderer (out/renderer). */
  rendererDir: string;
  /** The host's screenshot lookup: null when the name would leave the screenshots folder. */
  screenshotPath(sessionId: string, file: string): string | null;
}

export type AppResolution =
  | { kind: 'file'; path: string; root: 'renderer' | 'screenshots' }
  | { kind: 'refused'; status: 400 | 403 | 404 | 405; reason: string };

const refused = (status: 400 | 403 | 404 | 405, reason: string): AppResolution => ({ kind: 'refused', status, reason });

function decodeSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** A decoded path part that could step out of a folder or confuse a file system. */
function isUnsafePart(part: string): boolean {
  return part === '' || part === '.' || part === '..' || /[/\\\0:]/.test(part);
}

/**
 * Maps an app:// URL to a file inside one of the roots, or says why not. Checks, in order: scheme,
 * no credentials or port, a known host, then per host: the renderer path must decode to plain segments
 * (no `..`, no encoded slashes or backslashes), decoded once, and stay inside out/renderer; a screenshot
 * must be exactly `<sessionId>/<file>` with plain names the host's screenshot store accepts.
 */
export function resolveAppUrl(rawUrl: string, roots: AppRoots, method = 'GET'): AppResolution {
  if (method !== 'GET' && method !== 'HEAD') return refused(405, `method ${method} not allowed`);
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return refused(400, 'not a URL');
  }
  if (url.protocol !== `${APP_SCHEME}:`) return refused(400, `not an ${APP_SCHEME}: URL`);
  if (url.username || url.password || url.port) return refused(400, 'credentials or a port in the URL');

  // The raw (still percent-encoded) segments: an encoded "/" or "\" must not become a separator.
  const rawSegments = url.pathname.split('/').slice(1);
  const segments = rawSegments.map(decodeSegment);
  if (segments.some((segment) => segment === null)) return refused(400, 'bad percent-encoding');
  const parts = segments as string[];

  if (url.host === APP_HOST) {
    const path = url.pathname === '/' ? ['index.html'] : parts;
    if (path.some(isUnsafePart)) return refused(403, 'path outside the app');
    // The parts are decoded already: joined as they are (a second decoding would read "%2e%2e" as "..").
    const base = resolve(roots.rendererDir);
    const file = join(base, ...path);
    return file.startsWith(base + sep) ? { kind: 'file', path: file, root: 'renderer' } : refused(403, 'path outside the app');
  }

  if (url.host === SCREENSHOTS_HOST) {
    if (parts.length !== 2) return refused(404, 'a screenshot is <session>/<file>');
    const [sessionId, file] = parts as [string, string];
    if (isUnsafePart(sessionId) || isUnsafePart(file)) return refused(403, 'path outside the screenshots');
    if (!ScreenshotFileName.safeParse(sessionId).success || !ScreenshotFileName.safeParse(file).success) {
      return refused(403, 'path outside the screenshots');
    }
    const path = roots.screenshotPath(sessionId, file);
    return path ? { kind: 'file', path, root: 'screenshots' } : refused(403, 'path outside the screenshots');
  }

  return refused(404, 'unknown host');
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
};

/**
 * Headers on every app:// response. The CSP is one literal so Electronegativity's CSP check can read
 * and evaluate it. Why each part:
 * - default-src 'none': nothing loads unless listed below;
 * - script-src 'self': the bundled scripts only (no inline script, no eval);
 * - style-src 'self' 'unsafe-inline': MUI (emotion) inserts <style> elements at run time; styles cannot
 *   run code, and script-src stays strict;
 * - img-src adds app://screenshots (the step screenshots) and data:/blob: (icons, previews);
 * - connect-src 'self': the page talks to the host over IPC, never over the network;
 * - object-src, base-uri, form-action, frame-src, frame-ancestors: all 'none'.
 */
export function securityHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  headers['Content-Security-Policy'] = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob: app://screenshots; font-src 'self' data:; connect-src 'self'; manifest-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-src 'none'; frame-ancestors 'none'";
  headers['X-Content-Type-Options'] = 'nosniff';
  headers['Referrer-Policy'] = 'no-referrer';
  headers['Cross-Origin-Opener-Policy'] = 'same-origin';
  headers['Cache-Control'] = 'no-cache';
  return headers;
}

export const CONTENT_SECURITY_POLICY = securityHeaders()['Content-Security-Policy'] as string;

function textResponse(status: number, text: string): Response {
  return new Response(text, { status, headers: { ...securityHeaders(), 'Content-Type': 'text/plain; charset=utf-8' } });
}

/** The folder a resolved file must stay in: out/renderer, or the screenshots folder (`<root>/<session>/<file>`). */
function rootOf(resolution: Extract<AppResolution, { kind: 'file' }>, roots: AppRoots): string {
  return resolution.root === 'renderer' ? roots.rendererDir : resolve(resolution.path, '..', '..');
}

/** Answers one app:// request (`protocol.handle` calls this). Never throws. */
export async function handleAppRequest(request: Request, roots: AppRoots): Promise<Response> {
  const resolution = resolveAppUrl(request.url, roots, request.method);
  if (resolution.kind === 'refused') {
    // One answer for every refusal: the page learns nothing about what exists outside the roots.
    return resolution.status === 405 ? textResponse(405, 'Method Not Allowed') : textResponse(404, 'Not Found');
  }
  try {
    // Symbolic links are followed only while they stay inside the root: a link in out/renderer or in the
    // screenshots folder (put there by a command the agent ran, say) must not serve a file from elsewhere.
    const path = await realPathInside(resolution.path, rootOf(resolution, roots));
    if (path === null) return textResponse(404, 'Not Found');
    const info = await stat(path);
    if (!info.isFile()) return textResponse(404, 'Not Found');
    const body = request.method === 'HEAD' ? null : await readFile(path);
    return new Response(body, {
      status: 200,
      headers: {
        ...securityHeaders(),
        'Content-Type': CONTENT_TYPES[extname(resolution.path).toLowerCase()] ?? 'application/octet-stream',
        'Content-Length': String(info.size),
      },
    });
  } catch {
    return textResponse(404, 'Not Found');
  }
}

/** What `registerAppProtocol` needs of Electron's `protocol` module. */
export interface ProtocolLike {
  handle(scheme: string, handler: (request: Request) => Promise<Response>): void;
}

export function registerAppProtocol(protocol: ProtocolLike, roots: AppRoots): void {
  protocol.handle(APP_SCHEME, (request) => handleAppRequest(request, roots));
}

/** Must run before the app is ready: app:// behaves like https (standard, secure, fetch). */
export const APP_SCHEME_PRIVILEGES = {
  scheme: APP_SCHEME,
  // No corsEnabled (it would let other origins read app:// responses) and no bypassCSP.
  privileges: { standard: true, secure: true, supportFetchAPI: true },
};
