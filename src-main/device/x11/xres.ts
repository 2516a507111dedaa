import { X11Connection, X11Error } from './connection';

/**
 * The process that owns a window, as the X server knows it (X-Resource 1.2 QueryClientIds, the pid of
 * a local client's socket peer). Unlike _NET_WM_PID, which the program writes itself (or does not, or
 * writes as its sandbox sees it), this is the server's own record; it is there only for clients
 * connected on this machine.
 */

const XRES = { QueryVersion: 0, QueryClientIds: 4 } as const;
const CLIENT_IDS_SINCE = { major: 1, minor: 2 } as const;
/** XResLocalClientPIDMask. */
const LOCAL_CLIENT_PID = 2;
const REPLY_HEADER_BYTES = 32;

const opcodes = new WeakMap<X11Connection, Promise<number | null>>();

async function lookUpOpcode(x: X11Connection): Promise<number | null> {
  const opcode = await x.extensionOpcode('X-Resource');
  if (opcode === null) return null;
  const body = Buffer.alloc(4);
  body.writeUInt8(CLIENT_IDS_SINCE.major, 0);
  body.writeUInt8(CLIENT_IDS_SINCE.minor, 1);
  const reply = await x.extensionRequest(opcode, XRES.QueryVersion, body);
  const major = reply.readUInt16LE(8);
  const minor = reply.readUInt16LE(10);
  const recent = major > CLIENT_IDS_SINCE.major || (major === CLIENT_IDS_SINCE.major && minor >= CLIENT_IDS_SINCE.minor);
  return recent ? opcode : null;
}

/** The local pid in a QueryClientIds reply, or null when it has none (a client connected over TCP). */
export function parseClientPidReply(reply: Buffer): number | null {
  if (reply.length < REPLY_HEADER_BYTES) throw new X11Error(`an X-Resource client ids reply of ${reply.length} bytes is too short`);
  const count = reply.readUInt32LE(8);
  let offset = REPLY_HEADER_BYTES;
  for (let i = 0; i < count && offset + 12 <= reply.length; i++) {
    const mask = reply.readUInt32LE(offset + 4);
    const length = reply.readUInt32LE(offset + 8);
    if (mask === LOCAL_CLIENT_PID && length >= 4 && offset + 16 <= reply.length) {
      const pid = reply.readUInt32LE(offset + 12);
      return pid > 0 ? pid : null;
    }
    offset += 12 + length;
  }
  return null;
}

/**
 * The pid of the client that created `window` (any XID of a client names it); null when the server has
 * no X-Resource 1.2, the client is not local, or the window is gone.
 */
export async function windowClientPid(x: X11Connection, window: number): Promise<number | null> {
  let lookup = opcodes.get(x);
  if (!lookup) {
    lookup = lookUpOpcode(x).catch((error: unknown) => {
      if (error instanceof X11Error && error.code !== null) return null;
      throw error;
    });
    opcodes.set(x, lookup);
  }
  const opcode = await lookup;
  if (opcode === null) return null;
  const body = Buffer.alloc(12);
  body.writeUInt32LE(1, 0);
  body.writeUInt32LE(window, 4);
  body.writeUInt32LE(LOCAL_CLIENT_PID, 8);
  try {
    return parseClientPidReply(await x.extensionRequest(opcode, XRES.QueryClientIds, body));
  } catch (error) {
    // BadValue (2) and the like: the id no longer names a client.
    if (error instanceof X11Error && error.code !== null) return null;
    throw error;
  }
}
