/**
 * MCP over a message port instead of stdio. An Electron utility process has no stdin, so the device
 * client and the host talk through the utility process's port (`child.postMessage` /
 * `process.parentPort`). The same JSON-RPC messages as over stdio, as structured-clone objects, each
 * checked with the SDK's schema on arrival.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** One end of a message channel. */
export interface MessageEndpoint {
  post(message: unknown): void;
  /** Starts delivering incoming messages; returns a function that stops. */
  listen(onMessage: (data: unknown) => void): () => void;
  /** Ends the channel (kills the process, closes the port), if this side may. */
  close?(): void;
}

export class PortTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  sessionId?: string;

  private stopListening: (() => void) | null = null;
  private closed = false;

  constructor(private readonly endpoint: MessageEndpoint) {}

  async start(): Promise<void> {
    if (this.stopListening) throw new Error('PortTransport already started');
    if (this.closed) throw new Error('PortTransport is closed');
    this.stopListening = this.endpoint.listen((data) => this.receive(data));
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error('the device client connection is closed');
    this.endpoint.post(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.ended();
    this.endpoint.close?.();
  }

  /** The other side went away (the process exited): no more messages, tell the client once. */
  ended(): void {
    if (this.closed) return;
    this.closed = true;
    this.stopListening?.();
    this.stopListening = null;
    this.onclose?.();
  }

  private receive(data: unknown): void {
    const parsed = JSONRPCMessageSchema.safeParse(data);
    if (!parsed.success) {
      this.onerror?.(new Error(`not an MCP message: ${parsed.error.issues[0]?.message ?? 'unknown problem'}`));
      return;
    }
    this.onmessage?.(parsed.data);
  }
}
