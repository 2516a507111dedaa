import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Stream } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { childSignal } from '../common/child-signal';
import { isToolName } from '../device/contract';
import type { DeviceLaunchSpec } from '../device/launch';
import { HOST_MARGIN_MS, toolTimeoutMs } from '../device/timeouts';

/** The device client could not be started: an outside condition to report, not a bug in Deskhand. */
export class DeviceStartError extends Error {
  override name = 'DeviceStartError';
}

/** Another way to reach the device client (the Electron shell's utility process); stdio by default. */
export type DeviceTransportFactory = () => Transport & { readonly stderr?: Stream | null };

export interface DeviceConnectionOptions {
  /** From deviceLaunchSpec: command, arguments, and an environment already stripped of secrets. */
  launch: DeviceLaunchSpec;
  createTransport?: DeviceTransportFactory;
  /** For tools the device contract does not know (none yet; external tools later). */
  defaultTimeoutMs: number;
  /** Lines the device client writes to stderr (its log). */
  onLog?: (line: string) => void;
  /**
   * A device client process ended, whatever the reason (killed, crashed, restarted, closed): the host
   * ends the commands a killed one could not (endOrphanCommands).
   */
  onExit?: () => void;
}

/**
 * The host's link to the device client process (an MCP server over stdio). The process may die (an X
 * error aborts it); the next call starts a fresh one, so the session can record the failure and go on.
 */
export class DeviceConnection {
  private client: Client | null = null;
  private connecting: Promise<Client> | null = null;
  private toolList: Tool[] = [];
  private about = '';
  private restarts = 0;
  private processId: number | null = null;
  private closed = false;

  constructor(private readonly options: DeviceConnectionOptions) {}

  get restartCount(): number {
    return this.restarts;
  }

  /** The device client's process id while it runs (stdio transport), for diagnostics. */
  get pid(): number | null {
    return this.client ? this.processId : null;
  }

  async tools(): Promise<Tool[]> {
    await this.connected();
    return this.toolList;
  }

  /** What the device client says of itself (MCP instructions): without a screen, why. */
  async instructions(): Promise<string> {
    await this.connected();
    return this.about;
  }

  /** `meta` goes in the request's MCP `_meta` (EXPECT_POINTER_META, say). */
  async callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal, meta?: Record<string, unknown>): Promise<CallToolResult> {
    const client = await this.connected();
    // The device enforces each tool's own limit; the host waits a little longer than that.
    const timeout = isToolName(name) ? toolTimeoutMs(name, args) + HOST_MARGIN_MS : this.options.defaultTimeoutMs;
    const call = childSignal(signal);
    try {
      const params = meta ? { name, arguments: args, _meta: meta } : { name, arguments: args };
      return (await client.callTool(params, CallToolResultSchema, { timeout, signal: call.signal })) as CallToolResult;
    } finally {
      call.release();
    }
  }

  /**
   * Ends the running device client so that the next call starts a fresh one: after the screen changed
   * size, only a new process's native screen code sees the new size.
   */
  async restart(): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.client = null;
    this.restarts++;
    await client.close();
  }

  /** For good: a call after it fails instead of starting a new device client (which could act after a quit). */
  async close(): Promise<void> {
    this.closed = true;
    const client = this.client ?? (await this.connecting?.catch(() => null)) ?? null;
    this.client = null;
    this.connecting = null;
    await client?.close();
  }

  private connected(): Promise<Client> {
    if (this.closed) return Promise.reject(new Error('the device client is closed: Deskhand is shutting down'));
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.start().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async start(): Promise<Client> {
    const transport = this.options.createTransport?.() ?? new StdioClientTransport({ ...this.options.launch, stderr: 'pipe' });
    let stderrTail = '';
    // A line (or a character) can arrive in two chunks: it is logged once, whole.
    const decoder = new StringDecoder('utf8');
    let partLine = '';
    const logLines = (text: string): void => {
      for (const line of text.split('\n')) if (line.trim()) this.options.onLog?.(line);
    };
    transport.stderr?.on('data', (chunk: Buffer) => {
      const text = decoder.write(chunk);
      stderrTail = (stderrTail + text).slice(-2_000);
      const lines = (partLine + text).split('\n');
      partLine = (lines.pop() ?? '').slice(-4_000);
      logLines(lines.join('\n'));
    });
    transport.stderr?.on('end', () => logLines(partLine + decoder.end()));
    const client = new Client({ name: 'deskhand-host', version: '0.1.0' });
    let ended = false;
    client.onclose = () => {
      if (this.client === client) {
        this.client = null;
        this.restarts++;
      }
      // Once per device client: a transport may report its close more than once.
      if (!ended) this.options.onExit?.();
      ended = true;
    };
    try {
      await client.connect(transport);
      this.toolList = (await client.listTools()).tools;
      this.about = client.getInstructions() ?? '';
    } catch (error) {
      await client.close().catch(() => undefined);
      const detail = stderrTail.trim() ? `: ${stderrTail.trim()}` : '';
      throw new DeviceStartError(`the device client did not start (${(error as Error).message})${detail}`);
    }
    this.client = client;
    this.processId = transport instanceof StdioClientTransport ? transport.pid : null;
    return client;
  }
}
