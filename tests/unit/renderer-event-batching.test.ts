// The store applies a lone host event before the browser's next frame (in a microtask), and the events
// of a burst that follows within 16 ms together, in one state change.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SessionView, StepView, type HostEvent } from '../../src-main/protocol';
import type { Bridge } from '../../src-renderer/src/bridge/types';
import { createDeskhandStore } from '../../src-renderer/src/store/store';

const SESSION = 's1';

function stepEvent(index: number): HostEvent {
  const step = StepView.parse({
    id: `step-${index}`,
    sessionId: SESSION,
    index,
    agent: 'AppAgent',
    status: 'CONTINUE',
    observation: '',
    thought: `step ${index}`,
    action: null,
    actionText: 'wait',
    result: null,
    error: null,
    screenshot: null,
    startedAt: index,
    durationMs: 1,
    tokens: { prompt: 1, completion: 1 },
  });
  return { kind: 'step.added', step };
}

function fakeBridge(): { bridge: Bridge; emit(event: HostEvent): void } {
  let listener: (event: HostEvent) => void = () => undefined;
  const bridge: Bridge = {
    send: () => Promise.reject(new Error('not used')),
    onEvent: (next) => {
      listener = next;
      return () => undefined;
    },
    onConnection: () => () => undefined,
    onError: () => () => undefined,
    screenshot: () => ({ url: Promise.resolve(''), release: () => undefined }),
  };
  return { bridge, emit: (event) => listener(event) };
}

describe('host event batching', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
  afterEach(() => vi.useRealTimers());

  it('applies a lone event in a microtask, and a burst after it together once 16 ms have passed', async () => {
    const { bridge, emit } = fakeBridge();
    const store = createDeskhandStore(bridge);
    const session = SessionView.parse({
      id: SESSION,
      title: 'run',
      request: 'run',
      mode: 'desktop',
      status: 'running',
      createdAt: 1,
      updatedAt: 1,
      stepCount: 0,
      result: null,
    });
    store.setState({ currentSessionId: SESSION, sessions: [session], steps: [] });
    let changes = 0;
    store.subscribe(() => changes++);

    emit(stepEvent(0));
    expect(store.getState().steps).toHaveLength(0); // not synchronously inside the socket's handler
    await Promise.resolve();
    expect(store.getState().steps).toHaveLength(1); // but before any timer (or frame) runs
    expect(changes).toBe(1);

    emit(stepEvent(1));
    emit(stepEvent(2));
    emit(stepEvent(3));
    await Promise.resolve();
    expect(store.getState().steps).toHaveLength(1); // within 16 ms of the last change: they wait
    await vi.advanceTimersByTimeAsync(16);
    expect(store.getState().steps.map((step) => step.index)).toEqual([0, 1, 2, 3]);
    expect(changes).toBe(2); // the three arrived in one state change

    await vi.advanceTimersByTimeAsync(100);
    emit(stepEvent(4));
    await Promise.resolve();
    expect(store.getState().steps).toHaveLength(5); // quiet again: at once
  });
});
