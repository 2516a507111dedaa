import { describe, expect, it } from 'vitest';
import { SessionView, StepView, type HostEvent, type SessionViewInput, type StepViewInput } from '../../src-main/protocol';
import {
  applyHostEvent,
  applySessionDetail,
  applyStartedSession,
  initialState,
  insertStep,
  type DeskhandState,
} from '../../src-renderer/src/store/state';

function session(id: string, overrides: Partial<SessionViewInput> = {}): SessionView {
  return SessionView.parse({
    id,
    title: `Session ${id}`,
    request: 'do something',
    mode: 'desktop',
    status: 'running',
    createdAt: 1_000,
    updatedAt: 1_000,
    stepCount: 0,
    result: null,
    ...overrides,
  });
}

function step(sessionId: string, index: number, overrides: Partial<StepViewInput> = {}): StepView {
  return StepView.parse({
    id: `${sessionId}-step-${index}`,
    sessionId,
    index,
    agent: 'HostAgent',
    status: 'CONTINUE',
    observation: '',
    thought: `thinking ${index}`,
    action: null,
    actionText: 'No action',
    result: null,
    error: null,
    screenshot: null,
    startedAt: 1_000 + index,
    durationMs: 10,
    tokens: { prompt: 1, completion: 1 },
    ...overrides,
  });
}

function showing(sessionView: SessionView): DeskhandState {
  return { ...initialState, sessions: [sessionView], currentSessionId: sessionView.id };
}

const added = (stepView: StepView): HostEvent => ({ kind: 'step.added', step: stepView });

function applyAll(state: DeskhandState, events: HostEvent[]): DeskhandState {
  return events.reduce(applyHostEvent, state);
}

describe('renderer store: step.added', () => {
  it('appends the current session steps in order and counts them', () => {
    const state = applyAll(showing(session('a')), [added(step('a', 0)), added(step('a', 1)), added(step('a', 2))]);
    expect(state.steps.map((s) => s.index)).toEqual([0, 1, 2]);
    expect(state.sessions[0]?.stepCount).toBe(3);
  });

  it('puts a late step in index order', () => {
    const state = applyAll(showing(session('a')), [added(step('a', 0)), added(step('a', 2)), added(step('a', 1))]);
    expect(state.steps.map((s) => s.index)).toEqual([0, 1, 2]);
  });

  it('ignores steps of another session but counts them in the sidebar', () => {
    const before: DeskhandState = { ...showing(session('a')), sessions: [session('a'), session('b')] };
    const state = applyAll(before, [added(step('b', 0)), added(step('b', 1))]);
    expect(state.steps).toEqual([]);
    expect(state.sessions.find((s) => s.id === 'b')?.stepCount).toBe(2);
    expect(state.sessions.find((s) => s.id === 'a')?.stepCount).toBe(0);
  });

  it('ignores a step it already has (same id) and keeps the state object', () => {
    const once = applyHostEvent(showing(session('a')), added(step('a', 0)));
    const twice = applyHostEvent(once, added(step('a', 0, { thought: 'changed' })));
    expect(twice).toBe(once);
    expect(twice.steps).toHaveLength(1);
    expect(twice.steps[0]?.thought).toBe('thinking 0');
  });

  it('ignores steps when no session is on screen', () => {
    const state = applyHostEvent(initialState, added(step('a', 0)));
    expect(state.steps).toEqual([]);
  });
});

describe('renderer store: session events', () => {
  it('session.ended sets the status and the result as the detail', () => {
    const state = applyHostEvent(showing(session('a')), {
      kind: 'session.ended',
      sessionId: 'a',
      status: 'finished',
      result: 'Renamed 3 files',
    });
    expect(state.sessions[0]?.status).toBe('finished');
    expect(state.sessions[0]?.result).toBe('Renamed 3 files');
    expect(state.statusDetail).toBe('Renamed 3 files');
  });

  it('session.ended of another session leaves the detail on screen alone', () => {
    const before: DeskhandState = {
      ...showing(session('a')),
      sessions: [session('a'), session('b')],
      statusDetail: 'Asking the model',
    };
    const state = applyHostEvent(before, { kind: 'session.ended', sessionId: 'b', status: 'failed', result: 'nope' });
    expect(state.statusDetail).toBe('Asking the model');
    expect(state.sessions.find((s) => s.id === 'b')?.status).toBe('failed');
    expect(state.sessions.find((s) => s.id === 'a')?.status).toBe('running');
  });

  it('status.changed updates status and detail of the current session', () => {
    const state = applyHostEvent(showing(session('a')), {
      kind: 'status.changed',
      sessionId: 'a',
      status: 'stopping',
      detail: 'Stopping after this step',
    });
    expect(state.sessions[0]?.status).toBe('stopping');
    expect(state.statusDetail).toBe('Stopping after this step');
  });

  it('session.started adds the session newest first, and adopts it while our start is pending', () => {
    const older = session('old', { createdAt: 1, status: 'finished' });
    const newer = session('new', { createdAt: 2 });
    const watching = applyHostEvent({ ...initialState, sessions: [older] }, { kind: 'session.started', session: newer });
    expect(watching.sessions.map((s) => s.id)).toEqual(['new', 'old']);
    expect(watching.currentSessionId).toBeNull();

    const starting = applyHostEvent(
      { ...initialState, sessions: [older], awaitingStart: true, startTakesScreen: true },
      { kind: 'session.started', session: newer },
    );
    expect(starting.currentSessionId).toBe('new');
    expect(starting).toMatchObject({ awaitingStart: false, startTakesScreen: false });
    expect(applyHostEvent(starting, added(step('new', 0))).steps).toHaveLength(1);
  });

  it('the start reply after an adopting event keeps the steps already received', () => {
    const adopted = applyAll({ ...initialState, awaitingStart: true, startTakesScreen: true }, [
      { kind: 'session.started', session: session('a') },
      added(step('a', 0)),
    ]);
    const replied = applyStartedSession(adopted, session('a'));
    expect(replied.steps).toHaveLength(1);
    expect(replied.currentSessionId).toBe('a');
  });

  it('a start the user left for "New" or another session is listed by its event and its reply, not put on screen', () => {
    const other = session('other', { status: 'finished', createdAt: 1 });
    const left: DeskhandState = { ...initialState, sessions: [other], awaitingStart: true, startTakesScreen: false };
    const onNew = applyHostEvent(left, { kind: 'session.started', session: session('new', { createdAt: 2 }) });
    expect(onNew.sessions.map((listed) => listed.id)).toEqual(['new', 'other']);
    expect(onNew.currentSessionId).toBeNull();
    // Send stays busy until the reply says how the start went.
    expect(onNew.awaitingStart).toBe(true);
    expect(applyStartedSession(onNew, session('new', { createdAt: 2 }))).toMatchObject({ currentSessionId: null, awaitingStart: false, startTakesScreen: false });

    const onOther = applyStartedSession({ ...left, currentSessionId: 'other' }, session('new', { createdAt: 2 }));
    expect(onOther).toMatchObject({ currentSessionId: 'other', awaitingStart: false });
    expect(onOther.sessions.map((listed) => listed.id)).toEqual(['new', 'other']);
  });
});

