import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { realPathInside } from '../common/real-path-inside';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

/** Resolves a URL path inside `root`, or null when it would leave it. */
export function safeJoin(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const base = resolve(root);
  const full = resolve(base, `.${decoded.startsWith('/') ? decoded : `/${decoded}`}`);
  return full === base || full.startsWith(base + sep) ? full : null;
}

/** Sends the file at `path`, which must lie inside `root` once links are followed; false when there is none. */
export async function sendFile(
  response: ServerResponse,
  path: string,
  root: string,
  headers: Record<string, string> = {},
): Promise<boolean> {
  const real = await realPathInside(path, root);
  const info = real === null ? null : await stat(real).catch(() => null);
  if (real === null || !info?.isFile()) return false;
  response.writeHead(200, {
    'Content-Type': CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream',
    'Content-Length': String(info.size),
    ...headers,
  });
  // pipeline, not pipe: a client that leaves mid-file must close the file too, not leave it open and paused.
  await pipeline(createReadStream(real), response).catch(() => response.destroy());
  return true;
}
