// The store's actions against a scripted bridge: which session a command goes to, and which reply wins.
import { describe, expect, it } from 'vitest';
import { CommandResults, FormView, Interaction, type SessionView, type HostCommandType, type HostEvent, type SessionDetail, type SessionViewInput } from '../../src-main/protocol';
import { HostCommandError } from '../../src-renderer/src/bridge/errors';
import type { Bridge, BridgeConnection, CommandInput } from '../../src-renderer/src/bridge/types';
import { activeSession, requestMode, waitingCount, waitingElsewhere } from '../../src-renderer/src/store/state';
import { createDeskhandStore } from '../../src-renderer/src/store/store';
import { makeSession, makeStep } from '../support/ui-fixtures';

/** A finished session unless the test says otherwise. */
const session = (id: string, overrides: Partial<SessionViewInput> = {}): SessionView => makeSession(id, { status: 'finished', createdAt: 1, updatedAt: 1, ...overrides });

function detail(view: SessionView, interactions: Interaction[] = []): SessionDetail {
  return { session: view, rounds: [], steps: [], interactions, forms: [], pause: null };
}

const question = (id: string, sessionId: string): Interaction =>
  Interaction.parse({ kind: 'questions', id, sessionId, agent: 'HostAgent', questions: ['Which folder?'] });

interface Sent {
  command: CommandInput<HostCommandType>;
  reply(result: unknown): void;
  fail(error: Error): void;
}

/** A bridge whose replies (and events) the test gives, one command at a time, in any order. */
function scriptedBridge(): { bridge: Bridge; sent: Sent[]; connect(state: BridgeConnection): void; emit(event: HostEvent): void } {
  const sent: Sent[] = [];
  let onConnection: (state: BridgeConnection) => void = () => undefined;
  let onEvent: (event: HostEvent) => void = () => undefined;
  const bridge: Bridge = {
    send: (command) =>
      new Promise((resolve, reject) => {
        // Checked like the real bridges check a reply (their defaults filled in).
        const reply = (result: unknown): void => resolve(CommandResults[command.type].parse(result) as never);
        sent.push({ command: command as CommandInput<HostCommandType>, reply, fail: reject });
      }),
    onEvent: (listener) => {
      onEvent = listener;
      return () => undefined;
    },
    onConnection: (listener) => {
      onConnection = listener;
      return () => undefined;
    },
    onError: () => () => undefined,
    screenshot: () => ({ url: Promise.resolve(''), release: () => undefined }),
  };
  return { bridge, sent, connect: (state) => onConnection(state), emit: (event) => onEvent(event) };
}

const flush = (): Promise<void> => new Promise((done) => setTimeout(done, 0));

describe('renderer store actions: Stop', () => {
  it('stops the running session while an ended one is on screen, or none ("New")', async () => {
    const { bridge, sent } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    const running = session('run', { status: 'waiting', createdAt: 1 });
    const ended = session('done', { createdAt: 2 });
    store.setState({ sessions: [ended, running], currentSessionId: 'done' });

    const stopping = store.getState().stop();
    expect(sent.map((entry) => entry.command)).toEqual([{ type: 'session.stop', sessionId: 'run' }]);
    sent[0]?.reply({ sessionId: 'run', stopped: true });
    await stopping;
    expect(store.getState().lastError).toBeNull();

    store.getState().newSession();
    void store.getState().stop();
    expect(sent[1]?.command).toEqual({ type: 'session.stop', sessionId: 'run' });
  });

  it('says a run stopped from another window meanwhile is already stopping, not ended', async () => {
    const { bridge, sent, emit } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    store.setState({ sessions: [session('run', { status: 'running' })], currentSessionId: 'run' });
    const stopping = store.getState().stop();
    // The other window's Stop came first: its event arrives before this reply, which then says not stopped.
    emit({ kind: 'status.changed', sessionId: 'run', status: 'stopping', detail: 'Stopping' });
    await flush();
    sent[0]?.reply({ sessionId: 'run', stopped: false });
    await stopping;
    expect(store.getState().lastError?.message).toBe('It is already stopping.');

    // No wait here: the ended event may still wait for its batch when the reply comes.
    emit({ kind: 'session.ended', sessionId: 'run', status: 'stopped', result: null });
    const late = store.getState().stop();
    sent[1]?.reply({ sessionId: 'run', stopped: false });
    await late;
    expect(store.getState().lastError?.message).toBe('The session had already ended.');
  });
});

