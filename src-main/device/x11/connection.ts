import { connect, type Socket } from 'node:net';
import { parseDisplay, type XEndpoint } from '../health';
import { readCookie } from './auth';

/**
 * A small X11 protocol client: the handful of requests window listing needs (atoms, properties, geometry,
 * attributes, coordinates) and extension requests (RandR's monitors, randr.ts), over one persistent socket. Asking the server directly takes well under a
 * millisecond where starting xprop and xwininfo for every window took tens of them.
 */

export class X11Error extends Error {
  override name = 'X11Error';
  constructor(
    message: string,
    /** The X error code (3 = BadWindow), or null for connection problems. */
    readonly code: number | null = null,
  ) {
    super(message);
  }
}

/** The X errors a request about a window that no longer exists gets. */
export const WINDOW_GONE = new Set([3 /* BadWindow */, 9 /* BadDrawable */]);

/** GetWindowAttributes' map-state. */
export const MAP_STATE = { unmapped: 0, unviewable: 1, viewable: 2 } as const;

export interface PropertyValue {
  /** The property's type atom (0 when the property does not exist). */
  type: number;
  /** 8, 16 or 32 (0 when the property does not exist). */
  format: number;
  data: Buffer;
}

export interface Geometry {
  root: number;
  x: number;
  y: number;
  width: number;
  height: number;
  borderWidth: number;
}

const OPCODE = { GetWindowAttributes: 3, GetGeometry: 14, InternAtom: 16, GetProperty: 20, TranslateCoordinates: 40, QueryExtension: 98 } as const;
const REQUEST_TIMEOUT_MS = 5_000;
/**
 * The longest reply accepted. The largest this client asks for is a GetProperty of `maxLongs` 32-bit
 * units (4096 at most in use: 16 KiB); a 16 MiB cap leaves room for far larger properties, while the
 * 32-bit length field could claim 16 GiB, buffered here before anything is read. A longer one means the
 * byte stream is out of step (or the server is broken), so the connection is closed.
 */
export const MAX_REPLY_BYTES = 16 * 1024 * 1024;
const pad4 = (n: number): number => (4 - (n % 4)) % 4;

interface Pending {
  resolve(reply: Buffer): void;
  reject(error: Error): void;
}

export class X11Connection {
  private buffer: Buffer = Buffer.alloc(0);
  private sequence = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly atoms = new Map<string, number>();
  private readonly extensions = new Map<string, number | null>();
  private closedWith: Error | null = null;

