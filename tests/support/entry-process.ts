import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';

export type EntryChild = ChildProcessByStdio<null, Readable, Readable>;

export interface EntryProcess {
  child: EntryChild;
  /** Everything written on stdout so far. */
  stdout(): string;
  /** Everything written on stderr so far. */
  stderr(): string;
  /** The exit code, once the process has exited and its output is all read. */
  exited: Promise<number | null>;
}

export interface EntryOptions {
  /** Called with the stdout so far each time more comes (to stop the process once it said enough, say). */
  onStdout?: (stdout: string, child: EntryChild) => void;
}

/** Spawns a Deskhand entry from source (`node --import tsx src-main/…/main.ts ...args`) with exactly `env`, and collects its output. */
export function spawnEntry(entry: string, args: string[], env: NodeJS.ProcessEnv | undefined, options: EntryOptions = {}): EntryProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(entry), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    options.onStdout?.(stdout, child);
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // 'close', not 'exit': 'exit' can come before the last of the output is read.
  const exited = new Promise<number | null>((done) => child.once('close', (code: number | null) => done(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

export interface EntryRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a Deskhand entry from source to its exit (see spawnEntry). */
export async function runEntry(entry: string, args: string[], env: NodeJS.ProcessEnv | undefined, options: EntryOptions = {}): Promise<EntryRun> {
  const running = spawnEntry(entry, args, env, options);
  const code = await running.exited;
  return { code, stdout: running.stdout(), stderr: running.stderr() };
}

/** An `onStdout` for browser mode (src-main/web/main.ts) run to see it refuse to start: stops it if it starts after all. */
export function killOnceListening(stdout: string, child: EntryChild): void {
  if (stdout.includes('Deskhand UI:')) child.kill('SIGKILL');
}