describe('renderer store actions: Pause and Resume', () => {
  it('pause and resume the running session while an ended one is on screen, or none ("New")', async () => {
    const { bridge, sent } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    const running = session('run', { status: 'running', createdAt: 1 });
    const ended = session('done', { createdAt: 2 });
    store.setState({ sessions: [ended, running], currentSessionId: 'done' });

    const pausing = store.getState().pause();
    expect(sent.map((entry) => entry.command)).toEqual([{ type: 'session.pause', sessionId: 'run' }]);
    sent[0]?.reply({ sessionId: 'run', paused: true });
    await pausing;
    expect(store.getState().lastError).toBeNull();

    store.setState({ sessions: [ended, { ...running, status: 'paused' }] });
    store.getState().newSession();
    const resuming = store.getState().resume();
    expect(sent[1]?.command).toEqual({ type: 'session.resume', sessionId: 'run' });
    sent[1]?.reply({ session: running });
    await resuming;
    expect(store.getState().sessions.find((candidate) => candidate.id === 'run')?.status).toBe('running');
  });

  it('resume goes on with the interrupted session on screen when nothing runs', () => {
    const { bridge, sent } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    store.setState({ sessions: [session('cut', { status: 'interrupted' }), session('done')], currentSessionId: 'cut' });
    void store.getState().resume();
    expect(sent[0]?.command).toEqual({ type: 'session.resume', sessionId: 'cut' });
  });
});

describe('renderer store actions: Send while another session runs', () => {
  it('sends nothing from "New" or an ended session while the host runs another one (it runs one at a time)', async () => {
    const { bridge, sent } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    store.setState({ sessions: [session('done', { createdAt: 2 }), session('run', { status: 'paused', createdAt: 1 })], currentSessionId: 'done' });

    expect(await store.getState().sendRequest('and now the invoices')).toBe(false);
    store.getState().newSession();
    expect(await store.getState().sendRequest('something else')).toBe(false);
    expect(sent).toEqual([]);
    expect(store.getState().lastError).toMatchObject({ severity: 'warning', message: expect.stringContaining('Session run') });
  });
});

describe('renderer store actions: opening sessions out of order', () => {
  it('a slow reply for the session opened first does not replace the one opened after it', async () => {
    const { bridge, sent } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    const a = session('a');
    const b = session('b', { result: 'B is done' });
    store.setState({ sessions: [a, b] });

    const openingA = store.getState().openSession('a');
    const openingB = store.getState().openSession('b');
    sent[1]?.reply(detail(b));
    await openingB;
    expect(store.getState().currentSessionId).toBe('b');
    sent[0]?.reply(detail(a));
    await openingA;
    expect(store.getState().currentSessionId).toBe('b');
    expect(store.getState().statusDetail).toBe('B is done');
  });

  it('"New" after a click on a session that is still loading stays on "New"', async () => {
    const { bridge, sent } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    const opening = store.getState().openSession('a');
    store.getState().newSession();
    sent[0]?.reply(detail(session('a')));
    await opening;
    expect(store.getState().currentSessionId).toBeNull();
  });

  it('a reconnect while a session loads reopens that one, not the one it was to replace', async () => {
    const { bridge, sent, connect } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    store.setState({ sessions: [session('a'), session('b')], currentSessionId: 'a' });
    const openingB = store.getState().openSession('b');
    connect('connected');
    await flush();
    const opens = sent.filter((entry) => entry.command.type === 'session.open');
    expect(opens.map((entry) => entry.command)).toEqual([
      { type: 'session.open', sessionId: 'b' },
      { type: 'session.open', sessionId: 'b' },
    ]);
    opens[1]?.reply(detail(session('b')));
    opens[0]?.reply(detail(session('b')));
    await openingB;
    expect(store.getState().currentSessionId).toBe('b');
  });
});

