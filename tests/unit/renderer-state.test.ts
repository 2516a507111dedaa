import { describe, expect, it } from 'vitest';
import {
  FormView,
  Interaction,
  SessionView,
  StepView,
  type HostEvent,
  type SessionViewInput,
  type StepViewInput,
} from '../../src-main/protocol';
import {
  applyBlackboard,
  applyContinuedSession,
  applyHostEvent,
  applyHostEvents,
  applySessionDetail,
  applySessionList,
  canPause,
  canResume,
  canStop,
  currentSession,
  initialState,
  listedSessions,
  insertStep,
  insertSteps,
  pendingInteractions,
  requestMode,
  sessionForms,
  stopTarget,
  waitingCount,
  waitingElsewhere,
  type DeskhandState,
} from '../../src-renderer/src/store/state';
import { sameHeaders, stepGroupHeaders } from '../../src-renderer/src/store/trajectory';

function session(id: string, overrides: Partial<SessionViewInput> = {}): SessionView {
  return SessionView.parse({
    id,
    title: `Session ${id}`,
    request: `request of ${id}`,
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
    agent: 'AppAgent',
    status: 'CONTINUE',
    observation: '',
    thought: '',
    action: null,
    actionText: 'No action',
    result: null,
    error: null,
    screenshot: null,
    startedAt: index,
    durationMs: 1,
    tokens: { prompt: 1, completion: 1 },
    ...overrides,
  });
}

const questions = (id: string, sessionId: string): Interaction =>
  Interaction.parse({ kind: 'questions', id, sessionId, agent: 'HostAgent', questions: ['Which folder?'] });

const confirm = (id: string, sessionId: string): Interaction =>
  Interaction.parse({
    kind: 'confirm',
    id,
    sessionId,
    agent: 'ShellAgent',
    actionText: "Run 'rm -rf build'",
    actions: [],
    target: 'Terminal',
    reasons: ['rule: shell command'],
    screenshot: null,
  });

const form = (formId: string, sessionId: string, state: 'open' | 'closed' = 'open', data: Record<string, unknown> = {}): FormView =>
  FormView.parse({ formId, sessionId, agent: 'AppAgent', schema: { type: 'object' }, uischema: null, data, state });

function showing(view: SessionView, extra: Partial<DeskhandState> = {}): DeskhandState {
  return { ...initialState, sessions: [view], currentSessionId: view.id, ...extra };
}

describe('renderer state: interactions', () => {
  it('adds a requested interaction once and removes it when resolved', () => {
    const requested: HostEvent = { kind: 'interaction.requested', interaction: questions('q1', 'a') };
    const once = applyHostEvent(showing(session('a')), requested);
    const twice = applyHostEvent(once, requested);
    expect(twice).toBe(once);
    expect(pendingInteractions(twice).map((i) => i.id)).toEqual(['q1']);
    const resolved = applyHostEvent(twice, { kind: 'interaction.resolved', sessionId: 'a', interactionId: 'q1', outcome: 'answered' });
    expect(resolved.interactions).toEqual([]);
    // Resolving something unknown changes nothing.
    expect(applyHostEvent(resolved, { kind: 'interaction.resolved', sessionId: 'a', interactionId: 'zz', outcome: 'cancelled' })).toBe(resolved);
  });

  it('shows only the interactions of the session on screen, in arrival order', () => {
    const state = applyHostEvents(showing(session('a'), { sessions: [session('a'), session('b')] }), [
      { kind: 'interaction.requested', interaction: confirm('c1', 'a') },
      { kind: 'interaction.requested', interaction: questions('q1', 'b') },
      { kind: 'interaction.requested', interaction: questions('q2', 'a') },
    ]);
    expect(pendingInteractions(state).map((i) => i.id)).toEqual(['c1', 'q2']);
    expect(state.interactions).toHaveLength(3);
  });

  it('drops what an ended session was waiting for', () => {
    const waiting = applyHostEvent(showing(session('a')), { kind: 'interaction.requested', interaction: confirm('c1', 'a') });
    const ended = applyHostEvent(waiting, { kind: 'session.ended', sessionId: 'a', status: 'stopped', result: null });
    expect(ended.interactions).toEqual([]);
  });

  it('takes the waiting interactions and forms from an opened session', () => {
    const stale = { ...showing(session('a')), interactions: [questions('old', 'a'), questions('other', 'b')], forms: [form('f-old', 'a')] };
    const opened = applySessionDetail(stale, {
      session: session('a'),
      rounds: [],
      steps: [],
      interactions: [confirm('c9', 'a')],
      forms: [form('f1', 'a')],
      pause: null,
    });
    expect(opened.interactions.map((i) => i.id).sort()).toEqual(['c9', 'other']);
    expect(sessionForms(opened).map((f) => f.formId)).toEqual(['f1']);
  });
});

