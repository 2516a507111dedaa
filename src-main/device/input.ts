import { Button, keyboard, Key, mouse, Point, providerRegistry } from '@nut-tree-fork/nut-js';
import { abortableSleep, CancelledError, throwIfAborted } from './abort';
import type { Point as XY } from './coords';

/**
 * Mouse and keyboard through nut.js, in logical screen coordinates (coords.ts maps model pixels first).
 * nut.js defaults wait 100-300 ms around every event and animate the pointer; the agent gains nothing
 * from that, so all delays are off and the pointer jumps.
 */

let configured = false;

export function configureInput(): void {
  if (configured) return;
  configured = true;
  mouse.config.autoDelayMs = 0;
  mouse.config.mouseSpeed = 100_000;
  keyboard.config.autoDelayMs = 0;
  // The config objects above only govern nut.js's own sleeps; libnut keeps a separate native delay.
  providerRegistry.getMouse().setMouseDelay(0);
  providerRegistry.getKeyboard().setKeyboardDelay(0);
}

/**
 * What is held down right now (a drag's button, a chord's keys), so a device client that exits part way
 * lets go of it first (releaseHeld): the X server keeps fake input pressed after its client has gone,
 * and a button or Ctrl left down would hold the whole desktop.
 */
const heldKeys = new Set<Key>();
let buttonHeld = false;
let exiting = false;

function refuseWhenExiting(): void {
  if (exiting) throw new CancelledError('the device client is exiting');
}

async function pressKey(key: Key): Promise<void> {
  refuseWhenExiting();
  heldKeys.add(key);
  await keyboard.pressKey(key);
}

async function releaseKey(key: Key): Promise<void> {
  heldKeys.delete(key);
  await keyboard.releaseKey(key);
}

/** Lets go of everything held down and refuses new presses: for a device client about to exit. */
export async function releaseHeld(): Promise<void> {
  exiting = true;
  if (buttonHeld) {
    buttonHeld = false;
    await mouse.releaseButton(Button.LEFT).catch(() => undefined);
  }
  for (const key of [...heldKeys].reverse()) await releaseKey(key).catch(() => undefined);
}

export type MouseButtonName = 'left' | 'right' | 'middle';

const BUTTONS: Record<MouseButtonName, Button> = {
  left: Button.LEFT,
  right: Button.RIGHT,
  middle: Button.MIDDLE,
};

export async function moveTo(point: XY): Promise<void> {
  configureInput();
  await mouse.setPosition(new Point(point.x, point.y));
}

export async function pointerPosition(): Promise<XY> {
  const p = await mouse.getPosition();
  return { x: p.x, y: p.y };
}

export async function click(point: XY, button: MouseButtonName = 'left', double = false, signal?: AbortSignal): Promise<void> {
  await moveTo(point);
  throwIfAborted(signal);
  if (double) await mouse.doubleClick(BUTTONS[button]);
  else await mouse.click(BUTTONS[button]);
}

/**
 * Press at `from`, move in small steps, release at `to`. Intermediate motion events matter: many
 * toolkits only start a drag after the pointer moved a few pixels with the button held. A drag
 * cancelled on the way goes back to `from` before it lets go: dropping where it happened to be could
 * move something to a place nobody chose, dropping on its own origin does nothing in most toolkits.
 */
export async function drag(from: XY, to: XY, signal?: AbortSignal): Promise<void> {
  await moveTo(from);
  throwIfAborted(signal);
  refuseWhenExiting();
  buttonHeld = true;
  await mouse.pressButton(Button.LEFT);
  try {
    const steps = Math.max(4, Math.min(30, Math.round(Math.hypot(to.x - from.x, to.y - from.y) / 20)));
    for (let i = 1; i <= steps; i++) {
      await abortableSleep(8, signal);
      await moveTo({
        x: Math.round(from.x + ((to.x - from.x) * i) / steps),
        y: Math.round(from.y + ((to.y - from.y) * i) / steps),
      });
    }
    await abortableSleep(20, signal);
  } catch (error) {
    if (signal?.aborted) await moveTo(from);
    throw error;
  } finally {
    buttonHeld = false;
    await mouse.releaseButton(Button.LEFT);
  }
}

export type ScrollDirectionName = 'up' | 'down' | 'left' | 'right';

/**
 * libnut's X11 backend sends button 6 (X11: scroll left) for a positive horizontal amount, so nut.js's
 * scrollRight scrolls left there; measured in Chromium under Xvfb (wheel deltaX < 0 after scrollRight).
 */
const HORIZONTAL_SWAPPED = process.platform === 'linux';

const SCROLLERS: Record<ScrollDirectionName, (notches: number) => Promise<unknown>> = {
  up: (n) => mouse.scrollUp(n),
  down: (n) => mouse.scrollDown(n),
  left: (n) => mouse.scrollLeft(n),
  right: (n) => mouse.scrollRight(n),
};

/** Scrolls one notch at a time, so a cancel stops it between notches. */
export async function scroll(point: XY, direction: ScrollDirectionName, amount: number, signal?: AbortSignal): Promise<void> {
  await moveTo(point);
  if (HORIZONTAL_SWAPPED && (direction === 'left' || direction === 'right')) {
    direction = direction === 'left' ? 'right' : 'left';
  }
  const notch = SCROLLERS[direction];
  for (let i = 0; i < amount; i++) {
    throwIfAborted(signal);
    await notch(1);
  }
}

/**
 * Presses keys in order and releases them in reverse, so ["ctrl","shift","t"] is a chord. A cancel
 * between two presses releases what is down without pressing the rest.
 */
export async function pressChord(keys: readonly Key[], signal?: AbortSignal): Promise<void> {
  configureInput();
  const pressed: Key[] = [];
  try {
    for (const key of keys) {
      throwIfAborted(signal);
      await pressKey(key);
      pressed.push(key);
    }
  } finally {
    for (const key of pressed.reverse()) await releaseKey(key);
  }
}

export async function tapKey(key: Key, withShift = false): Promise<void> {
  await pressChord(withShift ? [Key.LeftShift, key] : [key]);
}

export async function typeWithNut(text: string): Promise<void> {
  configureInput();
  await keyboard.type(text);
}
