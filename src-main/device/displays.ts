import type { DisplayInfo } from './contract';
import { containsPoint, type Point, type Rect } from './coords';
import { hasCommand, runFile } from './exec';

/**
 * The monitors of this desktop, in logical screen coordinates, for `screenshot {display}` and
 * list_displays. On X11 they come from RandR (`xrandr --listactivemonitors`, which also lists monitors
 * defined with `xrandr --setmonitor`); without xrandr, or on other platforms for now, the whole screen
 * is display 0. X11 puts every monitor at non-negative coordinates of one root window; Windows and
 * macOS may place one at negative ones, which the coordinate module (coords.ts) handles.
 */

/** Parses `xrandr --listactivemonitors`: ` 0: +*eDP-1 1920/344x1080/194+0+0  eDP-1`. */
export function parseMonitors(output: string): DisplayInfo[] {
  const displays: DisplayInfo[] = [];
  for (const line of output.split('\n')) {
    const match = /^\s*(\d+):\s+([+*]*)(\S+)\s+(\d+)(?:\/\d+)?x(\d+)(?:\/\d+)?(?:\+|(?=-))(-?\d+)(?:\+|(?=-))(-?\d+)/.exec(line);
    if (!match) continue;
    const [, index, flags = '', name = '', width, height, x, y] = match;
    displays.push({
      index: Number(index),
      name,
      primary: flags.includes('*'),
      bounds: { x: Number(x), y: Number(y), width: Number(width), height: Number(height) },
    });
  }
  displays.sort((a, b) => a.index - b.index);
  // A setup without a primary monitor still has one the user thinks of first.
  if (displays.length > 0 && !displays.some((d) => d.primary)) {
    const first = displays[0] as DisplayInfo;
    displays[0] = { ...first, primary: true };
  }
  return displays;
}

export class DisplayNotFoundError extends Error {
  override name = 'DisplayNotFoundError';
}

/**
 * The monitors, display 0 first. `screenSize` gives the fallback single display when none can be
 * enumerated.
 */
export async function listDisplays(screenSize: () => Promise<{ width: number; height: number }>): Promise<DisplayInfo[]> {
  if (process.platform === 'linux' && process.env.DISPLAY && (await hasCommand('xrandr'))) {
    try {
      const displays = parseMonitors(await runFile('xrandr', ['--listactivemonitors'], { timeoutMs: 5_000 }));
      if (displays.length > 0) return displays;
    } catch {
      // An X server without RandR: fall through to the whole screen.
    }
  }
  const size = await screenSize();
  return [{ index: 0, name: 'screen', primary: true, bounds: { x: 0, y: 0, ...size } }];
}

export function pickDisplay(displays: readonly DisplayInfo[], index: number): DisplayInfo {
  const display = displays.find((d) => d.index === index);
  if (!display) {
    const known = displays.map((d) => `${d.index} (${d.name}, ${d.bounds.width}x${d.bounds.height})`).join(', ');
    throw new DisplayNotFoundError(`there is no display ${index}; displays: ${known}`);
  }
  return display;
}

/**
 * Whether a monitor shows `point` (logical screen coordinates). Monitors of different sizes leave parts
 * of the screen's rectangle, which a whole-screen screenshot covers, on none of them.
 */
export function onAMonitor(point: Point, monitors: readonly Rect[]): boolean {
  return monitors.some((monitor) => containsPoint(monitor, point));
}

/** Why an action at `given` (pixels of the last screenshot), which is `screen` on the screen, is refused. */
export function offMonitorsMessage(given: Point, screen: Point, monitors: readonly Rect[]): string {
  const mapped = given.x === screen.x && given.y === screen.y ? '' : ` (screen point (${screen.x}, ${screen.y}))`;
  const list = monitors.map((m) => `${m.width}x${m.height} at (${m.x}, ${m.y})`).join(', ');
  return `(${given.x}, ${given.y})${mapped} is on no monitor: no monitor shows that part of the screen (monitors: ${list}); nothing was done`;
}
