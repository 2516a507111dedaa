import { realpath } from 'node:fs/promises';
import { sep } from 'node:path';

/**
 * The real path of `path` (every symbolic link followed) when it lies inside the real path of `root`,
 * else null, also when either does not exist. Links are followed only while they stay inside: a link in
 * the screenshots folder (which a command the agent runs can put there) must not serve a file from elsewhere.
 */
export async function realPathInside(path: string, root: string): Promise<string | null> {
  try {
    const [real, realRoot] = await Promise.all([realpath(path), realpath(root)]);
    return real.startsWith(realRoot + sep) ? real : null;
  } catch {
    return null;
  }
}
