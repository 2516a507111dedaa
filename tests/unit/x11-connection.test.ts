// The X11 client's framing against a scripted server on TCP (DISPLAY=127.0.0.1:N): replies split across
// writes, events in between, error replies, a refused setup, and a server that goes away mid-request.
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_REPLY_BYTES, WINDOW_GONE, X11Connection, X11Error } from '../../src-main/device/x11/connection';

const ROOT = 0x123;

function setupReply(): Buffer {
  const extra = Buffer.alloc(32 + 40); // fixed part (no vendor string, no formats) + one screen
  extra.writeUInt8(1, 28 - 8); // one screen
  extra.writeUInt32LE(ROOT, 40 - 8); // the screen's root window
  const header = Buffer.alloc(8);
  header.writeUInt8(1, 0);
  header.writeUInt16LE(11, 2);
  header.writeUInt16LE(extra.length / 4, 6);
  return Buffer.concat([header, extra]);
}

/** A successful setup reply whose extra data is `extra` (its length field says so, whatever it holds). */
function acceptance(extra: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt8(1, 0);
  header.writeUInt16LE(11, 2);
  header.writeUInt16LE(extra.length / 4, 6);
  return Buffer.concat([header, extra]);
}

function refusal(reason: string): Buffer {
  const text = Buffer.from(reason, 'latin1');
  const padded = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4)]);
  const header = Buffer.alloc(8);
  header.writeUInt8(0, 0);
  header.writeUInt8(text.length, 1);
  header.writeUInt16LE(padded.length / 4, 6);
  return Buffer.concat([header, padded]);
}

type Handler = (opcode: number, sequence: number, body: Buffer, socket: Socket) => void;

let server: Server | null = null;

async function scriptedServer(handle: Handler, setup: Buffer = setupReply()): Promise<string> {
  server = createServer((socket) => {
    let buffer = Buffer.alloc(0);
    let sequence = 0;
    let handshaken = false;
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!handshaken) {
        if (buffer.length < 12) return;
        const size = 12 + Math.ceil(buffer.readUInt16LE(6) / 4) * 4 + Math.ceil(buffer.readUInt16LE(8) / 4) * 4;
        if (buffer.length < size) return;
        buffer = buffer.subarray(size);
        handshaken = true;
        socket.write(setup);
      }
      while (buffer.length >= 4 && buffer.length >= buffer.readUInt16LE(2) * 4) {
        const size = buffer.readUInt16LE(2) * 4;
        handle(buffer.readUInt8(0), ++sequence, buffer.subarray(4, size), socket);
        buffer = buffer.subarray(size);
      }
    });
  });
  for (let attempt = 0; ; attempt++) {
    const display = 400 + Math.floor(Math.random() * 500);
    const listening = await new Promise<boolean>((resolve) => {
      server?.once('error', () => resolve(false));
      server?.listen(6000 + display, '127.0.0.1', () => resolve(true));
    });
    if (listening) return `127.0.0.1:${display}`;
    if (attempt > 20) throw new Error('no free port for the scripted X server');
  }
}

function reply(sequence: number, fill: (body: Buffer) => void, extraWords = 0): Buffer {
  const message = Buffer.alloc(32 + extraWords * 4);
  message.writeUInt8(1, 0);
  message.writeUInt16LE(sequence, 2);
  message.writeUInt32LE(extraWords, 4);
  fill(message);
  return message;
}

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