describe('renderer store actions: events that overtake a snapshot', () => {
  it('keeps the steps and the end of a session that came while its session.open reply travelled', async () => {
    const { bridge, sent, emit } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    const b = session('b', { status: 'running', stepCount: 1 });
    store.setState({ sessions: [session('a'), b], currentSessionId: 'a' });

    const opening = store.getState().openSession('b');
    // The host took its snapshot (step 0, running); step 1 and the end were sent before the reply came.
    emit({ kind: 'step.added', step: makeStep('b', 1) });
    emit({ kind: 'session.ended', sessionId: 'b', status: 'finished', result: 'All done' });
    await flush();
    sent[0]?.reply({ ...detail(b), steps: [makeStep('b', 0)] });
    await opening;

    const state = store.getState();
    expect(state.currentSessionId).toBe('b');
    expect(state.steps.map((shown) => shown.index)).toEqual([0, 1]);
    expect(state.sessions.find((listed) => listed.id === 'b')?.status).toBe('finished');
    expect(state.statusDetail).toBe('All done');
  });

  it('does not show a session deleted while its session.open reply travelled', async () => {
    const { bridge, sent, emit } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    store.setState({ sessions: [session('a'), session('b')], currentSessionId: 'a' });

    const opening = store.getState().openSession('b');
    emit({ kind: 'session.deleted', sessionId: 'b' });
    await flush();
    sent[0]?.reply(detail(session('b')));
    await opening;

    expect(store.getState().sessions.map((listed) => listed.id)).toEqual(['a']);
    expect(store.getState().currentSessionId).toBeNull();
  });

  it('keeps the end of a session that came while the session.list reply travelled', async () => {
    const { bridge, sent, emit } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    const running = session('r', { status: 'running' });
    store.setState({ sessions: [running], currentSessionId: 'r' });

    const listing = store.getState().refreshSessions();
    emit({ kind: 'session.ended', sessionId: 'r', status: 'stopped', result: null });
    await flush();
    sent[0]?.reply({ sessions: [running] });
    await listing;

    expect(store.getState().sessions[0]?.status).toBe('stopped');
  });
});

describe('renderer store actions: events that overtake the reply to a start, a follow-up or a resume', () => {
  const current = (store: ReturnType<typeof createDeskhandStore>): SessionView | undefined => {
    const state = store.getState();
    return state.sessions.find((listed) => listed.id === state.currentSessionId);
  };

  it('a new session that ended before the reply to session.start shows as ended, with its steps, and Send is free', async () => {
    const { bridge, sent, emit } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    const sending = store.getState().sendRequest('count the files');
    // The reply's snapshot was taken as the round began; one step later the run failed.
    const started = session('n', { status: 'running', roundCount: 0, createdAt: 5 });
    emit({ kind: 'session.started', session: started });
    emit({ kind: 'step.added', step: makeStep('n', 0) });
    emit({ kind: 'session.updated', session: { ...started, roundCount: 1, stepCount: 1 } });
    emit({ kind: 'session.ended', sessionId: 'n', status: 'error', result: 'The model refused the key' });
    await flush();
    sent[0]?.reply({ session: { ...started, roundCount: 1 } });
    expect(await sending).toBe(true);

    const state = store.getState();
    expect(state.currentSessionId).toBe('n');
    expect(state.steps.map((shown) => shown.index)).toEqual([0]);
    expect(current(store)).toMatchObject({ status: 'error', roundCount: 1, stepCount: 1 });
    expect(state.statusDetail).toBe('The model refused the key');
    expect(state.awaitingStart).toBe(false);
    expect(requestMode(current(store) ?? null, state.awaitingStart, activeSession(state))).toBe('continue');
  });

  it('the session.started event, older than any snapshot of its session, does not undo the reply', async () => {
    const { bridge, sent, emit } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    const sending = store.getState().sendRequest('count the files');
    const started = session('n', { status: 'running', roundCount: 0 });
    emit({ kind: 'session.started', session: started });
    emit({ kind: 'status.changed', sessionId: 'n', status: 'running', detail: 'Round 1 started' });
    await flush();
    sent[0]?.reply({ session: { ...started, roundCount: 1 } });
    await sending;

    expect(current(store)).toMatchObject({ id: 'n', status: 'running', roundCount: 1 });
    expect(store.getState().statusDetail).toBe('Round 1 started');
  });

  it('a new session not adopted from its session.started event (another one was opened meanwhile) is listed with its steps from the replay, and stays off screen', async () => {
    const { bridge, sent, emit } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    store.setState({ sessions: [session('a')] });
    const sending = store.getState().sendRequest('count the files');
    const opening = store.getState().openSession('a');
    sent[1]?.reply(detail(session('a')));
    await opening;
    const started = session('n', { status: 'running', createdAt: 5 });
    emit({ kind: 'session.started', session: started });
    emit({ kind: 'step.added', step: makeStep('n', 0) });
    emit({ kind: 'step.added', step: makeStep('n', 1) });
    await flush();
    expect(store.getState().currentSessionId).toBe('a');
    sent[0]?.reply({ session: started });
    await sending;

    const state = store.getState();
    expect(state.currentSessionId).toBe('a');
    expect(state.sessions.find((listed) => listed.id === 'n')).toMatchObject({ status: 'running', stepCount: 2 });
    expect(state.awaitingStart).toBe(false);
    // The new session runs: Send stays refused, now because of it.
    expect(requestMode(current(store) ?? null, state.awaitingStart, activeSession(state))).toBe('busy');
    expect(sent.map((entry) => entry.command.type)).toEqual(['session.start', 'session.open']);
  });

  it('a follow-up round that ended before the reply to session.continue shows as ended, with its request', async () => {
    const { bridge, sent, emit } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    store.setState({ sessions: [session('a', { result: 'First done' })], currentSessionId: 'a' });
    const sending = store.getState().sendRequest('and now the invoices');
    emit({ kind: 'status.changed', sessionId: 'a', status: 'running', detail: 'Round 2 started' });
    emit({ kind: 'step.added', step: makeStep('a', 0, { round: 1 }) });
    emit({ kind: 'session.ended', sessionId: 'a', status: 'finished', result: 'Invoices done' });
    await flush();
    sent[0]?.reply({ session: session('a', { status: 'running', roundCount: 2 }) });
    await sending;

    const state = store.getState();
    expect(current(store)?.status).toBe('finished');
    expect(state.statusDetail).toBe('Invoices done');
    expect(state.steps.map((shown) => shown.round)).toEqual([1]);
    expect(state.roundRequests.a?.[1]).toBe('and now the invoices');
  });

  it('a resumed session that was stopped before the reply to session.resume shows as stopped', async () => {
    const { bridge, sent, emit } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    const paused = session('p', { status: 'paused' });
    store.setState({ sessions: [paused] });
    const resuming = store.getState().resume();
    emit({ kind: 'status.changed', sessionId: 'p', status: 'running', detail: 'Resumed' });
    emit({ kind: 'session.ended', sessionId: 'p', status: 'stopped', result: 'Stopped by you' });
    await flush();
    sent[0]?.reply({ session: { ...paused, status: 'running' } });
    await resuming;

    expect(store.getState().sessions[0]).toMatchObject({ id: 'p', status: 'stopped', result: 'Stopped by you' });
  });
});

