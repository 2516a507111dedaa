import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WhenIdle } from '../../src-main/device/when-idle';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('WhenIdle', () => {
  it('starts the work once no call has run for the quiet time, and tells it when a call comes', async () => {
    const busy: Array<() => boolean> = [];
    const idle = new WhenIdle(150, async (isBusy) => void busy.push(isBusy), () => undefined);
    idle.callStarted();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(busy).toHaveLength(0);
    idle.callEnded();
    await vi.advanceTimersByTimeAsync(149);
    expect(busy).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(busy).toHaveLength(1);
    expect(busy[0]?.()).toBe(false);
    idle.callStarted();
    expect(busy[0]?.()).toBe(true);
  });

  it('waits again after each call, and never while calls overlap', async () => {
    const busy: Array<() => boolean> = [];
    const work = vi.fn(async (isBusy: () => boolean) => void busy.push(isBusy));
    const idle = new WhenIdle(150, work, () => undefined);
    idle.callStarted();
    idle.callEnded();
    await vi.advanceTimersByTimeAsync(100);
    idle.callStarted();
    idle.callStarted();
    idle.callEnded();
    await vi.advanceTimersByTimeAsync(500);
    expect(work).not.toHaveBeenCalled();
    idle.callEnded();
    await vi.advanceTimersByTimeAsync(150);
    expect(work).toHaveBeenCalledTimes(1);
    // An extra end does not make the count negative: the next call still counts as one under way.
    idle.callEnded();
    idle.callStarted();
    expect(busy[0]?.()).toBe(true);
    await vi.advanceTimersByTimeAsync(500);
    expect(work).toHaveBeenCalledTimes(1);
  });

  it('reports work that fails instead of dropping it', async () => {
    const errors: unknown[] = [];
    const idle = new WhenIdle(10, () => Promise.reject(new Error('zlib broke')), (error) => errors.push(error));
    idle.callStarted();
    idle.callEnded();
    await vi.advanceTimersByTimeAsync(10);
    expect(errors).toEqual([new Error('zlib broke')]);
  });
});