describe('X11Connection', () => {
  it('reassembles replies split across writes and skips events between them', async () => {
    const display = await scriptedServer((opcode, sequence, body, socket) => {
      expect(opcode).toBe(14); // GetGeometry
      const answer = reply(sequence, (m) => {
        m.writeUInt32LE(ROOT, 8);
        m.writeInt16LE(-5, 12);
        m.writeInt16LE(40, 14);
        m.writeUInt16LE(body.readUInt32LE(0) === 7 ? 640 : 1, 16);
        m.writeUInt16LE(480, 18);
        m.writeUInt16LE(2, 20);
      });
      const event = Buffer.alloc(32);
      event.writeUInt8(12, 0); // Expose, which nobody asked for
      socket.write(Buffer.concat([event, answer.subarray(0, 10)]));
      setTimeout(() => socket.write(answer.subarray(10)), 5);
    });
    const x = await X11Connection.open(display, {});
    expect(x.root).toBe(ROOT);
    await expect(x.geometry(7)).resolves.toEqual({ root: ROOT, x: -5, y: 40, width: 640, height: 480, borderWidth: 2 });
    x.close();
  });

  it('reads a property value of the length the reply gives, and matches answers to requests', async () => {
    let internRequests = 0;
    const display = await scriptedServer((opcode, sequence, body, socket) => {
      if (opcode === 16) {
        internRequests++;
        socket.write(reply(sequence, (m) => m.writeUInt32LE(500 + body.readUInt16LE(0), 8)));
        return;
      }
      // GetProperty: two 32-bit items.
      socket.write(
        reply(
          sequence,
          (m) => {
            m.writeUInt8(32, 1);
            m.writeUInt32LE(33, 8);
            m.writeUInt32LE(2, 16);
            m.writeUInt32LE(0xaa, 32);
            m.writeUInt32LE(0xbb, 36);
          },
          2,
        ),
      );
    });
    const x = await X11Connection.open(display, {});
    const [a, b] = await Promise.all([x.atom('ABC'), x.atom('LONGER_NAME')]);
    expect([a, b]).toEqual([503, 511]);
    expect(await x.atom('ABC')).toBe(503);
    expect(internRequests).toBe(2); // the second 'ABC' came from the cache
    const value = await x.property(ROOT, a);
    expect(value).toMatchObject({ type: 33, format: 32 });
    expect([value.data.readUInt32LE(0), value.data.readUInt32LE(4)]).toEqual([0xaa, 0xbb]);
    x.close();
  });

  it('turns an X error into an X11Error with its code, and the connection goes on', async () => {
    const display = await scriptedServer((opcode, sequence, body, socket) => {
      if (body.readUInt32LE(0) === 0xdead) {
        const error = Buffer.alloc(32);
        error.writeUInt8(0, 0);
        error.writeUInt8(3, 1); // BadWindow
        error.writeUInt16LE(sequence, 2);
        error.writeUInt32LE(0xdead, 4);
        error.writeUInt8(opcode, 10);
        socket.write(error);
        return;
      }
      socket.write(reply(sequence, (m) => m.writeUInt8(2, 26))); // GetWindowAttributes: viewable
    });
    const x = await X11Connection.open(display, {});
    const failure = await x.mapState(0xdead).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(X11Error);
    expect(WINDOW_GONE.has((failure as X11Error).code ?? -1)).toBe(true);
    expect(await x.mapState(0x42)).toBe(2);
    x.close();
  });

  it('rejects what is in flight when the server goes away, and every later request', async () => {
    const display = await scriptedServer((_opcode, _sequence, _body, socket) => socket.destroy());
    const x = await X11Connection.open(display, {});
    await expect(x.geometry(1)).rejects.toThrow(/closed the connection|connection failed/);
    expect(x.closed).toBe(true);
    await expect(x.geometry(1)).rejects.toThrow(X11Error);
  });

  it('closes the connection, with a clear error, on a reply longer than any it asks for', async () => {
    const display = await scriptedServer((_opcode, sequence, _body, socket) => {
      const header = reply(sequence, () => undefined);
      header.writeUInt32LE(0x40000000, 4); // 4 GiB to follow
      socket.write(Buffer.concat([header, Buffer.alloc(64)]));
    });
    const x = await X11Connection.open(display, {});
    try {
      const started = Date.now();
      const failure = await x.geometry(1).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(X11Error);
      expect(String(failure)).toMatch(new RegExp(`reply of ${32 + 0x40000000 * 4} bytes, more than the ${MAX_REPLY_BYTES}.*closed`));
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(x.closed).toBe(true);
      await expect(x.geometry(1)).rejects.toThrow(X11Error);
    } finally {
      x.close(); // lets the server close when this failed
    }
  });

  it('closes the connection when a reply never arrives whole, so a new one can be opened', async () => {
    const display = await scriptedServer((_opcode, sequence, _body, socket) => {
      socket.write(reply(sequence, () => undefined, 100).subarray(0, 40)); // 400 more bytes promised, 8 sent
    });
    const x = await X11Connection.open(display, {});
    try {
      await expect(x.geometry(1)).rejects.toThrow(/did not answer request 14 within 5000 ms; the connection was closed/);
      expect(x.closed).toBe(true);
    } finally {
      x.close();
    }
  });

  it('refuses a setup reply too short for what it announces, without throwing from the socket handler', async () => {
    const short = await scriptedServer(() => undefined, acceptance(Buffer.alloc(8)));
    await expect(X11Connection.open(short, {})).rejects.toThrow(/setup reply is 16 bytes, too short/);
    await new Promise<void>((resolve) => server?.close(() => resolve()));

    const vendor = Buffer.alloc(32 + 4);
    vendor.writeUInt16LE(200, 24 - 8); // a 200-byte vendor string in a 44-byte reply
    vendor.writeUInt8(1, 28 - 8);
    const lying = await scriptedServer(() => undefined, acceptance(vendor));
    await expect(X11Connection.open(lying, {})).rejects.toThrow(/setup reply is 44 bytes, too short for the screen it announces/);
  });

  it('says why the server refused the connection', async () => {
    const display = await scriptedServer(() => undefined, refusal('Authorization required, but no authorization protocol specified'));
    await expect(X11Connection.open(display, {})).rejects.toThrow(/refused the connection: Authorization required/);
  });
});