describe('renderer store actions: going elsewhere while a start is on its way', () => {
  const started = session('n', { status: 'running', createdAt: 5 });
  const listedNew = (store: ReturnType<typeof createDeskhandStore>): SessionView | undefined =>
    store.getState().sessions.find((listed) => listed.id === 'n');

  it('"New" pressed after Send stays on "New" when the reply comes first: the new session is only listed', async () => {
    const { bridge, sent } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    const sending = store.getState().sendRequest('count the files');
    store.getState().newSession();
    sent[0]?.reply({ session: started });
    expect(await sending).toBe(true);

    const state = store.getState();
    expect(state.currentSessionId).toBeNull();
    expect(listedNew(store)?.status).toBe('running');
    expect(state).toMatchObject({ awaitingStart: false, startTakesScreen: false });
    expect(requestMode(null, state.awaitingStart, activeSession(state))).toBe('busy');
  });

  it('"New" pressed after Send stays on "New" when the session.started event overtakes the reply', async () => {
    const { bridge, sent, emit } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    const sending = store.getState().sendRequest('count the files');
    store.getState().newSession();
    emit({ kind: 'session.started', session: started });
    emit({ kind: 'step.added', step: makeStep('n', 0) });
    await flush();
    expect(store.getState().currentSessionId).toBeNull();
    expect(store.getState().awaitingStart).toBe(true);
    sent[0]?.reply({ session: started });
    await sending;

    expect(store.getState().currentSessionId).toBeNull();
    expect(store.getState().steps).toEqual([]);
    expect(listedNew(store)?.stepCount).toBe(1);
    expect(store.getState().awaitingStart).toBe(false);
  });

  it('a session opened after Send is not replaced by the start\'s reply, whichever reply comes first', async () => {
    const { bridge, sent } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    store.setState({ sessions: [session('a', { result: 'A is done' })] });
    const sending = store.getState().sendRequest('count the files');
    const opening = store.getState().openSession('a');
    sent[0]?.reply({ session: started });
    await sending;
    // Not "n" while "a" loads: the user asked for "a".
    expect(store.getState().currentSessionId).toBeNull();
    sent[1]?.reply(detail(session('a', { result: 'A is done' })));
    await opening;
    expect(store.getState().currentSessionId).toBe('a');
    expect(store.getState().statusDetail).toBe('A is done');
    expect(listedNew(store)?.status).toBe('running');
  });

  it('a start that fails after the user went to "New" leaves nothing starting', async () => {
    const { bridge, sent } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    const sending = store.getState().sendRequest('count the files');
    store.getState().newSession();
    sent[0]?.fail(new Error('no model is set'));
    expect(await sending).toBe(false);
    expect(store.getState()).toMatchObject({ currentSessionId: null, awaitingStart: false, startTakesScreen: false });
    expect(store.getState().lastError?.message).toBe('no model is set');
  });

  it('"New" after a follow-up was sent does not take up a session another window started meanwhile', async () => {
    const { bridge, sent, emit } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    store.setState({ sessions: [session('a')], currentSessionId: 'a' });
    const sending = store.getState().sendRequest('and now the invoices');
    store.getState().newSession();
    emit({ kind: 'session.started', session: started });
    await flush();
    expect(store.getState().currentSessionId).toBeNull();
    // That window's start came first: the host runs one session at a time and refuses the follow-up.
    sent[0]?.fail(new Error('another session is running'));
    expect(await sending).toBe(false);
    expect(store.getState()).toMatchObject({ currentSessionId: null, awaitingStart: false });
  });

  it('without going elsewhere, the reply puts the new session on screen', async () => {
    const { bridge, sent } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    const sending = store.getState().sendRequest('count the files');
    sent[0]?.reply({ session: started });
    await sending;
    expect(store.getState()).toMatchObject({ currentSessionId: 'n', awaitingStart: false, startTakesScreen: false });
  });
});

