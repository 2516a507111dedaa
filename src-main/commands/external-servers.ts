import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { settledWithin } from '../common/settled-within';
import { headOf } from '../common/text-head';
import { unlessAborted } from '../common/unless-aborted';
import { deviceEnv } from '../device/launch';
import { tokenVariables, type ExternalMcpServer } from '../host/config';
import { ExternalToolError } from './external-tool-error';
import { StderrLines, StderrLog } from './mcp-stderr-log';
import { readToolList, ToolListRereads, type ToolList } from './mcp-tool-list';
import { SERVER_EXIT_GRACE_MS, serverProcessTransport, type ServerProcessTransport } from './server-process-transport';

export { ExternalToolError } from './external-tool-error';

/**
 * The user's own MCP servers (settings `mcpServers`): each is a stdio command or a
 * Streamable HTTP URL with an optional bearer token. Their tools join the tool list as
 * `<server>.<tool>` (so two servers, or a server and the device, never clash), and count as sensitive
 * unless the server is marked trusted (isTrusted; the safety policy asks for approval otherwise).
 *
 * - Servers connect in parallel on start(); one that fails is reported in status() and retried on the
 *   next tools() (waited for RETRY_WAIT_MS at most) or callTool(), never blocking the others. check()
 *   connects those not connected and pings those that are (Settings' "Check connections").
 * - A connection that drops (the process died, the HTTP server went away) is reopened on the next call.
 *   A call that was in flight when it dropped fails and is not repeated: it may have had its effect.
 * - update() follows the settings: a server removed or changed (marked untrusted, say) is closed at once.
 * - Connecting and listing the tools take at most the connect timeout (default 15 s) together. Tools
 *   (mcp-tool-list.ts) with names the specification does not allow, repeated names or beyond MAX_TOOLS_PER_SERVER are left out
 *   (status().leftOut and the log say so); no page is read once MAX_TOOLS_PER_SERVER tools are kept.
 * - A server that says its tool list changed (notifications/tools/list_changed) has it read again in the
 *   same way and within the same timeout (readToolList), one read at a time (ToolListRereads). A read
 *   that fails keeps the tools read before and puts why in status().error.
 * - Each call has a timeout (default 60 s; the server gets a cancellation when it passes).
 * - stdio servers get the host's environment without secrets (deviceEnv), nor the variables holding the
 *   HTTP servers' tokens: a server that needs a key should read it from its own configuration. Their stderr goes to onLog (mcp-stderr-log.ts): at most
 *   MAX_LOG_LINES_PER_MINUTE lines a minute, each cut to MAX_LOG_LINE_CHARS.
 * - On Linux and macOS a stdio server runs in a process group of its own, which closing it ends: what it
 *   started goes with it (server-process-transport.ts).
 * - The bearer token comes from getSecret(tokenSecret) when connecting, so it never sits in settings.
 */

export const TOOL_SEPARATOR = '.';
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 15_000;
/** How long check() waits for a connected server to answer a ping (at most the connect timeout). */
export const PING_TIMEOUT_MS = 5_000;
/** How long tools() waits for another attempt at a server whose last one failed (see tools()). */
export const RETRY_WAIT_MS = 2_000;
export interface ExternalTool {
  /** `<server>.<tool>`: the name the model uses and the dispatcher routes. */
  name: string;
  server: string;
  /** The tool's own name on its server. */
  toolName: string;
  description: string;
  inputSchema: Tool['inputSchema'];
  annotations?: Tool['annotations'];
  trusted: boolean;
}

export interface ExternalServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  trusted: boolean;
  connected: boolean;
  toolCount: number;
  /** What of its tool list was left out and why (also logged); empty when nothing was. */
  leftOut: string[];
  /** Why the last connection attempt, call or read of its changed tool list failed; null when fine. */
  error: string | null;
}

export interface ExternalServersOptions {
  servers: readonly ExternalMcpServer[];
  /** Looks up a secret by name (keychain or environment); null or undefined when it is not set. */
  getSecret?: (name: string) => Promise<string | null | undefined> | string | null | undefined;
  /** The model's API keys now: a token variable holding one (MY_TOKEN=$OPENAI_API_KEY) is refused, not sent. */
  modelKeys?: () => readonly (string | null)[];
  callTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** Base environment for stdio servers (default process.env); secrets are removed from it. */
  env?: NodeJS.ProcessEnv;
  /** Lines a stdio server writes to stderr (rate-limited, each cut: see StderrLog). */
  onLog?: (server: string, line: string) => void;
  /** Called when a server's tool list changed (after a reconnect or a list_changed notification). */
  onToolsChanged?: (server: string) => void;
  /** Told of each stdio server process started and gone (the host records them: ServerProcessRecord). */
  processes?: ServerProcessLog;
}

