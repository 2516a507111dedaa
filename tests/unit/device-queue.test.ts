import { describe, expect, it } from 'vitest';
import { abortableSleep } from '../../src-main/device/abort';
import { SerialQueue, ToolTimeoutError } from '../../src-main/device/queue';

/** The device client's action queue: one action at a time, and cancel or timeout reaches the action. */
describe('SerialQueue', () => {
  it('runs tasks one after another, never side by side', async () => {
    const queue = new SerialQueue();
    const log: string[] = [];
    const task = (name: string) => async (signal: AbortSignal) => {
      log.push(`${name} start`);
      await abortableSleep(20, signal);
      log.push(`${name} end`);
      return name;
    };
    const results = await Promise.all(['a', 'b', 'c'].map((name) => queue.run(task(name), { timeoutMs: 1_000, label: name })));
    expect(results).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['a start', 'a end', 'b start', 'b end', 'c start', 'c end']);
  });

  it('never starts a task cancelled while it waited, and the queue goes on', async () => {
    const queue = new SerialQueue();
    let ran = false;
    const first = queue.run((signal) => abortableSleep(50, signal), { timeoutMs: 1_000, label: 'wait' });
    const cancel = new AbortController();
    const second = queue.run(
      async () => {
        ran = true;
      },
      { timeoutMs: 1_000, label: 'type_text', signal: cancel.signal },
    );
    cancel.abort();
    await first;
    await expect(second).rejects.toThrow(/cancelled before it ran/);
    expect(ran).toBe(false);
    await expect(queue.run(async () => 'next', { timeoutMs: 1_000, label: 'next' })).resolves.toBe('next');
  });

  it('aborts a timed-out task and holds the next one until that task has stopped', async () => {
    const queue = new SerialQueue();
    const log: string[] = [];
    const slow = queue.run(
      async (signal) => {
        log.push('slow start');
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => setTimeout(resolve, 60), { once: true }));
        log.push('slow stopped');
      },
      { timeoutMs: 30, label: 'drag' },
    );
    const next = queue.run(
      async () => {
        log.push('next');
      },
      { timeoutMs: 1_000, label: 'click' },
    );
    await expect(slow).rejects.toBeInstanceOf(ToolTimeoutError);
    await expect(slow).rejects.toThrow('drag timed out after 30 ms');
    await next;
    expect(log).toEqual(['slow start', 'slow stopped', 'next']);
  });

  it('passes a cancel during the task to the task as an abort', async () => {
    const queue = new SerialQueue();
    const cancel = new AbortController();
    const running = queue.run((signal) => abortableSleep(10_000, signal), { timeoutMs: 20_000, label: 'wait', signal: cancel.signal });
    setTimeout(() => cancel.abort(), 20);
    await expect(running).rejects.toThrow(/cancelled while it ran/);
  });
});
