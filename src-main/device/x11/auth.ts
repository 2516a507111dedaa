import { readFileSync } from 'node:fs';
import { hostname, homedir } from 'node:os';
import { join } from 'node:path';

/** One entry of an Xauthority file. */
export interface XauthEntry {
  family: number;
  address: Buffer;
  display: string;
  name: string;
  data: Buffer;
}

export const FAMILY_LOCAL = 256;
export const FAMILY_WILD = 65535;
const COOKIE = 'MIT-MAGIC-COOKIE-1';

/** Parses the Xauthority format: per entry, big-endian length-prefixed family/address/display/name/data. */
export function parseXauthority(file: Buffer): XauthEntry[] {
  const entries: XauthEntry[] = [];
  let offset = 0;
  const field = (): Buffer => {
    if (offset + 2 > file.length) throw new Error('truncated Xauthority entry');
    const length = file.readUInt16BE(offset);
    offset += 2;
    if (offset + length > file.length) throw new Error('truncated Xauthority entry');
    const value = file.subarray(offset, offset + length);
    offset += length;
    return value;
  };
  while (offset < file.length) {
    if (offset + 2 > file.length) throw new Error('truncated Xauthority entry');
    const family = file.readUInt16BE(offset);
    offset += 2;
    const address = field();
    const display = field().toString('latin1');
    const name = field().toString('latin1');
    const data = field();
    entries.push({ family, address, display, name, data });
  }
  return entries;
}

/**
 * The MIT-MAGIC-COOKIE-1 for a local display, as Xlib picks it: a local entry for this host or a wildcard,
 * for this display number (or any). Null when there is none: a server without access control (Xvfb's
 * default) takes an empty authorisation.
 */
export function cookieFor(entries: XauthEntry[], display: number, host = hostname()): { name: string; data: Buffer } | null {
  const wanted = String(display);
  const match = entries.find(
    (entry) =>
      entry.name === COOKIE &&
      (entry.display === wanted || entry.display === '') &&
      (entry.family === FAMILY_WILD || (entry.family === FAMILY_LOCAL && entry.address.toString('latin1') === host)),
  );
  return match ? { name: match.name, data: match.data } : null;
}

/** Reads $XAUTHORITY (or ~/.Xauthority); no file means no cookie. A file we cannot parse is an error. */
export function readCookie(display: number, env: NodeJS.ProcessEnv = process.env): { name: string; data: Buffer } | null {
  const path = env.XAUTHORITY || join(env.HOME || homedir(), '.Xauthority');
  let file: Buffer;
  try {
    file = readFileSync(path);
  } catch {
    return null;
  }
  return cookieFor(parseXauthority(file), display);
}
