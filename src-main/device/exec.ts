import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

export interface RunOptions {
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

export class CommandMissingError extends Error {
  override name = 'CommandMissingError';
}

/** Runs a program without a shell; resolves with stdout, rejects with stderr in the message. */
export function runFile(command: string, args: readonly string[], options: RunOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        timeout: options.timeoutMs ?? 10_000,
        env: options.env ?? process.env,
        maxBuffer: 16 * 1024 * 1024,
        encoding: 'utf8',
        killSignal: 'SIGKILL',
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
          return reject(new CommandMissingError(`${command} is not installed (not found on PATH)`));
        }
        const why = error.killed ? `timed out after ${options.timeoutMs ?? 10_000} ms` : stderr.trim() || error.message;
        reject(new Error(`${command} failed: ${why}`));
      },
    );
  });
}

const found = new Set<string>();

/**
 * Whether a program is on `path` (default the device's PATH). Only a program found is remembered: one
 * missing is looked for again next time, as the agent may have installed it meanwhile (a miss costs a
 * few access() calls).
 */
export async function hasCommand(command: string, path = process.env.PATH ?? ''): Promise<boolean> {
  const key = `${path}\0${command}`;
  if (found.has(key)) return true;
  for (const dir of path.split(delimiter).filter(Boolean)) {
    try {
      await access(join(dir, command), constants.X_OK);
      found.add(key);
      return true;
    } catch {
      // keep looking
    }
  }
  return false;
}