describe('renderer state: a session waiting while another is on screen', () => {
  it('lists the other sessions that wait for the user, with their titles and counts', () => {
    const state = applyHostEvents(showing(session('a'), { sessions: [session('a'), session('b', { title: 'Rename the PDFs' })] }), [
      { kind: 'interaction.requested', interaction: confirm('c1', 'b') },
      { kind: 'interaction.requested', interaction: questions('q1', 'a') },
      { kind: 'interaction.requested', interaction: questions('q2', 'b') },
      { kind: 'interaction.requested', interaction: questions('q3', 'unknown') },
    ]);
    expect(waitingElsewhere(state)).toEqual([
      { sessionId: 'b', title: 'Rename the PDFs', count: 2 },
      { sessionId: 'unknown', title: null, count: 1 },
    ]);
    // On "New" (no session on screen) every waiting session counts.
    expect(waitingElsewhere({ ...state, currentSessionId: null }).map((waiting) => waiting.sessionId)).toEqual(['b', 'a', 'unknown']);
    expect(waitingElsewhere({ ...state, currentSessionId: 'b' }).map((waiting) => waiting.sessionId)).toEqual(['a', 'unknown']);
  });

  it('lists another session whose agent waits on its form alone (no question or approval to count)', () => {
    const state = showing(session('a'), {
      sessions: [session('a'), session('f', { title: 'Book the trip', status: 'waiting' }), session('r', { status: 'running' })],
      forms: [form('f1', 'f')],
    });
    expect(waitingElsewhere(state)).toEqual([{ sessionId: 'f', title: 'Book the trip', count: 0 }]);
    // The one on screen shows its own form; a closed form is not waited on.
    expect(waitingElsewhere({ ...state, currentSessionId: 'f' })).toEqual([]);
    expect(waitingElsewhere({ ...state, forms: [form('f1', 'f', 'closed')] })).toEqual([]);
  });

  it('counts for the window title what waits in every session, a form the agent waits on alone too', () => {
    const state = showing(session('a'), {
      sessions: [
        session('a', { status: 'waiting' }),
        session('f', { status: 'waiting' }),
        session('g', { status: 'waiting' }),
        session('r', { status: 'running' }),
      ],
      interactions: [questions('q1', 'a'), confirm('c1', 'g')],
      forms: [form('fa', 'a'), form('f1', 'f'), form('f2', 'f'), form('g1', 'g'), form('r1', 'r'), form('old', 'x', 'closed')],
    });
    // q1 and c1, and session f, whose agent waits on its form; the form of a running session is not waited on.
    expect(waitingCount(state)).toBe(3);
    // Whichever session is on screen.
    expect(waitingCount(showing(session('f', { status: 'waiting' }), { ...state, currentSessionId: 'f' }))).toBe(3);
    expect(waitingCount({ ...state, forms: [] })).toBe(2);
    expect(waitingCount({ ...state, interactions: [], forms: [form('f1', 'f', 'closed')] })).toBe(0);
  });

  it('Stop acts on the running session even when an ended one, or none, is on screen', () => {
    const running = session('run', { createdAt: 1 });
    const ended = session('done', { status: 'finished', createdAt: 2 });
    expect(stopTarget(showing(ended, { sessions: [ended, running] }))?.id).toBe('run');
    expect(stopTarget({ ...initialState, sessions: [ended, running] })?.id).toBe('run');
    expect(stopTarget(showing(running, { sessions: [ended, running] }))?.id).toBe('run');
    // Nothing runs: the session on screen (the host then says it had ended).
    expect(stopTarget(showing(ended))?.id).toBe('done');
    expect(stopTarget(initialState)).toBeNull();
  });
});

