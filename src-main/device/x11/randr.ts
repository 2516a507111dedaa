import type { Rect } from '../coords';
import { X11Connection, X11Error } from './connection';

/**
 * The monitors RandR 1.5 reports (RRGetMonitors, the list `xrandr --listactivemonitors` prints), asked
 * over the open X connection: one round trip where starting xrandr takes milliseconds, so every action
 * at a point can afford it.
 */

const RANDR = { QueryVersion: 0, GetMonitors: 42 } as const;
/** GetMonitors came with RandR 1.5. */
const MONITORS_SINCE = { major: 1, minor: 5 } as const;
const REPLY_HEADER_BYTES = 32;
const MONITOR_INFO_BYTES = 24;

/** Per connection: RandR's major opcode when the server has GetMonitors, else null. */
const monitorsOpcode = new WeakMap<X11Connection, Promise<number | null>>();

async function lookUpMonitorsOpcode(x: X11Connection): Promise<number | null> {
  const opcode = await x.extensionOpcode('RANDR');
  if (opcode === null) return null;
  const body = Buffer.alloc(8);
  body.writeUInt32LE(MONITORS_SINCE.major, 0);
  body.writeUInt32LE(MONITORS_SINCE.minor, 4);
  const reply = await x.extensionRequest(opcode, RANDR.QueryVersion, body);
  const major = reply.readUInt32LE(8);
  const minor = reply.readUInt32LE(12);
  const recent = major > MONITORS_SINCE.major || (major === MONITORS_SINCE.major && minor >= MONITORS_SINCE.minor);
  return recent ? opcode : null;
}

/** The bounds of the monitors in a GetMonitors reply, in the order the server lists them. */
export function parseMonitorsReply(reply: Buffer): Rect[] {
  if (reply.length < REPLY_HEADER_BYTES) throw new X11Error(`a RandR monitors reply of ${reply.length} bytes is too short`);
  const count = reply.readUInt32LE(12);
  const monitors: Rect[] = [];
  let offset = REPLY_HEADER_BYTES;
  for (let i = 0; i < count; i++) {
    if (offset + MONITOR_INFO_BYTES > reply.length) {
      throw new X11Error(`a RandR monitors reply of ${reply.length} bytes ends inside monitor ${i + 1} of ${count}`);
    }
    const outputs = reply.readUInt16LE(offset + 6);
    monitors.push({
      x: reply.readInt16LE(offset + 8),
      y: reply.readInt16LE(offset + 10),
      width: reply.readUInt16LE(offset + 12),
      height: reply.readUInt16LE(offset + 14),
    });
    offset += MONITOR_INFO_BYTES + outputs * 4;
  }
  return monitors;
}

/** The active monitors' bounds in root window coordinates; null when the server has no RandR 1.5. */
export async function activeMonitors(x: X11Connection): Promise<Rect[] | null> {
  let lookup = monitorsOpcode.get(x);
  if (!lookup) {
    lookup = lookUpMonitorsOpcode(x);
    monitorsOpcode.set(x, lookup);
  }
  const opcode = await lookup;
  if (opcode === null) return null;
  const body = Buffer.alloc(8);
  body.writeUInt32LE(x.root, 0);
  body.writeUInt8(1, 4); // get_active: monitors lit now, as xrandr --listactivemonitors lists them
  return parseMonitorsReply(await x.extensionRequest(opcode, RANDR.GetMonitors, body));
}
