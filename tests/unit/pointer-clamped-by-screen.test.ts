import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { Command } from '../../src-main/commands/command';
import type { DeviceConnection } from '../../src-main/commands/device-connection';
import { Dispatcher, FRESH_POINTER_MS } from '../../src-main/commands/dispatcher';
import { screenSizeFromResult, TakeoverGuard } from '../../src-main/commands/takeover';
import { clampToScreen, pointerMoved, ScreenshotMeta } from '../../src-main/device/contract';

/**
 * A screen that shrinks under the pointer (xrandr, a new monitor resolution) has the X server move the
 * pointer to the nearest point inside it. The agent left the pointer at (1270, 790) on a 1280x800
 * screen; on 1024x700 the X server puts it at (1023, 699). Nobody took the mouse.
 */
const LEFT_AT = { x: 1270, y: 790 };
const SMALLER = { width: 1024, height: 700 };
const CLAMPED = { x: 1023, y: 699 };

describe('clampToScreen', () => {
  it('leaves a point on the screen where it is', () => {
    expect(clampToScreen({ x: 100, y: 200 }, SMALLER)).toEqual({ x: 100, y: 200 });
    expect(clampToScreen({ x: 1023, y: 699 }, SMALLER)).toEqual({ x: 1023, y: 699 });
  });

  it('moves a point off the screen to its last column and row', () => {
    expect(clampToScreen(LEFT_AT, SMALLER)).toEqual(CLAMPED);
    expect(clampToScreen({ x: 1100, y: 300 }, SMALLER)).toEqual({ x: 1023, y: 300 });
    expect(clampToScreen({ x: 300, y: 700 }, SMALLER)).toEqual({ x: 300, y: 699 });
  });
});

describe('pointerMoved with the screen size', () => {
  const expected = { ...LEFT_AT, tolerance: 4 };

  it('does not count a pointer the shrinking screen moved', () => {
    expect(pointerMoved(expected, CLAMPED)).toBe(true);
    expect(pointerMoved(expected, CLAMPED, SMALLER)).toBe(false);
    expect(pointerMoved(expected, { x: 1020, y: 697 }, SMALLER)).toBe(false);
  });

  it('counts a pointer anywhere else', () => {
    expect(pointerMoved(expected, { x: 300, y: 200 }, SMALLER)).toBe(true);
    expect(pointerMoved(expected, { x: 1023, y: 650 }, SMALLER)).toBe(true);
    // The screen did not shrink past the point: the point is still where the pointer must be.
    expect(pointerMoved(expected, CLAMPED, { width: 1280, height: 800 })).toBe(true);
    expect(pointerMoved(expected, LEFT_AT, { width: 1280, height: 800 })).toBe(false);
  });
});

describe('TakeoverGuard.check with the screen size', () => {
  it('takes the pointer where the screen put it for the agent\'s, and follows it there', () => {
    const guard = new TakeoverGuard();
    guard.agentLeftPointerAt(LEFT_AT);
    expect(guard.check(CLAMPED, SMALLER)).toMatchObject({ takenOver: false, expected: CLAMPED, actual: CLAMPED, distance: 0 });
    expect(guard.paused).toBe(false);
    expect(guard.lastAgentPointer).toEqual(CLAMPED);
    // Later checks, with or without the size, compare with the point on the screen.
    expect(guard.check(CLAMPED).takenOver).toBe(false);
  });

  it('allows the usual tolerance around that point', () => {
    const guard = new TakeoverGuard({ tolerancePx: 4 });
    guard.agentLeftPointerAt(LEFT_AT);
    expect(guard.check({ x: 1021, y: 698 }, SMALLER).takenOver).toBe(false);
  });

  it('still sees the user taking the mouse when the screen shrank as well', () => {
    const guard = new TakeoverGuard();
    guard.agentLeftPointerAt(LEFT_AT);
    const seen = guard.check({ x: 300, y: 200 }, SMALLER);
    expect(seen).toMatchObject({ takenOver: true, expected: LEFT_AT, actual: { x: 300, y: 200 } });
    expect(seen.message).toMatch(/moved from \(1270, 790\), where the agent left it, to \(300, 200\)/);
    expect(guard.paused).toBe(true);
    expect(guard.lastAgentPointer).toEqual(LEFT_AT);
  });

  it('without the size (or with one the point is on) is the plain check', () => {
    const withoutSize = new TakeoverGuard();
    withoutSize.agentLeftPointerAt(LEFT_AT);
    expect(withoutSize.check(CLAMPED).takenOver).toBe(true);
    const sameScreen = new TakeoverGuard();
    sameScreen.agentLeftPointerAt(LEFT_AT);
    expect(sameScreen.check(CLAMPED, { width: 1280, height: 800 }).takenOver).toBe(true);
  });
});