describe('renderer store: opening a session', () => {
  it('replaces the steps with the stored ones, sorted', () => {
    const before = applyHostEvent(showing(session('a')), added(step('a', 0)));
    const state = applySessionDetail(before, {
      session: session('b', { status: 'finished', result: 'done', stepCount: 2 }),
      rounds: [{ index: 0, request: 'first', status: 'finished', result: 'done' }],
      steps: [step('b', 1), step('b', 0)],
      interactions: [],
      forms: [],
      pause: null,
    });
    expect(state.currentSessionId).toBe('b');
    expect(state.steps.map((s) => s.id)).toEqual(['b-step-0', 'b-step-1']);
    expect(state.statusDetail).toBe('done');
  });

  it('re-opening the same session keeps live steps the snapshot missed, without duplicates', () => {
    const before = applyAll(showing(session('a')), [added(step('a', 0)), added(step('a', 1)), added(step('a', 2))]);
    const state = applySessionDetail(before, { session: session('a'), rounds: [], steps: [step('a', 0), step('a', 1)], interactions: [], forms: [], pause: null });
    expect(state.steps.map((s) => s.index)).toEqual([0, 1, 2]);
  });
});

describe('renderer store: reopening after a reconnect', () => {
  it('a session that ended while disconnected shows its result, not what it was doing', () => {
    const running: DeskhandState = { ...showing(session('a')), statusDetail: 'Asking the model (step 4)' };
    for (const status of ['finished', 'failed', 'stopped'] as const) {
      const reopened = applySessionDetail(running, {
        session: session('a', { status, result: `The run ${status}` }),
        rounds: [],
        steps: [],
        interactions: [],
        forms: [],
        pause: null,
      });
      expect(reopened.statusDetail).toBe(`The run ${status}`);
    }
  });

  it('a session still doing the same keeps its detail; one paused meanwhile does not', () => {
    const running: DeskhandState = { ...showing(session('a')), statusDetail: 'Asking the model (step 4)' };
    const reopen = (status: 'running' | 'paused') =>
      applySessionDetail(running, { session: session('a', { status }), rounds: [], steps: [], interactions: [], forms: [], pause: null });
    expect(reopen('running').statusDetail).toBe('Asking the model (step 4)');
    expect(reopen('paused').statusDetail).toBe('');
  });

  it('a paused run opened in another window (or after a reload) comes with why it is paused', () => {
    const elsewhere: DeskhandState = { ...showing(session('b')), statusDetail: 'Paused by you', statusPause: 'user' };
    const pause = { detail: "The disk that holds Deskhand's data (/data) is full (ENOSPC): step 3 could not be saved.", cause: 'disk' as const };
    const opened = applySessionDetail(elsewhere, { session: session('a', { status: 'paused' }), rounds: [], steps: [], interactions: [], forms: [], pause });
    expect([opened.statusDetail, opened.statusPause]).toEqual([pause.detail, 'disk']);
  });
});

describe('insertStep', () => {
  it('returns the same array for a duplicate', () => {
    const steps = [step('a', 0), step('a', 1)];
    expect(insertStep(steps, step('a', 0))).toBe(steps);
  });
});

describe('renderer store: ending without a result', () => {
  it('clears the detail of what the session was doing', () => {
    const running: DeskhandState = { ...showing(session('a')), statusDetail: 'Asking the model (step 4)' };
    const state = applyHostEvent(running, { kind: 'session.ended', sessionId: 'a', status: 'stopped', result: null });
    expect(state.statusDetail).toBe('');
    expect(state.sessions[0]?.status).toBe('stopped');
  });
});