describe('renderer store actions: other sessions waiting, after a reconnect', () => {
  /** The first command of `type` (for `sessionId`) not replied to yet by this helper. */
  const take = (sent: Sent[], type: HostCommandType, sessionId?: string): Sent | undefined => {
    const at = sent.findIndex(
      (entry) => entry.command.type === type && (sessionId === undefined || ('sessionId' in entry.command && entry.command.sessionId === sessionId)),
    );
    return at === -1 ? undefined : sent.splice(at, 1)[0];
  };

  it('drops the alert of a session that ended, or whose question was answered elsewhere, while away', async () => {
    const { bridge, sent, connect } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    const shown = session('a');
    store.setState({
      sessions: [shown, session('b', { status: 'waiting' }), session('c', { status: 'waiting' })],
      currentSessionId: 'a',
      interactions: [question('qb', 'b'), question('qc', 'c')],
    });
    expect(waitingElsewhere(store.getState()).map((waiting) => waiting.sessionId)).toEqual(['b', 'c']);

    connect('connected');
    await flush();
    // While away, b ended and c's question was answered in another window: c runs on.
    take(sent, 'session.list')?.reply({ sessions: [shown, session('b', { status: 'finished' }), session('c', { status: 'running' })] });
    take(sent, 'session.open', 'a')?.reply(detail(shown));
    await flush();
    take(sent, 'session.open', 'b')?.reply(detail(session('b', { status: 'finished' })));
    take(sent, 'session.open', 'c')?.reply(detail(session('c', { status: 'running' })));
    await flush();

    expect(waitingElsewhere(store.getState())).toEqual([]);
    expect(store.getState().interactions).toEqual([]);
  });

  it('shows the alert of a session that began to wait while away, and keeps a question that came after the check', async () => {
    const { bridge, sent, connect, emit } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    const shown = session('a');
    store.setState({ sessions: [shown, session('d', { status: 'running' })], currentSessionId: 'a' });

    connect('connected');
    await flush();
    take(sent, 'session.list')?.reply({ sessions: [shown, session('d', { status: 'waiting' })] });
    take(sent, 'session.open', 'a')?.reply(detail(shown));
    await flush();
    const check = take(sent, 'session.open', 'd');
    emit({ kind: 'interaction.requested', interaction: question('q2', 'd') });
    await flush();
    check?.reply(detail(session('d', { status: 'waiting' }), [question('q1', 'd')]));
    await flush();

    expect(store.getState().interactions.map((interaction) => interaction.id)).toEqual(['q1', 'q2']);
    expect(waitingElsewhere(store.getState())).toEqual([{ sessionId: 'd', title: 'Session d', count: 2 }]);
  });

  it('does not bring back a question answered, or a session ended, while its check travelled', async () => {
    const { bridge, sent, connect, emit } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    const shown = session('a');
    store.setState({
      sessions: [shown, session('b', { status: 'waiting' }), session('c', { status: 'waiting' })],
      currentSessionId: 'a',
      interactions: [question('qb', 'b'), question('qc', 'c')],
    });

    connect('connected');
    await flush();
    take(sent, 'session.list')?.reply({ sessions: [shown, session('b', { status: 'waiting' }), session('c', { status: 'waiting' })] });
    take(sent, 'session.open', 'a')?.reply(detail(shown));
    await flush();
    const checkB = take(sent, 'session.open', 'b');
    const checkC = take(sent, 'session.open', 'c');
    // Both snapshots were taken before: b's question is answered in another window, and c is stopped.
    emit({ kind: 'interaction.resolved', sessionId: 'b', interactionId: 'qb', outcome: 'answered' });
    emit({ kind: 'session.ended', sessionId: 'c', status: 'stopped', result: null });
    await flush();
    checkB?.reply(detail(session('b', { status: 'waiting' }), [question('qb', 'b')]));
    checkC?.reply(detail(session('c', { status: 'waiting' }), [question('qc', 'c')]));
    await flush();

    expect(store.getState().interactions).toEqual([]);
    expect(waitingElsewhere(store.getState())).toEqual([]);
  });

  it('asks which sessions wait of all of them, not only those a search in the sidebar shows', async () => {
    const { bridge, sent, connect } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    store.setState({ sessions: [session('f', { title: 'report' })], sessionQuery: 'report' });

    connect('connected');
    await flush();
    // The search's list (f only), then the whole list: g began to wait while away.
    take(sent, 'session.list')?.reply({ sessions: [session('f', { title: 'report' })] });
    await flush();
    take(sent, 'session.list')?.reply({ sessions: [session('f', { title: 'report' }), session('g', { status: 'waiting' })] });
    await flush();
    take(sent, 'session.open', 'g')?.reply(detail(session('g', { status: 'waiting' }), [question('qg', 'g')]));
    await flush();

    // Not among the search's matches, so the alert names no title; the sidebar still shows the search.
    expect(waitingElsewhere(store.getState())).toEqual([{ sessionId: 'g', title: null, count: 1 }]);
    expect(store.getState().sessions.map((listed) => listed.id)).toEqual(['f']);
  });

  it("shows the alert (and counts in the title) a session whose agent began to wait on its form alone while away, and drops a form closed while away", async () => {
    const { bridge, sent, connect } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    const shown = session('a');
    const form = (sessionId: string, state: 'open' | 'closed') =>
      FormView.parse({ formId: 'appagent-1', sessionId, agent: 'AppAgent', schema: { type: 'object' }, uischema: null, data: {}, state });
    // x's form was open when we went away; w ran on.
    store.setState({ sessions: [shown, session('w', { status: 'running' }), session('x', { status: 'waiting' })], currentSessionId: 'a', forms: [form('x', 'open')] });
    expect(waitingElsewhere(store.getState()).map((waiting) => waiting.sessionId)).toEqual(['x']);

    connect('connected');
    await flush();
    // While away, w's agent showed a form and waits on it alone; x's form was filled in, and x is paused.
    take(sent, 'session.list')?.reply({ sessions: [shown, session('w', { status: 'waiting' }), session('x', { status: 'paused' })] });
    take(sent, 'session.open', 'a')?.reply(detail(shown));
    await flush();
    take(sent, 'session.open', 'w')?.reply({ ...detail(session('w', { status: 'waiting' })), forms: [form('w', 'open')] });
    take(sent, 'session.open', 'x')?.reply({ ...detail(session('x', { status: 'paused' })), forms: [form('x', 'closed')] });
    await flush();

    expect(waitingElsewhere(store.getState())).toEqual([{ sessionId: 'w', title: 'Session w', count: 0 }]);
    expect(waitingCount(store.getState())).toBe(1);
    expect(store.getState().forms.map((known) => [known.sessionId, known.state])).toEqual(expect.arrayContaining([['w', 'open'], ['x', 'closed']]));
  });

  it('a session deleted while away waits for nothing', async () => {
    const { bridge, sent, connect } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    store.setState({ sessions: [session('e', { status: 'waiting' })], interactions: [question('qe', 'e')] });

    connect('connected');
    await flush();
    take(sent, 'session.list')?.reply({ sessions: [] });
    await flush();
    const check = take(sent, 'session.open', 'e');
    expect(check).toBeDefined();
    check?.fail(new HostCommandError('no such session', 'not_found'));
    await flush();

    expect(store.getState().interactions).toEqual([]);
  });
});