describe('renderer state: agent forms', () => {
  it('creates, updates in place and closes a form (whole spec per event)', () => {
    let state = showing(session('a'));
    state = applyHostEvent(state, { kind: 'form.updated', form: form('f1', 'a', 'open', { city: '' }) });
    state = applyHostEvent(state, { kind: 'form.updated', form: form('f2', 'a') });
    state = applyHostEvent(state, { kind: 'form.updated', form: form('f1', 'a', 'open', { city: 'Lisbon' }) });
    expect(state.forms.map((f) => f.formId)).toEqual(['f1', 'f2']);
    expect(state.forms[0]?.data).toEqual({ city: 'Lisbon' });
    state = applyHostEvent(state, { kind: 'form.updated', form: form('f1', 'a', 'closed', { city: 'Lisbon' }) });
    // Open forms first, closed ones after (still shown).
    expect(sessionForms(state).map((f) => `${f.formId}:${f.state}`)).toEqual(['f2:open', 'f1:closed']);
  });

  it('keeps forms of other sessions apart (same form id)', () => {
    const state = applyHostEvents(showing(session('a')), [
      { kind: 'form.updated', form: form('f1', 'a') },
      { kind: 'form.updated', form: form('f1', 'b', 'closed') },
    ]);
    expect(state.forms).toHaveLength(2);
    expect(sessionForms(state).map((f) => f.sessionId)).toEqual(['a']);
  });
});

describe('renderer state: session.updated and session.deleted', () => {
  it('session.updated replaces the view (counters, rounds, cost), keeping newest first', () => {
    const older = session('old', { createdAt: 1 });
    const state = applyHostEvent(showing(session('a', { createdAt: 5 }), { sessions: [session('a', { createdAt: 5 }), older] }), {
      kind: 'session.updated',
      session: session('a', { createdAt: 5, stepCount: 7, roundCount: 2, costUsd: 0.5, tokens: { prompt: 10, completion: 2 } }),
    });
    expect(state.sessions.map((s) => s.id)).toEqual(['a', 'old']);
    expect(state.sessions[0]).toMatchObject({ stepCount: 7, roundCount: 2, costUsd: 0.5 });
  });

  it('session.updated of a session a search left out is known, but not listed in the results', () => {
    const searching = applySessionList(showing(session('a')), [session('inv', { title: 'invoice' })], 'invoice');
    const updated = applyHostEvent(searching, { kind: 'session.updated', session: session('zz') });
    expect(updated.sessions.map((s) => s.id).sort()).toEqual(['a', 'inv', 'zz']);
    expect(listedSessions(updated).map((s) => s.id)).toEqual(['inv']);
  });

  it('session.deleted removes the session, and clears the screen when it was the one shown', () => {
    let state = showing(session('a'), { sessions: [session('a'), session('b')] });
    state = applyHostEvents(state, [
      { kind: 'step.added', step: step('a', 0) },
      { kind: 'interaction.requested', interaction: questions('q1', 'a') },
      { kind: 'form.updated', form: form('f1', 'a') },
    ]);
    const other = applyHostEvent(state, { kind: 'session.deleted', sessionId: 'b' });
    expect(other.currentSessionId).toBe('a');
    expect(other.steps).toHaveLength(1);
    const gone = applyHostEvent(state, { kind: 'session.deleted', sessionId: 'a' });
    expect(gone.currentSessionId).toBeNull();
    expect(gone.steps).toEqual([]);
    expect(gone.interactions).toEqual([]);
    expect(gone.forms).toEqual([]);
    expect(gone.sessions.map((s) => s.id)).toEqual(['b']);
    expect(gone.roundRequests.a).toBeUndefined();
  });

  it('a search never loses the session on screen (Send must still continue it)', () => {
    const state = showing(session('a', { status: 'finished' }));
    const searched = applySessionList(state, [session('b')], 'b');
    expect(listedSessions(searched).map((s) => s.id)).toEqual(['b']);
    expect(requestMode(currentSession(searched), false)).toBe('continue');
    const cleared = applySessionList(searched, [session('b')], '');
    expect(cleared.sessionResults).toBeNull();
    expect(listedSessions(cleared).map((s) => s.id).sort()).toEqual(['a', 'b']);
    // Deleting a found session takes it out of the results too.
    expect(applyHostEvent(searched, { kind: 'session.deleted', sessionId: 'b' }).sessionResults).toEqual([]);
  });
});