export interface ServerProcessLog {
  started(pid: number, server: string): void;
  ended(pid: number): void;
}


/**
 * The most of a server's own words kept in an error: its message goes into the step's result, its
 * events, the audit and the next prompt, and a server may send megabytes of it.
 */
export const MAX_ERROR_CHARS = 2_000;

function message(error: unknown): string {
  // The HTTP library keeps the status apart from its message: a 401 or 404 says what to fix.
  const status = error instanceof StreamableHTTPError && typeof error.code === 'number' && error.code >= 100 ? `HTTP ${error.code}: ` : '';
  const text = status + (error instanceof Error ? error.message : String(error));
  return text.length > MAX_ERROR_CHARS ? `${headOf(text, MAX_ERROR_CHARS)}… (cut)` : text;
}

/**
 * The most one answer of an HTTP server may weigh (a response body, or one event stream), as much as
 * the MCP library lets a stdio server's message be: a server that sends more would fill the memory.
 */
export const MAX_ANSWER_BYTES = 10 * 1024 * 1024;

/** fetch whose response bodies end in an error past `max` bytes; `onTooLarge` is told first. */
function cappedFetch(max: number, onTooLarge: () => void): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!response.body) return response;
    let seen = 0;
    const capped = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen <= max) return controller.enqueue(chunk);
          onTooLarge();
          controller.error(new ExternalToolError(`its answer was over ${max / 1024 / 1024} MiB`));
        },
      }),
    );
    return new Response(capped, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** Longer than a server's transport takes to end its processes (input closed, grace, SIGTERM, grace, SIGKILL). */
const PROCESS_END_WAIT_MS = 2 * SERVER_EXIT_GRACE_MS + 1_000;

/**
 * Aborts after `timeout` ms or when `also` aborts, whichever comes first; `dispose` once done with it.
 * (A timer, not AbortSignal.any over AbortSignal.timeout: Node may collect that timeout signal, which
 * then never fires.)
 */
function deadline(timeout: number, also: AbortSignal): { signal: AbortSignal; dispose: () => void } {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(new ExternalToolError(`no answer within ${timeout} ms`)), timeout);
  const onAbort = (): void => stop.abort(also.reason);
  if (also.aborted) onAbort();
  else also.addEventListener('abort', onAbort, { once: true });
  return {
    signal: stop.signal,
    dispose: () => {
      clearTimeout(timer);
      also.removeEventListener('abort', onAbort);
    },
  };
}

class ServerLink {
  client: Client | null = null;
  tools: Tool[] = [];
  leftOut: string[] = [];
  error: string | null = null;
  /** The error of the last failed read of a changed tool list, while it is the one in `error`. */
  private rereadError: string | null = null;
  /** Why the last ping of the connected server went unanswered, while it is the one in `error`. */
  private pingError: string | null = null;
  private connecting: Promise<Client> | null = null;
  private closed = false;
  /** An answer of the HTTP server was over MAX_ANSWER_BYTES (its connection was closed for it). */
  tooLarge = false;
  /** Aborted by close(): a server still starting is not waited for. */
  private readonly closing = new AbortController();
  /** The stdio processes started and not yet gone. */
  private readonly processes = new Set<ServerProcessTransport>();
  private readonly log = (line: string): void => this.options.onLog?.(this.config.name, line);
  /** The server's stderr, rate-limited: one log for every process it starts. */
  private readonly stderrLog = new StderrLog((line) => this.options.onLog?.(this.config.name, line));

  constructor(
    readonly config: ExternalMcpServer,
    private readonly options: ExternalServersOptions,
    /** The variables holding the HTTP servers' tokens, as configured now. */
    private readonly tokenNames: () => ReadonlySet<string>,
  ) {}

