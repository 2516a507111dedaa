import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIPv4, isIPv6 } from 'node:net';
import { hostname, networkInterfaces, type NetworkInterfaceInfo } from 'node:os';

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * This launch's mark for the page's title, which the device client keeps off (see DeviceConfig.protectTitle).
 * Not a secret: it is on screen. Random so that no other page carries it by chance.
 */
export function newPageMark(): string {
  return randomBytes(4).toString('hex');
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

/** The token from `?token=` or an `Authorization: Bearer` header; never from a cookie (see assetCookieName). */
export function presentedToken(request: IncomingMessage, url: URL): string | null {
  const fromQuery = url.searchParams.get('token');
  if (fromQuery) return fromQuery;
  const auth = request.headers.authorization;
  if (auth?.startsWith('Bearer ')) return auth.slice('Bearer '.length);
  return null;
}

export function hasValidToken(request: IncomingMessage, url: URL, token: string): boolean {
  const presented = presentedToken(request, url);
  return presented !== null && sameSecret(presented, token);
}

/**
 * Cookies are not scoped by port: every other server on the same host name receives them. So the cookie
 * carries a key that opens only the renderer's built files (which hold no secrets), never the token, and
 * its name carries the port so that two Deskhand instances do not overwrite each other's.
 */
export function assetCookieName(port: number): string {
  return `deskhand_assets_${port}`;
}

export function hasValidAssetKey(request: IncomingMessage, port: number, assetKey: string): boolean {
  const presented = cookieValue(request.headers.cookie, assetCookieName(port));
  return presented !== null && sameSecret(presented, assetKey);
}

export function assetCookie(port: number, assetKey: string): string {
  return `${assetCookieName(port)}=${assetKey}; HttpOnly; SameSite=Strict; Path=/`;
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** Only real loopback addresses (and the name localhost): "127.example.com" is a host name, not loopback. */
export function isLoopbackAddress(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIPv4(host)) return host.startsWith('127.');
  return isIPv6(host) && (host === '::1' || host === '0:0:0:0:0:0:0:1');
}

/** "Any address": the server answers on every interface the machine has, now or later. */
export function isWildcardAddress(host: string): boolean {
  return host === '0.0.0.0' || (isIPv6(host) && /^[0:]+$/.test(host));
}

/** An address as it appears in a URL's host: IPv6 in brackets. */
export function urlHost(address: string): string {
  return isIPv6(address) ? `[${address}]` : address;
}

/** What the machine is called on the network; read per call because addresses come and go (DHCP, VPN, Wi-Fi). */
export interface MachineAddresses {
  interfaces(): NetworkInterfaceInfo[];
  hostname(): string;
}

export const systemAddresses: MachineAddresses = {
  interfaces: () => Object.values(networkInterfaces()).flatMap((list) => list ?? []),
  hostname: () => hostname(),
};

/** Host header values (lower case) that name this server. */
export interface HostAllowList {
  has(host: string): boolean;
}

function withPort(names: Iterable<string>, port: number): Set<string> {
  const hosts = new Set<string>();
  for (const name of names) {
    hosts.add(`${name.toLowerCase()}:${port}`);
    // Browsers leave the default port out of Host and Origin.
    if (port === 80) hosts.add(name.toLowerCase());
  }
  return hosts;
}

function machineNames(machine: MachineAddresses): string[] {
  return [...LOOPBACK_NAMES, machine.hostname(), ...machine.interfaces().map((info) => urlHost(info.address))];
}

/**
 * Against DNS rebinding: the Host header must name this server as the user reached it. Bound to one
 * address, that is the address (and, on loopback, the loopback names); bound to every interface (0.0.0.0,
 * ::), it is any of the machine's addresses or its host name, looked up again when a Host is not known
 * yet, since interfaces change while Deskhand runs. A name an attacker's DNS points here is none of these.
 */
export function allowedHosts(
  bindHost: string,
  boundAddress: string,
  port: number,
  machine: MachineAddresses = systemAddresses,
): HostAllowList {
  if (!isWildcardAddress(bindHost)) {
    const names = [urlHost(bindHost), urlHost(boundAddress)];
    if (isLoopbackAddress(bindHost)) names.push(...LOOPBACK_NAMES);
    return withPort(names, port);
  }
  let known = withPort(machineNames(machine), port);
  return {
    has(host: string): boolean {
      if (known.has(host)) return true;
      known = withPort(machineNames(machine), port);
      return known.has(host);
    },
  };
}

/**
 * The address to print for a server bound to every interface: one another machine can reach (IPv4
 * preferred, link-local left out since it needs a zone), else loopback.
 */
export function reachableAddress(bindHost: string, machine: MachineAddresses = systemAddresses): string {
  const external = machine.interfaces().filter((info) => !info.internal && !info.address.toLowerCase().startsWith('fe80:'));
  const ipv4 = external.find((info) => info.family === 'IPv4');
  if (ipv4) return ipv4.address;
  // 0.0.0.0 listens on IPv4 only; :: may be IPv6 only (bindv6only), where ::1 still answers.
  if (bindHost === '0.0.0.0') return '127.0.0.1';
  return external.find((info) => info.family === 'IPv6')?.address ?? '::1';
}

export function hostAndOriginAllowed(request: IncomingMessage, hosts: HostAllowList): boolean {
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