describe('the screen size in results', () => {
  it('is read from structuredContent.screenSize, and nothing else', () => {
    expect(screenSizeFromResult({ screenSize: SMALLER, pointer: { screen: CLAMPED, image: null } })).toEqual(SMALLER);
    expect(screenSizeFromResult({ pointer: { screen: CLAMPED, image: null } })).toBeNull();
    expect(screenSizeFromResult({ screenSize: { width: 0, height: 700 } })).toBeNull();
    expect(screenSizeFromResult(undefined)).toBeNull();
  });

  it('is part of a screenshot\'s geometry, and optional there', () => {
    const meta = { width: 1024, height: 700, mimeType: 'image/png', region: { x: 0, y: 0, ...SMALLER }, captureMs: 1, encodeMs: 1 };
    expect(ScreenshotMeta.parse({ ...meta, screenSize: SMALLER }).screenSize).toEqual(SMALLER);
    expect(ScreenshotMeta.parse(meta).screenSize).toBeUndefined();
  });
});

describe('Dispatcher: the host\'s takeover check after the screen shrank under the pointer', () => {
  const pointerAt = (point: { x: number; y: number }) => ({ pointer: { screen: point, image: null } });
  const screenshotResult = (structured: Record<string, unknown>): CallToolResult => ({
    content: [{ type: 'image', data: Buffer.from('png').toString('base64'), mimeType: 'image/png' }],
    structuredContent: { width: 400, height: 300, mimeType: 'image/png', region: { x: 0, y: 0, width: 400, height: 300 }, captureMs: 1, encodeMs: 1, ...structured },
  });

  /** A device whose pointer the agent leaves at LEFT_AT with a move; `answers` gives the later results, by tool. */
  function dispatcherAfterMove(answers: Record<string, CallToolResult>): Dispatcher {
    const device = {
      callTool: async (name: string) => {
        if (name === 'move') return { content: [{ type: 'text', text: 'moved' }], structuredContent: pointerAt(LEFT_AT) };
        const answer = answers[name];
        if (!answer) throw new Error(`unexpected ${name}`);
        return answer;
      },
      restart: async () => undefined,
    } as unknown as DeviceConnection;
    return new Dispatcher(device);
  }
  const command = (toolName: string, parameters: Record<string, unknown>): Command => ({ toolName, parameters, toolType: 'action', callId: toolName });

  async function agentLeftPointer(dispatcher: Dispatcher): Promise<void> {
    expect((await dispatcher.run(command('move', LEFT_AT))).error).toBeNull();
    expect(dispatcher.takeover.lastAgentPointer).toEqual(LEFT_AT);
  }

  it('is no takeover on the next step\'s screenshot, which says the screen\'s size', async () => {
    const dispatcher = dispatcherAfterMove({ screenshot: screenshotResult({ screenSize: SMALLER, ...pointerAt(CLAMPED) }) });
    await agentLeftPointer(dispatcher);
    await dispatcher.screenshot();
    expect(dispatcher.takeover.paused).toBe(false);
    expect(dispatcher.takeover.lastAgentPointer).toEqual(CLAMPED);
  });

  it('is no takeover when the step begins, the pointer tool saying the screen\'s size', async () => {
    const dispatcher = dispatcherAfterMove({ pointer: { content: [{ type: 'text', text: '{}' }], structuredContent: { screenSize: SMALLER, ...pointerAt(CLAMPED) } } });
    await agentLeftPointer(dispatcher);
    // Not fresh: the move's report is older than FRESH_POINTER_MS, so the device is asked.
    await new Promise((done) => setTimeout(done, FRESH_POINTER_MS + 50));
    expect((await dispatcher.checkTakeover()).takenOver).toBe(false);
    expect(dispatcher.takeover.lastAgentPointer).toEqual(CLAMPED);
  });

  it('is no takeover after an action that leaves the pointer alone, whose check read the screen\'s size', async () => {
    const dispatcher = dispatcherAfterMove({ wait: { content: [{ type: 'text', text: 'waited 0 s' }], structuredContent: { screenSize: SMALLER, ...pointerAt(CLAMPED) } } });
    await agentLeftPointer(dispatcher);
    expect(await dispatcher.run(command('wait', { seconds: 0 }))).toMatchObject({ status: 'success', error: null });
    expect(dispatcher.takeover.paused).toBe(false);
    expect(dispatcher.takeover.lastAgentPointer).toEqual(CLAMPED);
  });

  it('is a takeover when the pointer is anywhere else, the screen\'s size notwithstanding', async () => {
    const dispatcher = dispatcherAfterMove({ screenshot: screenshotResult({ screenSize: SMALLER, ...pointerAt({ x: 300, y: 200 }) }) });
    await agentLeftPointer(dispatcher);
    await dispatcher.screenshot();
    expect(dispatcher.takeover.paused).toBe(true);
    expect((await dispatcher.checkTakeover()).message).toMatch(/moved from \(1270, 790\).*to \(300, 200\).*you have taken the mouse/);
  });
});
