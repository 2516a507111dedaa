import { describe, expect, it } from 'vitest';
import type { Rect } from '../../src-main/device/coords';
import { offMonitorsMessage, onAMonitor } from '../../src-main/device/displays';
import { parseMonitorsReply } from '../../src-main/device/x11/randr';

/** A 1920x1080 at (0, 0) and B 1280x1024 right of it: the screen is 3200x1080, its strip under B on neither. */
const SIDE_BY_SIDE: Rect[] = [
  { x: 0, y: 0, width: 1920, height: 1080 },
  { x: 1920, y: 0, width: 1280, height: 1024 },
];

describe('points on monitors', () => {
  it('puts the strip beside a shorter monitor on none, and every monitor pixel up to the edges on one', () => {
    expect(onAMonitor({ x: 2000, y: 1050 }, SIDE_BY_SIDE)).toBe(false);
    expect(onAMonitor({ x: 1920, y: 1024 }, SIDE_BY_SIDE)).toBe(false); // the gap's first pixel
    expect(onAMonitor({ x: 3199, y: 1079 }, SIDE_BY_SIDE)).toBe(false); // the screen's last pixel
    for (const point of [
      { x: 0, y: 0 },
      { x: 1919, y: 1079 },
      { x: 1920, y: 0 },
      { x: 1920, y: 1023 },
      { x: 3199, y: 1023 },
    ]) {
      expect(onAMonitor(point, SIDE_BY_SIDE), JSON.stringify(point)).toBe(true);
    }
    // Past the screen's right and bottom edges: a monitor's width and height are not its pixels.
    expect(onAMonitor({ x: 3200, y: 0 }, SIDE_BY_SIDE)).toBe(false);
    expect(onAMonitor({ x: 0, y: 1080 }, SIDE_BY_SIDE)).toBe(false);
  });

  it('handles stacked monitors, offsets and negative origins (Windows, macOS)', () => {
    // A laptop under a wider monitor, centred: the corners beside the laptop are on neither.
    const stacked: Rect[] = [
      { x: 0, y: 0, width: 2560, height: 1440 },
      { x: 320, y: 1440, width: 1920, height: 1200 },
    ];
    expect(onAMonitor({ x: 100, y: 1500 }, stacked)).toBe(false);
    expect(onAMonitor({ x: 2300, y: 2000 }, stacked)).toBe(false);
    expect(onAMonitor({ x: 320, y: 1440 }, stacked)).toBe(true);
    expect(onAMonitor({ x: 2239, y: 2639 }, stacked)).toBe(true);
    expect(onAMonitor({ x: 2240, y: 2639 }, stacked)).toBe(false);

    // A monitor left of the primary one, placed lower.
    const negative: Rect[] = [
      { x: 0, y: 0, width: 1920, height: 1080 },
      { x: -1280, y: 200, width: 1280, height: 1024 },
    ];
    expect(onAMonitor({ x: -1280, y: 200 }, negative)).toBe(true);
    expect(onAMonitor({ x: -1, y: 1223 }, negative)).toBe(true);
    expect(onAMonitor({ x: -1, y: 199 }, negative)).toBe(false);
    expect(onAMonitor({ x: -640, y: 100 }, negative)).toBe(false);
  });

  it('puts every point on none when no monitor is known', () => {
    expect(onAMonitor({ x: 0, y: 0 }, [])).toBe(false);
  });

  it('says where the point was, on the screen when that differs, and which monitors there are', () => {
    expect(offMonitorsMessage({ x: 2000, y: 1050 }, { x: 2000, y: 1050 }, SIDE_BY_SIDE)).toBe(
      '(2000, 1050) is on no monitor: no monitor shows that part of the screen ' +
        '(monitors: 1920x1080 at (0, 0), 1280x1024 at (1920, 0)); nothing was done',
    );
    expect(offMonitorsMessage({ x: 1000, y: 525 }, { x: 2000, y: 1050 }, SIDE_BY_SIDE)).toMatch(
      /^\(1000, 525\) \(screen point \(2000, 1050\)\) is on no monitor:/,
    );
  });
});

/** A GetMonitors reply as the X server sends it: a 32-byte header, then each monitor and its outputs. */
function monitorsReply(monitors: Array<Rect & { outputs: number }>): Buffer {
  const infos = monitors.map((m) => {
    const info = Buffer.alloc(24 + 4 * m.outputs);
    info.writeUInt32LE(0x1234, 0); // name atom
    info.writeUInt16LE(m.outputs, 6);
    info.writeInt16LE(m.x, 8);
    info.writeInt16LE(m.y, 10);
    info.writeUInt16LE(m.width, 12);
    info.writeUInt16LE(m.height, 14);
    for (let i = 0; i < m.outputs; i++) info.writeUInt32LE(0x40 + i, 24 + 4 * i);
    return info;
  });
  const header = Buffer.alloc(32);
  header.writeUInt8(1, 0);
  const body = Buffer.concat(infos);
  header.writeUInt32LE(body.length / 4, 4);
  header.writeUInt32LE(monitors.length, 12);
  header.writeUInt32LE(monitors.reduce((sum, m) => sum + m.outputs, 0), 16);
  return Buffer.concat([header, body]);
}

describe('RandR monitors reply', () => {
  it('reads each monitor\'s bounds, stepping over its outputs', () => {
    const reply = monitorsReply([
      { x: 0, y: 0, width: 1920, height: 1080, outputs: 2 },
      { x: -1280, y: 200, width: 1280, height: 1024, outputs: 0 },
      { x: 1920, y: 0, width: 1280, height: 1024, outputs: 1 },
    ]);
    expect(parseMonitorsReply(reply)).toEqual([
      { x: 0, y: 0, width: 1920, height: 1080 },
      { x: -1280, y: 200, width: 1280, height: 1024 },
      { x: 1920, y: 0, width: 1280, height: 1024 },
    ]);
  });

  it('refuses a reply that ends inside a monitor', () => {
    const reply = monitorsReply([{ x: 0, y: 0, width: 1920, height: 1080, outputs: 1 }]);
    reply.writeUInt32LE(2, 12); // claims a second monitor it does not hold
    expect(() => parseMonitorsReply(reply)).toThrow(/ends inside monitor 2 of 2/);
  });
});
