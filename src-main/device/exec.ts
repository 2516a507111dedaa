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

const found = new Map<string, boolean>();

/** Whether a program is on PATH (cached for the life of the process). */
export async function hasCommand(command: string): Promise<boolean> {
  const cached = found.get(command);
  if (cached !== undefined) return cached;
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  let ok = false;
  for (const dir of dirs) {
    try {
      await access(join(dir, command), constants.X_OK);
      ok = true;
      break;
    } catch {
      // keep looking
    }
  }
  found.set(command, ok);
  return ok;
}
