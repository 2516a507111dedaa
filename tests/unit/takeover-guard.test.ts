import { describe, expect, it } from 'vitest';
import { pointerFromResult, TakeoverGuard } from '../../src-main/commands/takeover';

describe('TakeoverGuard', () => {
  it('says nothing before the agent has acted, or when the pointer is unknown', () => {
    const guard = new TakeoverGuard();
    expect(guard.check({ x: 500, y: 500 })).toMatchObject({ takenOver: false, expected: null });
    guard.agentLeftPointerAt({ x: 10, y: 10 });
    expect(guard.check(null)).toMatchObject({ takenOver: false, distance: 0 });
  });

  it('accepts the pointer where the agent left it, within the tolerance', () => {
    const guard = new TakeoverGuard({ tolerancePx: 4 });
    guard.agentLeftPointerAt({ x: 100, y: 200 });
    expect(guard.check({ x: 100, y: 200 }).takenOver).toBe(false);
    expect(guard.check({ x: 103, y: 202 }).takenOver).toBe(false);
    expect(guard.check({ x: 96, y: 200 }).takenOver).toBe(false);
    expect(guard.paused).toBe(false);
  });

  it('sees the user moving the pointer away, and says so', () => {
    const guard = new TakeoverGuard();
    guard.agentLeftPointerAt({ x: 100, y: 200 });
    const seen = guard.check({ x: 140, y: 230 });
    expect(seen).toMatchObject({ takenOver: true, expected: { x: 100, y: 200 }, actual: { x: 140, y: 230 }, distance: 50 });
    expect(seen.message).toMatch(/moved from \(100, 200\).*to \(140, 230\).*paused/);
    expect(guard.paused).toBe(true);
  });

  it('stays paused until resumed, even if the pointer comes back', () => {
    const guard = new TakeoverGuard();
    guard.agentLeftPointerAt({ x: 0, y: 0 });
    expect(guard.check({ x: 50, y: 0 }).takenOver).toBe(true);
    expect(guard.check({ x: 0, y: 0 }).takenOver).toBe(true);
    // Agent actions while paused do not move the reference point.
    guard.agentLeftPointerAt({ x: 7, y: 7 });
    expect(guard.lastAgentPointer).toEqual({ x: 0, y: 0 });

    guard.resume({ x: 300, y: 300 });
    expect(guard.paused).toBe(false);
    expect(guard.check({ x: 301, y: 300 }).takenOver).toBe(false);
    expect(guard.check({ x: 0, y: 0 }).takenOver).toBe(true);
  });

  it('after resume without a point, waits for the next agent action', () => {
    const guard = new TakeoverGuard();
    guard.agentLeftPointerAt({ x: 0, y: 0 });
    guard.check({ x: 99, y: 99 });
    guard.resume();
    expect(guard.check({ x: 500, y: 500 }).takenOver).toBe(false);
    guard.agentLeftPointerAt({ x: 20, y: 20 });
    expect(guard.check({ x: 20, y: 20 }).takenOver).toBe(false);
  });

  it('follows the agent from action to action', () => {
    const guard = new TakeoverGuard({ tolerancePx: 0 });
    for (const p of [
      { x: 1, y: 1 },
      { x: 640, y: 400 },
      { x: 1279, y: 799 },
    ]) {
      guard.agentLeftPointerAt(p);
      expect(guard.check(p).takenOver).toBe(false);
    }
    expect(guard.check({ x: 1278, y: 799 }).takenOver).toBe(true);
  });

  it('rejects a negative tolerance', () => {
    expect(() => new TakeoverGuard({ tolerancePx: -1 })).toThrow(/tolerancePx/);
  });
});

describe('pointerFromResult', () => {
  it('reads the pointer of a device tool result', () => {
    expect(pointerFromResult({ method: 'xdotool', pointer: { screen: { x: 3, y: 4 }, image: null } })).toEqual({ x: 3, y: 4 });
    expect(pointerFromResult({ pointer: { screen: { x: 3, y: 4 }, image: { x: 1, y: 2 } } })).toEqual({ x: 3, y: 4 });
  });

  it('gives null for results without one', () => {
    expect(pointerFromResult(undefined)).toBeNull();
    expect(pointerFromResult({})).toBeNull();
    expect(pointerFromResult({ pointer: { screen: { x: 'a' } } })).toBeNull();
    expect(pointerFromResult('text')).toBeNull();
  });
});
