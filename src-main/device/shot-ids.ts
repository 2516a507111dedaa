/**
 * Names for screenshots, so an action can say which one its coordinates are pixels of. A counter alone
 * starts again in a restarted device client, and its first screenshot would pass for the one the model
 * saw before the restart: each process adds a random prefix of its own.
 */
import { randomBytes } from 'node:crypto';
import { LOOK_AGAIN } from './screen-change';

export class ShotIds {
  private count = 0;

  constructor(readonly prefix: string = randomBytes(6).toString('hex')) {}

  next(): string {
    return `${this.prefix}-${++this.count}`;
  }

  /** Whether this process named the screenshot `id`. */
  named(id: string): boolean {
    return id.startsWith(`${this.prefix}-`);
  }
}

/**
 * Why an action naming screenshot `expected` must not map its points through `last` (the id of this
 * process's last screenshot, null before its first), in words for the agent; null when it may.
 */
export function otherScreenshot(ids: ShotIds, expected: string, last: string | null): string | null {
  if (expected === last) return null;
  if (!ids.named(expected)) return 'the device client was restarted since that screenshot, so it no longer knows what the screenshot showed';
  return 'another screenshot was taken since that one, and the device maps coordinates through the last';
}

/** The refusal the agent reads: why, and to look again before acting. */
export function otherScreenshotMessage(tool: string, why: string): string {
  return `${tool} not run: ${why}. ${LOOK_AGAIN}`;
}