  private constructor(
    private readonly socket: Socket,
    /** The first screen's root window. */
    readonly root: number,
  ) {
    // An idle connection must not keep a process alive; a request in flight holds its own timer.
    socket.unref();
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (error) => this.fail(new X11Error(`X connection failed: ${error.message}`)));
    socket.on('close', () => this.fail(new X11Error('the X server closed the connection')));
  }

  /** Connects to DISPLAY and completes the handshake. */
  static async open(display = process.env.DISPLAY ?? '', env: NodeJS.ProcessEnv = process.env): Promise<X11Connection> {
    const endpoint = parseDisplay(display);
    if (!endpoint) throw new X11Error(`DISPLAY "${display}" is not a display this client can reach`);
    const socket = await connectTo(endpoint);
    try {
      const cookie = readCookie(endpoint.kind === 'unix' ? endpoint.display : endpoint.port - 6000, env);
      const root = await handshake(socket, cookie);
      return new X11Connection(socket, root);
    } catch (error) {
      socket.destroy();
      throw error;
    }
  }

  get closed(): boolean {
    return this.closedWith !== null;
  }

  close(): void {
    this.socket.destroy();
    this.fail(new X11Error('the X connection was closed'));
  }

  async atom(name: string): Promise<number> {
    const known = this.atoms.get(name);
    if (known !== undefined) return known;
    const bytes = Buffer.from(name, 'latin1');
    const body = Buffer.alloc(4 + bytes.length + pad4(bytes.length));
    body.writeUInt16LE(bytes.length, 0);
    bytes.copy(body, 4);
    // only-if-exists = 0: the atom is created if missing, so the lookup never fails.
    const reply = await this.request(OPCODE.InternAtom, 0, body);
    const atom = reply.readUInt32LE(8);
    this.atoms.set(name, atom);
    return atom;
  }

  /** Reads up to `maxLongs` 32-bit units of a property; type 0 = any type. */
  async property(window: number, property: number, maxLongs = 4096, type = 0): Promise<PropertyValue> {
    if (32 + maxLongs * 4 > MAX_REPLY_BYTES) throw new X11Error(`cannot read ${maxLongs} units of a property: more than a reply may hold`);
    const body = Buffer.alloc(20);
    body.writeUInt32LE(window, 0);
    body.writeUInt32LE(property, 4);
    body.writeUInt32LE(type, 8);
    body.writeUInt32LE(0, 12);
    body.writeUInt32LE(maxLongs, 16);
    const reply = await this.request(OPCODE.GetProperty, 0, body);
    const format = reply.readUInt8(1);
    const items = reply.readUInt32LE(16);
    const length = format === 0 ? 0 : (items * format) / 8;
    return { type: reply.readUInt32LE(8), format, data: Buffer.from(reply.subarray(32, 32 + length)) };
  }

  async geometry(drawable: number): Promise<Geometry> {
    const reply = await this.request(OPCODE.GetGeometry, 0, u32(drawable));
    return {
      root: reply.readUInt32LE(8),
      x: reply.readInt16LE(12),
      y: reply.readInt16LE(14),
      width: reply.readUInt16LE(16),
      height: reply.readUInt16LE(18),
      borderWidth: reply.readUInt16LE(20),
    };
  }

  /** One of MAP_STATE. */
  async mapState(window: number): Promise<number> {
    const reply = await this.request(OPCODE.GetWindowAttributes, 0, u32(window));
    return reply.readUInt8(26);
  }

  /** (x, y) of `from` in `to`'s coordinates. */
  async translate(from: number, to: number, x: number, y: number): Promise<{ x: number; y: number }> {
    const body = Buffer.alloc(12);
    body.writeUInt32LE(from, 0);
    body.writeUInt32LE(to, 4);
    body.writeInt16LE(x, 8);
    body.writeInt16LE(y, 10);
    const reply = await this.request(OPCODE.TranslateCoordinates, 0, body);
    return { x: reply.readInt16LE(12), y: reply.readInt16LE(14) };
  }

  /** The major opcode of an extension (e.g. "RANDR"), or null when the server lacks it. */
  async extensionOpcode(name: string): Promise<number | null> {
    if (this.extensions.has(name)) return this.extensions.get(name) ?? null;
    const bytes = Buffer.from(name, 'latin1');
    const body = Buffer.alloc(4 + bytes.length + pad4(bytes.length));
    body.writeUInt16LE(bytes.length, 0);
    bytes.copy(body, 4);
    const reply = await this.request(OPCODE.QueryExtension, 0, body);
    const opcode = reply.readUInt8(8) === 1 ? reply.readUInt8(9) : null;
    this.extensions.set(name, opcode);
    return opcode;
  }

  /** A request of an extension: its major opcode (extensionOpcode), the request's minor opcode, the rest. */
  extensionRequest(major: number, minor: number, body: Buffer): Promise<Buffer> {
    return this.request(major, minor, body);
  }

  private request(opcode: number, data: number, body: Buffer): Promise<Buffer> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const header = Buffer.alloc(4);
    header.writeUInt8(opcode, 0);
    header.writeUInt8(data, 1);
    header.writeUInt16LE((4 + body.length) / 4, 2);
    this.sequence = (this.sequence + 1) & 0xffff;
    const sequence = this.sequence;
    return new Promise<Buffer>((resolve, reject) => {
      // Replies come in order: one that never arrives whole holds back every reply after it, so the
      // connection is given up and the next user opens a new one.
      const timer = setTimeout(() => {
        this.abort(new X11Error(`the X server did not answer request ${opcode} within ${REQUEST_TIMEOUT_MS} ms; the connection was closed`));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(sequence, {
        resolve: (reply) => {
          clearTimeout(timer);
          resolve(reply);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.socket.write(Buffer.concat([header, body]));
    });
  }

  private receive(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    while (this.buffer.length >= 32) {
      const kind = this.buffer.readUInt8(0);
      // Replies and generic events carry a length; errors and core events are 32 bytes.
      const size = kind === 1 || (kind & 0x7f) === 35 ? 32 + this.buffer.readUInt32LE(4) * 4 : 32;
      if (size > MAX_REPLY_BYTES) {
        this.abort(new X11Error(`the X server sent a reply of ${size} bytes, more than the ${MAX_REPLY_BYTES} accepted; the connection was closed`));
        return;
      }
      if (this.buffer.length < size) return;
      const message = this.buffer.subarray(0, size);
      this.buffer = this.buffer.subarray(size);
      if (kind > 1) continue; // an event nobody asked for (e.g. MappingNotify)
      const sequence = message.readUInt16LE(2);
      const waiter = this.pending.get(sequence);
      if (!waiter) continue;
      this.pending.delete(sequence);
      if (kind === 1) waiter.resolve(message);
      else {
        const code = message.readUInt8(1);
        waiter.reject(new X11Error(`X error ${code} (request ${message.readUInt8(10)}, value 0x${message.readUInt32LE(4).toString(16)})`, code));
      }
    }
  }

  /** Ends a connection whose byte stream can no longer be trusted, failing what waits on it with `error`. */
  private abort(error: X11Error): void {
    this.fail(error);
    this.buffer = Buffer.alloc(0);
    this.socket.destroy();
  }

  private fail(error: Error): void {
    if (this.closedWith) return;
    this.closedWith = error;
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }
}

function u32(value: number): Buffer {
  const body = Buffer.alloc(4);
  body.writeUInt32LE(value, 0);
  return body;
}

function connectTo(endpoint: XEndpoint): Promise<Socket> {
  const attempt = (options: { path: string } | { host: string; port: number }): Promise<Socket> =>
    new Promise((resolve, reject) => {
      const socket = connect(options);
      socket.once('connect', () => {
        socket.removeAllListeners('error');
        resolve(socket);
      });
      socket.once('error', reject);
    });
  if (endpoint.kind === 'tcp') {
    return attempt({ host: endpoint.host, port: endpoint.port }).catch((error: Error) => {
      throw new X11Error(`cannot reach the X server at ${endpoint.host}:${endpoint.port}: ${error.message}`);
    });
  }
  // Linux X servers also listen on the abstract socket of the same name, which survives a deleted /tmp.
  return attempt({ path: endpoint.path })
    .catch((error: Error) => (process.platform === 'linux' ? attempt({ path: `\0${endpoint.path}` }) : Promise.reject(error)))
    .catch((error: Error) => {
      throw new X11Error(`cannot reach the X server at ${endpoint.path}: ${error.message}`);
    });
}

/** Sends the connection setup and reads the reply: the first screen's root window. */
function handshake(socket: Socket, cookie: { name: string; data: Buffer } | null): Promise<number> {
  const name = Buffer.from(cookie?.name ?? '', 'latin1');
  const data = cookie?.data ?? Buffer.alloc(0);
  const setup = Buffer.alloc(12 + name.length + pad4(name.length) + data.length + pad4(data.length));
  setup.write('l', 0, 'latin1'); // little-endian
  setup.writeUInt16LE(11, 2);
  setup.writeUInt16LE(0, 4);
  setup.writeUInt16LE(name.length, 6);
  setup.writeUInt16LE(data.length, 8);
  name.copy(setup, 12);
  data.copy(setup, 12 + name.length + pad4(name.length));

  return new Promise<number>((resolve, reject) => {
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => finish(new X11Error('the X server did not answer the connection setup')), REQUEST_TIMEOUT_MS);
    const finish = (result: number | Error): void => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('error', onError);
      if (typeof result === 'number') resolve(result);
      else reject(result);
    };
    const onError = (error: Error): void => finish(new X11Error(`X connection setup failed: ${error.message}`));
    const onData = (chunk: Buffer): void => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 8) return;
      const size = 8 + received.readUInt16LE(6) * 4;
      if (received.length < size) return;
      const status = received.readUInt8(0);
      if (status !== 1) {
        const reason = status === 0 ? received.subarray(8, 8 + received.readUInt8(1)).toString('latin1') : 'more authentication required';
        finish(new X11Error(`the X server refused the connection: ${reason.trim() || 'no reason given'}`));
        return;
      }
      // The fixed part (40 bytes) says how long the vendor string and the formats are; the first
      // screen, which starts with its root window, follows them.
      if (size < 40) {
        finish(new X11Error(`the X server's setup reply is ${size} bytes, too short for one`));
        return;
      }
      const vendorLength = received.readUInt16LE(24);
      const formats = received.readUInt8(29);
      const screens = received.readUInt8(28);
      if (screens === 0) {
        finish(new X11Error('the X server reported no screens'));
        return;
      }
      const rootAt = 40 + vendorLength + pad4(vendorLength) + formats * 8;
      if (rootAt + 4 > size) {
        finish(new X11Error(`the X server's setup reply is ${size} bytes, too short for the screen it announces`));
        return;
      }
      finish(received.readUInt32LE(rootAt));
    };
    socket.on('data', onData);
    socket.on('error', onError);
    socket.write(setup);
  });
}