  connected(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    if (this.closed) return Promise.reject(new ExternalToolError(`the MCP server ${this.config.name} is closed`));
    this.connecting ??= this.open().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async transport(): Promise<Transport> {
    const config = this.config;
    if (config.transport === 'stdio') {
      const transport = serverProcessTransport(
        // Another server's token variable may have any name ("GH_MCP"): it is left out by name.
        { command: config.command, args: config.args, env: deviceEnv(this.options.env ?? process.env, this.tokenNames()) },
        {
          started: (pid) => this.options.processes?.started(pid, config.name),
          ended: (pid) => this.options.processes?.ended(pid),
        },
      );
      this.processes.add(transport);
      void transport.gone.then(() => this.processes.delete(transport));
      const lines = new StderrLines((line) => this.stderrLog.line(line));
      transport.stderr?.on('data', (chunk: Buffer) => lines.write(chunk));
      transport.stderr?.on('end', () => lines.end());
      return transport;
    }
    const headers: Record<string, string> = {};
    if (config.tokenSecret) {
      const token = await this.options.getSecret?.(config.tokenSecret);
      if (!token) throw new ExternalToolError(`the secret "${config.tokenSecret}" holding the token for ${config.name} is not set`);
      if (this.options.modelKeys?.().includes(token)) {
        throw new ExternalToolError(
          `the secret "${config.tokenSecret}" holding the token for ${config.name} holds the model's API key, which is never sent to an MCP server: give the server a token of its own`,
        );
      }
      headers.Authorization = `Bearer ${token}`;
    }
    // An event stream that grows too large only reports an error: closing the transport fails the call at once.
    const transport: StreamableHTTPClientTransport = new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers },
      fetch: cappedFetch(MAX_ANSWER_BYTES, () => {
        this.tooLarge = true;
        void transport.close();
      }),
    });
    return transport;
  }

  private async open(): Promise<Client> {
    const name = this.config.name;
    // Only an answer of this connection counts (the last one's event stream may have been cut for its size).
    this.tooLarge = false;
    const rereads = new ToolListRereads((isLatest) => this.rereadTools(client, isLatest));
    // A change during the first read may have come after the page it changed was read.
    let changedWhileConnecting = false;
    const client = new Client(
      { name: 'deskhand', version: '0.1.0' },
      {
        listChanged: {
          // Not the library's own re-read: it reads the first page only.
          tools: {
            autoRefresh: false,
            onChanged: () => {
              if (this.client === client) rereads.notice();
              else changedWhileConnecting = true;
            },
          },
        },
      },
    );
    client.onclose = () => {
      if (this.client === client) {
        this.client = null;
        this.error = 'the connection closed';
      }
    };
    const timeout = this.connectTimeout();
    // The timeout holds for connecting and listing together, not per request: pages that each come
    // just in time would otherwise hold every round (and close()) for as long as the server likes.
    // close() ends it too: quitting does not wait for a server that hangs on start.
    const { signal, dispose } = deadline(timeout, this.closing.signal);
    try {
      await client.connect(await this.transport(), { timeout, signal });
      const list = await readToolList(client, timeout, signal);
      if (this.closed) throw new ExternalToolError('closed while connecting');
      this.keep(list);
      this.client = client;
      this.error = null;
      this.rereadError = null;
      this.pingError = null;
      this.options.onToolsChanged?.(name);
      if (changedWhileConnecting) rereads.notice();
      return client;
    } catch (error) {
      await client.close().catch(() => undefined);
      const why = this.tooLarge ? `its answer was over ${MAX_ANSWER_BYTES / 1024 / 1024} MiB` : message(error);
      this.tooLarge = false;
      this.error = `cannot connect to the MCP server ${name}: ${why}`;
      throw new ExternalToolError(this.error);
    } finally {
      dispose();
    }
  }

  private connectTimeout(): number {
    return this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  }

  /**
   * Reads the tool list of `client` again after the server said it changed. Nothing is kept from a
   * connection that closed or was replaced meanwhile, nor from a read overtaken by a later notice.
   */
  private async rereadTools(client: Client, isLatest: () => boolean): Promise<void> {
    const current = (): boolean => this.client === client && !this.closed && isLatest();
    if (!current()) return;
    const timeout = this.connectTimeout();
    const { signal, dispose } = deadline(timeout, this.closing.signal);
    try {
      const list = await readToolList(client, timeout, signal);
      if (!current()) return;
      this.keep(list);
      if (this.error === this.rereadError) this.error = null;
      this.rereadError = null;
      this.options.onToolsChanged?.(this.config.name);
    } catch (error) {
      if (!current()) return;
      this.error = this.rereadError = `cannot read the changed tool list of the MCP server ${this.config.name}: ${message(error)}; its last tools are kept`;
      this.log(this.error);
    } finally {
      dispose();
    }
  }

  /**
   * Whether the server answers now: one not connected is connected (within the connect timeout), and
   * a connected one is pinged (see answersPing) and connected again when its connection failed. Never
   * throws.
   */
  async check(): Promise<void> {
    const client = this.client;
    if (client && (await this.answersPing(client))) return;
    await this.connected().catch(() => undefined);
  }

  /**
   * Pings a connected server; false when its connection failed (an HTTP server that went away looks
   * connected until it is asked something), which is then dropped. One that does not answer in time
   * stays connected, with why in `error`: it may be busy with a call, which closing it would fail.
   */
  private async answersPing(client: Client): Promise<boolean> {
    const timeout = Math.min(PING_TIMEOUT_MS, this.connectTimeout());
    const { signal, dispose } = deadline(timeout, this.closing.signal);
    try {
      await client.ping({ timeout, signal });
      if (this.error === this.pingError) this.error = null;
      this.pingError = null;
      return true;
    } catch (error) {
      if (this.client !== client) return false;
      const why = `the MCP server ${this.config.name} did not answer a ping: ${message(error)}`;
      const timedOut = signal.aborted || (error instanceof McpError && error.code === ErrorCode.RequestTimeout);
      if (timedOut) {
        this.error = this.pingError = why;
        return true;
      }
      // Dropped first, so that its closing does not put "the connection closed" over why.
      this.client = null;
      this.error = why;
      await client.close().catch(() => undefined);
      return false;
    } finally {
      dispose();
    }
  }

  /** Offers these tools from now on, logging what was left out of them. */
  private keep(list: ToolList): void {
    this.tools = list.usable.tools;
    this.leftOut = list.usable.leftOut(list.unread);
    for (const line of this.leftOut) this.log(line);
  }

  /** Resolves once the server's processes are gone (its transport ends one that ignores its closed input, and its group). */
  async close(): Promise<void> {
    this.closed = true;
    this.closing.abort(new ExternalToolError('closed while connecting'));
    const client = this.client ?? (await this.connecting?.catch(() => null)) ?? null;
    this.client = null;
    await client?.close().catch(() => undefined);
    await Promise.all([...this.processes].map((transport) => settledWithin(transport.gone, PROCESS_END_WAIT_MS)));
  }
}

