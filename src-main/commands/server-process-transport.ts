import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough, type Stream } from 'node:stream';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { groupRunning, signalGroup } from '../common/process-group';
import { settledWithin } from '../common/settled-within';

/**
 * The transport of a stdio MCP server, which knows when the server's processes are gone and reports
 * its pid when started and when gone (ServerProcessEvents, for a host killed before it could end it).
 *
 * POSIX (ProcessGroupTransport): the server runs in a session and process group of its own, so that
 * what it started (`npx` runs npm, which runs sh, which runs node) ends with it. Closing closes its
 * input, gives it SERVER_EXIT_GRACE_MS to exit, then sends SIGTERM to the group (on Linux, to its whole
 * session: see signalGroup), and SIGKILL after another SERVER_EXIT_GRACE_MS; what a server that exits
 * by itself (or crashes) leaves in its group is ended the same way. Only a process that left the
 * session (setsid) can outlive it.
 * Windows (LibraryStdioTransport): the MCP library's transport, which runs `npx.cmd` and the like and
 * ends the server process only.
 */

/** How long a server gets to exit once its input is closed, and again once it is sent SIGTERM. */
export const SERVER_EXIT_GRACE_MS = 2_000;
const GROUP_POLL_MS = 50;

export interface ServerProcessParams {
  command: string;
  args: string[];
  /** Merged over the MCP library's default environment, as its own transport does. */
  env: Record<string, string>;
  cwd?: string;
}

export interface ServerProcessEvents {
  started(pid: number): void;
  ended(pid: number): void;
}

export interface ServerProcessTransport extends Transport {
  /** Resolves once the server's processes are gone (or it never started). */
  readonly gone: Promise<void>;
  /** The server's stderr, there before start() so that nothing it writes early is missed. */
  readonly stderr: Stream | null;
}

export function serverProcessTransport(
  params: ServerProcessParams,
  events: ServerProcessEvents,
  platform: NodeJS.Platform = process.platform,
): ServerProcessTransport {
  return platform === 'win32' ? new LibraryStdioTransport(params, events) : new ProcessGroupTransport(params, events);
}

/** The error of a server that could not be started, naming the program. */
function startError(command: string, error: unknown): Error {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOENT') return new Error(`the program "${command}" was not found (ENOENT)`);
  if (code === 'EACCES') return new Error(`the program "${command}" cannot be run: permission denied (EACCES)`);
  return new Error(`the program "${command}" could not be started: ${error instanceof Error ? error.message : String(error)}`);
}

function latch(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** Resolves once `check` holds (polled), or after `ms` at most. */
async function pollUntil(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((done) => setTimeout(done, GROUP_POLL_MS));
}

class ProcessGroupTransport implements ServerProcessTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly stderr = new PassThrough();
  private readonly goneNow = latch();
  readonly gone = this.goneNow.promise;
  private readonly exited = latch();
  private readonly readBuffer = new ReadBuffer();
  private child: ChildProcess | null = null;
  private ending: Promise<void> | null = null;

  constructor(
    private readonly params: ServerProcessParams,
    private readonly events: ServerProcessEvents,
  ) {}

  start(): Promise<void> {
    if (this.child) return Promise.reject(new Error('the server process was already started'));
    const { command, args, env, cwd } = this.params;
    return new Promise((resolve, reject) => {
      const failed = (error: unknown): void => {
        this.goneNow.resolve();
        reject(startError(command, error));
      };
      let child: ChildProcess;
      try {
        // detached: setsid(), so the server leads a session and process group of its own.
        child = spawn(command, args, { env: { ...getDefaultEnvironment(), ...env }, cwd, stdio: 'pipe', detached: true, shell: false });
      } catch (error) {
        failed(error);
        return;
      }
      this.child = child;
      this.readOutput(child);
      let spawned = false;
      child.on('error', (error) => (spawned ? this.onerror?.(error) : failed(error)));
      child.once('spawn', () => {
        spawned = true;
        this.watch(child);
        resolve();
      });
    });
  }

  private readOutput(child: ChildProcess): void {
    child.stdin?.on('error', (error) => this.onerror?.(error));
    child.stdout?.on('error', (error) => this.onerror?.(error));
    child.stdout?.on('data', (chunk: Buffer) => this.read(chunk));
    child.stderr?.pipe(this.stderr);
  }

  /** Follows a process that started until it and its group are gone. */
  private watch(child: ChildProcess): void {
    const pid = child.pid;
    if (pid === undefined) return;
    this.events.started(pid);
    child.once('exit', () => {
      this.exited.resolve();
      // Whatever it left in its group is ended too, even when the server exited by itself.
      void this.endGroup(child, pid).then(() => {
        this.events.ended(pid);
        this.goneNow.resolve();
      });
    });
    // After the exit, once its output is read to the end (what it left holding it is ended above).
    child.once('close', () => this.onclose?.());
  }

  private read(chunk: Buffer): void {
    try {
      this.readBuffer.append(chunk);
    } catch (error) {
      // Over the buffer's limit (10 MiB by default): the connection is closed, as the MCP library does.
      this.onerror?.(error as Error);
      void this.close();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.readBuffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || !stdin.writable || this.ending) return Promise.reject(new Error('Not connected'));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (child?.pid !== undefined) await this.endGroup(child, child.pid);
    this.readBuffer.clear();
  }

  /**
   * Ends the server's group, once: its input closed, SERVER_EXIT_GRACE_MS for the server to exit, then
   * SIGTERM to what is left of the group, and SIGKILL after another SERVER_EXIT_GRACE_MS.
   */
  private endGroup(child: ChildProcess, pid: number): Promise<void> {
    this.ending ??= (async () => {
      child.stdin?.end();
      await settledWithin(this.exited.promise, SERVER_EXIT_GRACE_MS);
      for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
        if (!groupRunning(pid)) break;
        signalGroup(pid, signal);
        await pollUntil(() => !groupRunning(pid), SERVER_EXIT_GRACE_MS);
      }
      await settledWithin(this.exited.promise, SERVER_EXIT_GRACE_MS);
    })();
    return this.ending;
  }
}

/** The MCP library's transport (Windows), which knows when its process is gone. */
class LibraryStdioTransport extends StdioClientTransport implements ServerProcessTransport {
  private readonly goneNow = latch();
  readonly gone = this.goneNow.promise;

  constructor(
    private readonly params: ServerProcessParams,
    private readonly events: ServerProcessEvents,
  ) {
    super({ ...params, stderr: 'pipe' });
  }

  override async start(): Promise<void> {
    try {
      await super.start();
    } catch (error) {
      this.goneNow.resolve();
      throw startError(this.params.command, error);
    }
    const pid = this.pid;
    if (pid !== null) {
      this.events.started(pid);
      void this.gone.then(() => this.events.ended(pid));
    }
    // The client set its own onclose before starting the transport; it is called on the process's close.
    const clientOnClose = this.onclose;
    this.onclose = () => {
      this.goneNow.resolve();
      clientOnClose?.();
    };
  }
}