describe('renderer store actions: agent forms', () => {
  it("sends a form's event to its own session when another session's form has the same id, and nothing for a form that is gone", async () => {
    const { bridge, sent } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    const form = (sessionId: string) => FormView.parse({ formId: 'appagent-1', sessionId, agent: 'AppAgent', schema: { type: 'object' }, uischema: null, data: {}, state: 'open' });
    store.setState({ forms: [form('earlier'), form('now')] });
    const sending = store.getState().sendFormEvent({ sessionId: 'now', formId: 'appagent-1' }, 'city', 'Lisbon', null);
    expect(sent.map((item) => item.command)).toEqual([{ type: 'form.event', sessionId: 'now', formId: 'appagent-1', path: 'city', value: 'Lisbon', action: null }]);
    sent[0]?.reply({});
    expect(await sending).toBe(true);
    expect(await store.getState().sendFormEvent({ sessionId: 'gone', formId: 'appagent-1' }, '', null, 'Send')).toBe(false);
    expect(sent).toHaveLength(1);
  });
});

describe('renderer store actions: Rename', () => {
  it('sends the title trimmed, shows the reply\'s title everywhere it is named, and keeps a step that overtook the reply', async () => {
    const { bridge, sent, emit } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    store.setState({ sessions: [session('a', { title: 'sort the photos', stepCount: 1, status: 'waiting' })], interactions: [question('q1', 'a')], currentSessionId: null });

    const renaming = store.getState().renameSession('a', '  Photos by year ');
    expect(sent.map((entry) => entry.command)).toEqual([{ type: 'session.rename', sessionId: 'a', title: 'Photos by year' }]);
    // A step the run took after the rename, whose event arrives before the rename's reply.
    emit({ kind: 'session.updated', session: session('a', { title: 'Photos by year', stepCount: 2, status: 'waiting' }) });
    sent[0]?.reply({ session: session('a', { title: 'Photos by year', stepCount: 1, status: 'waiting' }) });
    await expect(renaming).resolves.toBeNull();
    expect(store.getState().sessions).toMatchObject([{ id: 'a', title: 'Photos by year', stepCount: 2 }]);
    // The "waiting for you" alert names it by its new title.
    expect(waitingElsewhere(store.getState())).toEqual([{ sessionId: 'a', title: 'Photos by year', count: 1 }]);
    expect(store.getState().lastError).toBeNull();
  });

  it('refuses a title the host would refuse without sending it, and says why in a sentence', async () => {
    const { bridge, sent } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    store.setState({ sessions: [session('a', { title: 'sort the photos' })] });
    await expect(store.getState().renameSession('a', '   ')).resolves.toBe('The title is empty.');
    await expect(store.getState().renameSession('a', 'two\nlines')).resolves.toBe('The title may not hold control characters such as tabs or line breaks.');
    expect(sent).toEqual([]);
    expect(store.getState().sessions[0]?.title).toBe('sort the photos');
  });

  it('gives back what the host said when it refused, for the rename field (not as a message of its own)', async () => {
    const { bridge, sent } = scriptedBridge();
    const store = createDeskhandStore(bridge);
    store.setState({ sessions: [session('a', { title: 'sort the photos' })] });
    const renaming = store.getState().renameSession('a', 'Photos');
    sent[0]?.fail(new HostCommandError('no session with id a', 'not_found'));
    await expect(renaming).resolves.toBe('No session with id a.');
    expect(store.getState().sessions[0]?.title).toBe('sort the photos');
    expect(store.getState().lastError).toBeNull();
  });
});
