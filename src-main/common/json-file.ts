import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { z } from 'zod';
import { issuesText } from './zod-issues';

/** JSON files in the data folder (settings, secrets, window state, a database repair's note): read back checked, written whole. */

export type JsonFileResult<T> = { value: T; problem: null } | { value: null; problem: string | null };

/**
 * Reads a JSON file and checks it with a zod schema. Missing: `{ value: null, problem: null }`.
 * Unreadable or invalid: the file is moved aside to `<name>.bad` (replacing an older one) and the
 * problem is described, so the caller can fall back to defaults and say why.
 */
export function readValidatedJson<T>(path: string, schema: z.ZodType<T>): JsonFileResult<T> {
  if (!existsSync(path)) return { value: null, problem: null };
  let problem: string;
  try {
    const parsed = schema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    if (parsed.success) return { value: parsed.data, problem: null };
    problem = issuesText(parsed.error, { root: '(top level)', max: 20 });
  } catch (error) {
    problem = error instanceof SyntaxError ? `not valid JSON (${error.message})` : (error as Error).message;
  }
  const aside = `${path}.bad`;
  try {
    renameSync(path, aside);
    return { value: null, problem: `${path} is damaged (${problem}); it was kept as ${aside} and defaults are used` };
  } catch (error) {
    return { value: null, problem: `${path} is damaged (${problem}) and could not be moved aside: ${(error as Error).message}` };
  }
}

/**
 * Writes JSON atomically and durably, creating the folder (private, as the data folder is): a temporary
 * file, flushed to disk before it is renamed over the old one, then the folder's entry flushed too. A
 * power cut leaves the old file or the new one, never an empty one (a rename can reach the disk before
 * the data it names).
 */
export function writeJsonAtomic(path: string, value: unknown, mode = 0o600): void {
  const folder = dirname(path);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  try {
    const file = openSync(temp, 'w', mode);
    try {
      writeSync(file, `${JSON.stringify(value, null, 2)}\n`);
      fsyncSync(file);
    } finally {
      closeSync(file);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  syncFolder(folder);
}

/** What fsync of a folder answers on file systems that cannot flush one (some network and FUSE mounts). */
const FOLDER_SYNC_UNSUPPORTED = new Set(['EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'EISDIR']);

/**
 * Windows cannot open a folder for syncing; its renames are flushed with the file system's journal.
 * Where a folder cannot be flushed the file is in place all the same: that is no failed write.
 */
function syncFolder(folder: string): void {
  if (process.platform === 'win32') return;
  const handle = openSync(folder, 'r');
  try {
    fsyncSync(handle);
  } catch (error) {
    if (!FOLDER_SYNC_UNSUPPORTED.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
  } finally {
    closeSync(handle);
  }
}