/** `<server>.<tool>` -> [server, tool]; null when there is no separator. */
export function splitToolName(name: string): [string, string] | null {
  const at = name.indexOf(TOOL_SEPARATOR);
  if (at <= 0 || at === name.length - 1) return null;
  return [name.slice(0, at), name.slice(at + 1)];
}

export class ExternalServers {
  private links = new Map<string, ServerLink>();
  private servers: readonly ExternalMcpServer[] = [];

  constructor(private readonly options: ExternalServersOptions) {
    this.update(options.servers);
  }

  /**
   * The servers the settings now name. One that is gone or changed (its trust included) is closed
   * (a call of it in flight fails); new and changed ones connect on the next tools() or call.
   */
  update(servers: readonly ExternalMcpServer[]): void {
    const next = new Map<string, ServerLink>();
    for (const server of servers) {
      if (next.has(server.name)) throw new Error(`two MCP servers are named "${server.name}"; names must differ`);
      const kept = this.links.get(server.name);
      const same = kept && JSON.stringify(kept.config) === JSON.stringify(server);
      next.set(server.name, same ? kept : new ServerLink(server, this.options, () => tokenVariables({ mcpServers: [...this.servers] })));
    }
    const dropped = [...this.links.values()].filter((link) => next.get(link.config.name) !== link);
    this.links = next;
    this.servers = servers;
    for (const link of dropped) void link.close();
  }

  /** Connects every server (in parallel) and reports how each went; never throws for a failed server. */
  async start(): Promise<ExternalServerStatus[]> {
    await Promise.all([...this.links.values()].map((link) => link.connected().catch(() => undefined)));
    return this.status();
  }

