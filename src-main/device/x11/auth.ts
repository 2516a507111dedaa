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

/**
 * Parses the Xauthority format: per entry, big-endian length-prefixed family/address/display/name/data.
 * A truncated last entry (a file cut short while it was written, a full disk) ends the list and the
 * entries before it are used, as Xlib does.
 */
export function parseXauthority(file: Buffer): XauthEntry[] {
  const entries: XauthEntry[] = [];
  let offset = 0;
  const u16 = (): number | null => {
    if (offset + 2 > file.length) return null;
    offset += 2;
    return file.readUInt16BE(offset - 2);
  };
  const field = (): Buffer | null => {
    const length = u16();
    if (length === null || offset + length > file.length) return null;
    offset += length;
    return file.subarray(offset - length, offset);
  };
  while (offset < file.length) {
    const family = u16();
    const address = field();
    const display = field();
    const name = field();
    const data = field();
    if (family === null || !address || !display || !name || !data) break;
    entries.push({ family, address, display: display.toString('latin1'), name: name.toString('latin1'), data });
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

/** Reads $XAUTHORITY (or ~/.Xauthority); no file (or no entry for this display) means no cookie. */
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
