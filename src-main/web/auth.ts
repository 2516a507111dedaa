import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIPv4, isIPv6 } from 'node:net';

export const TOKEN_COOKIE = 'deskhand_token';

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function cookieValue(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return null;
}

/** The token from `?token=`, an `Authorization: Bearer` header, or the cookie set when the page loaded. */
export function presentedToken(request: IncomingMessage, url: URL): string | null {
  const fromQuery = url.searchParams.get('token');
  if (fromQuery) return fromQuery;
  const auth = request.headers.authorization;
  if (auth?.startsWith('Bearer ')) return auth.slice('Bearer '.length);
  return cookieValue(request.headers.cookie, TOKEN_COOKIE);
}

export function hasValidToken(request: IncomingMessage, url: URL, token: string): boolean {
  const presented = presentedToken(request, url);
  return presented !== null && sameSecret(presented, token);
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** Only real loopback addresses (and the name localhost): "127.example.com" is a host name, not loopback. */
export function isLoopbackAddress(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIPv4(host)) return host.startsWith('127.');
  return isIPv6(host) && (host === '::1' || host === '0:0:0:0:0:0:0:1');
}

/**
 * Against DNS rebinding: the Host header must name this server as the user reached it, and a browser's
 * Origin (when sent) must be the same server.
 */
export function allowedHosts(bindHost: string, port: number): Set<string> {
  const names = isLoopbackAddress(bindHost) ? LOOPBACK_NAMES : [bindHost.includes(':') ? `[${bindHost}]` : bindHost];
  return new Set(names.map((name) => `${name}:${port}`));
}

export function hostAndOriginAllowed(request: IncomingMessage, hosts: ReadonlySet<string>): boolean {
  const host = request.headers.host;
  if (!host || !hosts.has(host.toLowerCase())) return false;
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return hosts.has(new URL(origin).host.toLowerCase());
  } catch {
    return false;
  }
}