  /**
   * Connects every server that is not connected and pings those that are (see ServerLink.check), in
   * parallel, then reports how each went: what "Check connections" in Settings asks for. Never throws
   * for a failed server.
   */
  async check(): Promise<ExternalServerStatus[]> {
    await Promise.all([...this.links.values()].map((link) => link.check()));
    return this.status();
  }

  status(): ExternalServerStatus[] {
    return [...this.links.values()].map((link) => ({
      name: link.config.name,
      transport: link.config.transport,
      trusted: link.config.trusted,
      connected: link.client !== null,
      toolCount: link.client ? link.tools.length : 0,
      leftOut: link.client ? link.leftOut : [],
      error: link.error,
    }));
  }

  /**
   * Tools of every reachable server; servers that are down are tried again first. Every request asks
   * for these before its first step: a server whose last attempt failed is waited for RETRY_WAIT_MS at
   * most (the attempt goes on, and its tools are there for a later request), so one that hangs on start
   * costs each request seconds, not the whole connect timeout.
   */
  async tools(): Promise<ExternalTool[]> {
    await Promise.all(
      [...this.links.values()].map((link) => {
        const failedBefore = link.client === null && link.error !== null;
        const attempt = link.connected().catch(() => undefined);
        return failedBefore ? settledWithin(attempt, RETRY_WAIT_MS) : attempt;
      }),
    );
    const tools: ExternalTool[] = [];
    for (const link of this.links.values()) {
      if (!link.client) continue;
      for (const tool of link.tools) {
        tools.push({
          name: `${link.config.name}${TOOL_SEPARATOR}${tool.name}`,
          server: link.config.name,
          toolName: tool.name,
          description: tool.description ?? '',
          inputSchema: tool.inputSchema,
          ...(tool.annotations ? { annotations: tool.annotations } : {}),
          trusted: link.config.trusted,
        });
      }
    }
    return tools;
  }

  /** Whether `name` is `<server>.<tool>` of a configured server (the tool itself may not exist). */
  handles(name: string): boolean {
    const parts = splitToolName(name);
    return parts !== null && this.links.has(parts[0]);
  }

  /** True only for tools of servers the user marked trusted; unknown names are not trusted. */
  isTrusted(name: string): boolean {
    const parts = splitToolName(name);
    return parts !== null && this.links.get(parts[0])?.config.trusted === true;
  }

  /**
   * Calls `<server>.<tool>`. Resolves with the tool's result (isError for a tool's own failure);
   * rejects with an ExternalToolError for an unknown server or tool, a server that cannot be reached,
   * a timeout, or a connection that dropped during the call.
   */
  async callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    const parts = splitToolName(name);
    const link = parts ? this.links.get(parts[0]) : undefined;
    if (!parts || !link) {
      const servers = [...this.links.keys()].join(', ') || 'none';
      throw new ExternalToolError(`unknown tool "${name}": external tools are named <server>.<tool>; servers: ${servers}`);
    }
    const [server, tool] = parts;
    // (Re)connecting may take the whole connect timeout: Stop does not wait for it.
    const client = await unlessAborted(link.connected(), signal, () => new ExternalToolError(`${name} was not run: stopped while connecting to ${server}`));
    if (!link.tools.some((t) => t.name === tool)) {
      const known = link.tools.map((t) => t.name).join(', ');
      throw new ExternalToolError(`the MCP server ${server} has no tool "${tool}"; its tools: ${known}`);
    }
    // Only this call's answer counts, not an earlier one's (the background event stream may have been cut).
    link.tooLarge = false;
    try {
      const result = await client.callTool({ name: tool, arguments: args }, CallToolResultSchema, {
        timeout: this.options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
        signal,
      });
      return result as CallToolResult;
    } catch (error) {
      const why = link.tooLarge ? `its answer was over ${MAX_ANSWER_BYTES / 1024 / 1024} MiB` : message(error);
      link.tooLarge = false;
      if (/connection closed|not connected|ECONNREFUSED|fetch failed|socket/i.test(why) && link.client === client) {
        // The next call reconnects.
        link.client = null;
        await client.close().catch(() => undefined);
      }
      link.error = `${name} failed: ${why}`;
      throw new ExternalToolError(link.error);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.links.values()].map((link) => link.close()));
  }
}