describe('renderer state: what Send does (follow-up choice)', () => {
  it('starts a session when none is shown, continues an ended one, and waits while one runs', () => {
    expect(requestMode(null, false)).toBe('start');
    expect(requestMode(null, true)).toBe('busy');
    for (const status of ['finished', 'failed', 'stopped', 'error', 'interrupted'] as const) {
      expect(requestMode(session('a', { status }), false)).toBe('continue');
    }
    for (const status of ['running', 'waiting', 'paused', 'stopping'] as const) {
      expect(requestMode(session('a', { status }), false)).toBe('busy');
    }
  });

  it('offers Resume for paused and interrupted sessions, Pause while running or waiting, Stop while not ended', () => {
    expect(canResume(session('a', { status: 'paused' }))).toBe(true);
    expect(canResume(session('a', { status: 'interrupted' }))).toBe(true);
    expect(canResume(session('a', { status: 'finished' }))).toBe(false);
    expect(canPause(session('a', { status: 'waiting' }))).toBe(true);
    expect(canPause(session('a', { status: 'paused' }))).toBe(false);
    expect(canStop(session('a', { status: 'paused' }))).toBe(true);
    expect(canStop(session('a', { status: 'stopping' }))).toBe(false);
    expect(canStop(null)).toBe(false);
  });

  it('a follow-up reply records the new round’s request; the blackboard fills in the others', () => {
    const ended = showing(session('a', { status: 'finished' }), { awaitingStart: true });
    const continued = applyContinuedSession(ended, session('a', { status: 'running', roundCount: 2 }), 'now email it to Ana');
    expect(continued.awaitingStart).toBe(false);
    expect(continued.sessions[0]?.status).toBe('running');
    expect(continued.roundRequests.a).toEqual(['', 'now email it to Ana']);
    const filled = applyBlackboard(continued, 'a', { questions: [], requests: ['request of a', 'now email it to Ana'], trajectories: [], screenshots: [] });
    expect(filled.roundRequests.a).toEqual(['request of a', 'now email it to Ana']);
    expect(filled.blackboard?.sessionId).toBe('a');
  });

  it('a session.started from elsewhere is not adopted while a follow-up is on its way', () => {
    const continuing = showing(session('a', { status: 'finished' }), { awaitingStart: true });
    const state = applyHostEvent(continuing, { kind: 'session.started', session: session('z', { createdAt: 9 }) });
    expect(state.currentSessionId).toBe('a');
    expect(state.roundRequests.z).toEqual(['request of z']);
  });
});

