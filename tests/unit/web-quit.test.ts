import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CLOSE_TIMEOUT_MS, quitOnSignal } from '../../src-main/web/quit';

/** Closing the server and the host, settled by the test: a misbehaving MCP server can hold it for ever. */
function quitting() {
  let finish: (error?: Error) => void = () => undefined;
  const closed = new Promise<void>((resolve, reject) => (finish = (error) => (error ? reject(error) : resolve())));
  const exits: number[] = [];
  const logs: string[] = [];
  const quit = quitOnSignal({ close: () => closed, exit: (code) => exits.push(code), log: (message) => logs.push(message) });
  return { quit, exits, logs, finish };
}

describe('quitting browser mode (Ctrl+C)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('exits 0 once everything closed', async () => {
    const { quit, exits, finish } = quitting();
    quit('SIGINT');
    expect(exits).toEqual([]);
    finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(exits).toEqual([0]);
  });

  it('offers Ctrl+C to quit at once only when Ctrl+C asked to close', () => {
    const byKeyboard = quitting();
    byKeyboard.quit('SIGINT');
    expect(byKeyboard.logs).toEqual(['[deskhand] closing (Ctrl+C again quits at once)']);
    const byTerminal = quitting();
    byTerminal.quit('SIGHUP');
    expect(byTerminal.logs).toEqual(['[deskhand] closing (SIGHUP)']);
  });

  it('exits 1 with the reason when closing fails', async () => {
    const { quit, exits, logs, finish } = quitting();
    quit('SIGTERM');
    finish(new Error('database is locked'));
    await vi.advanceTimersByTimeAsync(0);
    expect(exits).toEqual([1]);
    expect(logs.at(-1)).toBe('[deskhand] closing failed: database is locked');
  });

  it('quits at once with 130 on a second Ctrl+C while closing waits', async () => {
    const { quit, exits, logs } = quitting();
    quit('SIGINT');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(exits).toEqual([]);
    quit('SIGINT');
    expect(exits).toEqual([130]);
    expect(logs.at(-1)).toMatch(/quitting without waiting/);
    // Nothing exits a second time, whatever happens to the close still under way.
    await vi.advanceTimersByTimeAsync(CLOSE_TIMEOUT_MS);
    expect(exits).toEqual([130]);
  });

  it('gives closing a time limit (10 s), then exits anyway and says so', async () => {
    expect(CLOSE_TIMEOUT_MS).toBe(10_000);
    const { quit, exits, logs, finish } = quitting();
    quit('SIGINT');
    await vi.advanceTimersByTimeAsync(CLOSE_TIMEOUT_MS - 1);
    expect(exits).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(exits).toEqual([1]);
    expect(logs.at(-1)).toBe(`[deskhand] closing took longer than ${CLOSE_TIMEOUT_MS / 1000} s: quitting anyway`);
    finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(exits).toEqual([1]);
  });
});
