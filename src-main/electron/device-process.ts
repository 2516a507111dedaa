/**
 * The device client in an Electron utility process (host side). Packaged builds turn the RunAsNode
 * fuse off, so the host cannot start `electron out/main/device.js` as a Node process; a utility process
 * is Electron's own way to run Node code in a separate process: if native automation crashes it, the
 * app lives on and the host starts a new one.
 *
 * A utility process has no stdin, so MCP runs over its message port (`PortTransport`); stdout and
 * stderr are piped into one `stderr` stream, which the host reads as the device log exactly as it
 * reads a stdio client's stderr.
 */
import { PassThrough } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { PortTransport } from './mcp-port-transport';

/** The argument that tells the app's entry to become the device client (see main.ts). */
export const DEVICE_MARKER = '--deskhand-device';

/** What we use of Electron's UtilityProcess. */
export interface UtilityChild {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'spawn', listener: () => void): unknown;
  on(event: 'exit', listener: (code: number) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
  kill(): boolean;
  readonly stdout: NodeJS.ReadableStream | null;
  readonly stderr: NodeJS.ReadableStream | null;
}

export interface UtilityForkOptions {
  env: Record<string, string>;
  cwd: string;
  stdio: ['ignore', 'pipe', 'pipe'];
  serviceName: string;
}

/** Electron's `utilityProcess.fork`, or a stand-in in tests. */
export type ForkUtility = (modulePath: string, args: string[], options: UtilityForkOptions) => UtilityChild;

export interface UtilityDeviceOptions {
  fork: ForkUtility;
  /** The module the utility process runs: the app's main entry, which checks for DEVICE_MARKER. */
  modulePath: string;
  /** Device client flags (`deviceArgs(config)`). */
  args: string[];
  /** Already stripped of secrets (`deviceEnv`). */
  env: Record<string, string>;
  cwd: string;
}

/**
 * An MCP client transport that starts the device client in a utility process. Shaped like the SDK's
 * StdioClientTransport (`start`, `send`, `close`, and a `stderr` stream readable before `start`), so
 * the host's DeviceConnection can use either.
 */
export class UtilityProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  /** The device client's stdout and stderr (its log; MCP itself goes over the port). */
  readonly stderr = new PassThrough();
  private port: PortTransport | null = null;

  constructor(private readonly options: UtilityDeviceOptions) {}

  /** The process id once started (for logs). */
  pid: number | undefined;

  async start(): Promise<void> {
    if (this.port) throw new Error('UtilityProcessTransport already started');
    const child = this.options.fork(this.options.modulePath, [DEVICE_MARKER, ...this.options.args], {
      env: this.options.env,
      cwd: this.options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      serviceName: 'Deskhand device client',
    });
    child.stdout?.pipe(this.stderr, { end: false });
    child.stderr?.pipe(this.stderr, { end: false });

    const port = new PortTransport({
      post: (message) => child.postMessage(message),
      listen: (onMessage) => {
        child.on('message', onMessage);
        return () => child.off('message', onMessage);
      },
      close: () => child.kill(),
    });
    port.onmessage = (message) => this.onmessage?.(message);
    port.onerror = (error) => this.onerror?.(error);
    port.onclose = () => this.onclose?.();
    this.port = port;
    await port.start();

    await new Promise<void>((resolve, reject) => {
      let spawned = false;
      child.on('spawn', () => {
        spawned = true;
        this.pid = (child as { pid?: number }).pid;
        resolve();
      });
      child.on('exit', (code) => {
        if (!spawned) reject(new Error(`the device client process exited (code ${code}) before it started`));
        port.ended();
        // Let piped output drain before the stream ends.
        setImmediate(() => this.stderr.end());
      });
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.port) throw new Error('UtilityProcessTransport not started');
    await this.port.send(message);
  }

  async close(): Promise<void> {
    await this.port?.close();
  }
}