describe('renderer state: bursts of steps', () => {
  it('applies many step events in one go, in order, without duplicates', () => {
    const events: HostEvent[] = [];
    for (let i = 0; i < 1_000; i += 1) events.push({ kind: 'step.added', step: step('a', i) });
    events.push({ kind: 'step.added', step: step('a', 3) });
    events.push({ kind: 'step.added', step: step('b', 0) });
    const state = applyHostEvents(showing(session('a'), { sessions: [session('a'), session('b')] }), events);
    expect(state.steps).toHaveLength(1_000);
    expect(state.steps.every((s, i) => s.index === i)).toBe(true);
    expect(state.sessions.find((s) => s.id === 'a')?.stepCount).toBe(1_000);
    expect(state.sessions.find((s) => s.id === 'b')?.stepCount).toBe(1);
  });

  it('keeps event order around other events (a step after the session ended still lands)', () => {
    const state = applyHostEvents(showing(session('a')), [
      { kind: 'step.added', step: step('a', 0) },
      { kind: 'session.ended', sessionId: 'a', status: 'finished', result: 'done' },
      { kind: 'step.added', step: step('a', 1) },
    ]);
    expect(state.steps.map((s) => s.index)).toEqual([0, 1]);
    expect(state.statusDetail).toBe('done');
  });

  it('insertSteps merges late steps into place like insertStep does', () => {
    const existing = [step('a', 0), step('a', 2), step('a', 4)];
    const merged = insertSteps(existing, [step('a', 3), step('a', 1), step('a', 5), step('a', 2)]);
    expect(merged.map((s) => s.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(insertSteps(existing, [step('a', 0), step('a', 2)])).toBe(existing);
    const oneByOne = [step('a', 3), step('a', 1)].reduce(insertStep, existing);
    expect(insertSteps(existing, [step('a', 3), step('a', 1)]).map((s) => s.id)).toEqual(oneByOne.map((s) => s.id));
  });
});

describe('trajectory grouping: rounds and sub-tasks', () => {
  const groupHeaders = (all: StepView[], requests: string[]) => all.map((_step, index) => stepGroupHeaders(all, requests, index));
  const steps = [
    step('a', 0, { agent: 'HostAgent', subtask: null }),
    step('a', 1, { subtask: 'Write the report', target: 'Text Editor' }),
    step('a', 2, { subtask: 'Write the report', target: 'Text Editor' }),
    step('a', 3, { subtask: 'Save it', target: 'Text Editor' }),
    step('a', 4, { round: 1, agent: 'HostAgent', subtask: null }),
    step('a', 5, { round: 1, subtask: 'Email it', target: 'Mail' }),
  ];

  it('opens a round header where a round begins, with its request', () => {
    const headers = groupHeaders(steps, ['write the report', 'now email it']);
    expect(headers.map((h) => h.round?.round ?? null)).toEqual([0, null, null, null, 1, null]);
    expect(headers[0]?.round?.request).toBe('write the report');
    expect(headers[4]?.round?.request).toBe('now email it');
    expect(groupHeaders(steps, [])[4]?.round?.request).toBe('');
  });

  it('opens a sub-task header where the agent, target or sub-task changes, counting its steps', () => {
    const headers = groupHeaders(steps, []);
    expect(headers.map((h) => (h.subtask ? `${h.subtask.agent}/${h.subtask.subtask}/${h.subtask.steps}` : null))).toEqual([
      'HostAgent/null/1',
      'AppAgent/Write the report/2',
      null,
      'AppAgent/Save it/1',
      'HostAgent/null/1',
      'AppAgent/Email it/1',
    ]);
  });

  it('steps that open nothing share one object, and equal headers compare equal', () => {
    const first = groupHeaders(steps, ['x']);
    const again = groupHeaders(steps, ['x']);
    expect(first[2]).toBe(first[2]);
    expect(first[2]).toBe(again[2]);
    expect(sameHeaders(first[1]!, again[1]!)).toBe(true);
    const grown = groupHeaders([...steps.slice(0, 3), step('a', 9, { subtask: 'Write the report', target: 'Text Editor' })], ['x']);
    expect(sameHeaders(first[1]!, grown[1]!)).toBe(false);
    expect(groupHeaders([], [])).toEqual([]);
  });
});
