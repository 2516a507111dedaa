import { join } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { PAUSED_BEFORE_ACTING } from '../../src-main/agents/strategies/act';
import { DeskhandConfig } from '../../src-main/host/config';
import type { SessionServiceDeps } from '../../src-main/session/session-service';
import { followUp, replies, runRequest, until } from '../support/host-harness';
import { harnessPerTest } from '../support/host-per-test';

const { app, host: hostReply } = replies;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const startHarness = harnessPerTest();

describe('rounds: a follow-up starts clean', () => {
  it('a Pause pressed during the last step of a round does not hold the next one', async () => {
    const harness = await startHarness({
      name: 'pause at the end',
      steps: [
        { ...app({ Function: '', Status: 'FINISH', Comment: 'first' }), delayMs: 400 },
        app({ Function: '', Status: 'FINISH', Comment: 'second' }),
      ],
    });
    const { host } = harness;
    const start = await host.endpoint.handle({ type: 'session.start', id: 's', request: 'first', mode: 'shell' });
    const sessionId = (start as { result: { session: { id: string } } }).result.session.id;
    const current = harness;
    await until(() => current.model.requests.length === 1, 'the model request');
    expect(await host.endpoint.handle({ type: 'session.pause', id: 'p', sessionId })).toMatchObject({ ok: true, result: { paused: true } });
    expect(harness.events.find((event) => event.kind === 'status.changed' && event.status === 'paused')).toMatchObject({ detail: 'Paused by you', pause: 'user' });
    expect(await host.sessions.running).toEqual({ status: 'finished', result: 'first' });

    const second = await followUp(host, sessionId, 'second');
    expect(second.outcome).toEqual({ status: 'finished', result: 'second' });
  });

  it('an action the model names while the run is paused is not run: after Resume the agent looks again', async () => {
    const harness = await startHarness(
      {
        name: 'pause while the model thinks',
        steps: [
          { ...app({ Function: 'execute_command', Args: { command: 'true' }, Status: 'CONTINUE' }), delayMs: 400 },
          { ...app({ Function: 'execute_command', Args: { command: 'true' }, Status: 'CONTINUE' }), expect: { contains: [PAUSED_BEFORE_ACTING] } },
          app({ Function: '', Status: 'FINISH', Comment: 'ran' }),
        ],
      },
      { config: { safety: { confirmation: 'never' } } },
    );
    const { host } = harness;
    const start = await host.endpoint.handle({ type: 'session.start', id: 's', request: 'run true', mode: 'shell' });
    const sessionId = (start as { result: { session: { id: string } } }).result.session.id;
    const current = harness;
    await until(() => current.model.requests.length === 1, 'the model request');
    expect(await host.endpoint.handle({ type: 'session.pause', id: 'p', sessionId })).toMatchObject({ ok: true, result: { paused: true } });
    // The reply's step is saved without running its command, and the run stays paused.
    await until(() => current.events.some((event) => event.kind === 'step.added'), 'the step');
    expect(host.store.steps(sessionId)[0]).toMatchObject({ status: 'CONTINUE', actionText: "Run 'true'", result: PAUSED_BEFORE_ACTING, notRun: 'paused' });
    expect(host.audit.list(sessionId)).toEqual([]);
    expect(current.model.requests).toHaveLength(1);
    const paused = harness.events.filter((event) => event.kind === 'status.changed' && event.status === 'paused');
    expect(paused.map((event) => event.kind === 'status.changed' && event.detail)).toEqual(['Paused by you']);
    expect(paused[0]).toMatchObject({ pause: 'user' });
    // Resumed, the agent is asked again, and what it names then runs.
    expect(await host.endpoint.handle({ type: 'session.resume', id: 'r', sessionId })).toMatchObject({ ok: true });
    expect(await host.sessions.running).toEqual({ status: 'finished', result: 'ran' });
    expect(host.audit.list(sessionId)).toHaveLength(1);
  });

  it('Resume while the agent waits on its form says it is waiting for you, not running', async () => {
    const form = { schema: { type: 'object', properties: { name: { type: 'string' } } } };
    const harness = await startHarness({
      name: 'pause during a form',
      steps: [app({ Function: '', Status: 'PENDING', Questions: [], Form: form }), app({ Function: '', Status: 'FINISH', Comment: 'filled' })],
    });
    const { host } = harness;
    const start = await host.endpoint.handle({ type: 'session.start', id: 's', request: 'ask me', mode: 'shell' });
    const sessionId = (start as { result: { session: { id: string } } }).result.session.id;
    const current = harness;
    const formId = await until(() => {
      const event = current.events.find((candidate) => candidate.kind === 'form.updated');
      return event?.kind === 'form.updated' ? event.form.formId : undefined;
    }, 'the form');
    await until(() => host.store.getSession(sessionId)?.status === 'waiting', 'the session waiting');
    expect(await host.endpoint.handle({ type: 'session.pause', id: 'p', sessionId })).toMatchObject({ ok: true, result: { paused: true } });
    expect(await host.endpoint.handle({ type: 'session.resume', id: 'r', sessionId })).toMatchObject({ ok: true, result: { session: { status: 'waiting' } } });
    expect(current.events.filter((event) => event.kind === 'status.changed').at(-1)).toMatchObject({ status: 'waiting' });
    expect(await host.endpoint.handle({ type: 'form.event', id: 'f', sessionId, formId, path: 'name', value: 'Ana', action: 'Send' })).toMatchObject({ ok: true });
    expect(await host.sessions.running).toEqual({ status: 'finished', result: 'filled' });
  });

  it('a step limit changed in Settings is the one each session reports as its maximum', async () => {
    let apply: ((config: DeskhandConfig) => void) | null = null;
    const step = app({ Function: 'wait', Args: { seconds: 0 }, Status: 'CONTINUE' });
    const current = await startHarness({ name: 'a lower step limit', steps: [step, step] }, { watchConfig: (listener) => (apply = listener) });
    apply!(DeskhandConfig.parse({ models: { host: { baseUrl: current.model.baseUrl, model: 'scripted', maxRetries: 0, timeoutMs: 10_000 } }, limits: { maxStepsPerRound: 2 } }));
    const { sessionId, outcome } = await runRequest(current.host, 'wait twice', 'shell');
    expect(outcome).toEqual({ status: 'failed', result: 'Reached the limit of 2 steps for one request' });
    expect(current.host.store.getSession(sessionId)?.maxSteps).toBe(2);
    const updates = current.events.flatMap((event) => (event.kind === 'session.updated' ? [event.session.maxSteps] : []));
    expect(new Set(updates)).toEqual(new Set([2]));
  });

  it('the error streak of one round does not end the next round early', async () => {
    const bad = { content: 'not JSON at all' };
    const harness = await startHarness(
      {
        name: 'errors then a follow-up',
        // Each bad reply is sent back once to be mended, so a failed step costs two requests.
        steps: [bad, bad, bad, bad, bad, bad, bad, bad, hostReply({ Status: 'FINISH', Comment: 'fine now' })],
      },
      { config: { limits: { maxConsecutiveErrors: 3 } } },
    );
    const { host } = harness;
    // The HostAgent of a desktop session carries over between rounds (a shell session's agent is re-assigned).
    const first = await runRequest(host, 'try', 'desktop');
    expect(first.outcome.status).not.toBe('finished');
    const errorsBefore = first.steps.filter((step) => step.status === 'ERROR').length;
    expect(errorsBefore).toBe(3);

    const second = await followUp(host, first.sessionId, 'try again');
    // One more failed step, then the reply that finishes: the streak started again at zero.
    expect(second.outcome).toEqual({ status: 'finished', result: 'fine now' });
    expect(second.steps.filter((step) => step.status === 'ERROR')).toHaveLength(errorsBefore + 1);
  });

  it('closes the agent forms when the round ends: a press after that is refused', async () => {
    const form = { schema: { type: 'object', properties: { name: { type: 'string' } } } };
    const harness = await startHarness({
      name: 'forms',
      steps: [app({ Function: '', Status: 'PENDING', Questions: [], Form: form })],
    });
    const { host } = harness;
    const start = await host.endpoint.handle({ type: 'session.start', id: 's', request: 'ask', mode: 'shell' });
    const sessionId = (start as { result: { session: { id: string } } }).result.session.id;
    const current = harness;
    await until(() => current.events.some((event) => event.kind === 'form.updated'), 'the form');
    const opened = harness.events.find((event) => event.kind === 'form.updated');
    const formId = opened?.kind === 'form.updated' ? opened.form.formId : '';
    // Stop while the agent waits on its form: the round ends with the form still open unless the end closes it.
    expect(await host.endpoint.handle({ type: 'session.stop', id: 'x', sessionId })).toMatchObject({ ok: true });
    expect(await host.sessions.running).toMatchObject({ status: 'stopped' });
    harness.model.assertDone();

    const detail = await host.endpoint.handle({ type: 'session.open', id: 'o', sessionId });
    expect(detail).toMatchObject({ ok: true, result: { forms: [{ formId, state: 'closed' }] } });
    const late = await host.endpoint.handle({ type: 'form.event', id: 'g', sessionId, formId, path: 'name', value: 'Ada', action: 'Send' });
    expect(late).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringMatching(/closed/) } });
  });

  it('no round starts while the host shuts down', async () => {
    const harness = await startHarness({
      name: 'closing',
      steps: [{ ...app({ Function: '', Status: 'FINISH', Comment: 'first' }), delayMs: 400 }],
    });
    const { host } = harness;
    const start = await host.endpoint.handle({ type: 'session.start', id: 's', request: 'first', mode: 'shell' });
    expect(start).toMatchObject({ ok: true });
    const current = harness;
    await until(() => current.model.requests.length === 1, 'the model request');
    const closing = host.close();
    const late = await host.endpoint.handle({ type: 'session.start', id: 't', request: 'second', mode: 'shell' });
    expect(late).toMatchObject({ ok: false, error: { code: 'unavailable', message: expect.stringMatching(/shutting down/) } });
    expect(host.store.listSessions().map((session) => session.request)).toEqual(['first']);
    await closing;
  });

  it('Stop while the device client is still starting ends the round at once', async () => {
    const harness = await startHarness(
      { name: 'slow device', steps: [] },
      { deviceEnv: { DESKHAND_FAKE_DEVICE_START_DELAY_MS: '5000' } },
    );
    const { host } = harness;
    const start = await host.endpoint.handle({ type: 'session.start', id: 's', request: 'anything', mode: 'shell' });
    const sessionId = (start as { result: { session: { id: string } } }).result.session.id;
    await new Promise((done) => setTimeout(done, 300));
    const stoppedAt = Date.now();
    expect(await host.endpoint.handle({ type: 'session.stop', id: 'x', sessionId })).toMatchObject({ ok: true });
    expect(await host.sessions.running).toMatchObject({ status: 'stopped' });
    // Not the 5 s the device takes to start; generous for a loaded machine.
    expect(Date.now() - stoppedAt).toBeLessThan(2_500);
    expect(harness.model.requests).toHaveLength(0);
    // The request is on the blackboard all the same, for a follow-up to build on.
    const board = await host.endpoint.handle({ type: 'blackboard.get', id: 'b', sessionId });
    expect(JSON.stringify(board)).toContain('anything');
  });

  it('a resumed request keeps the steps it used before the crash against its step limit, across two crashes', async () => {
    const wait = app({ Function: 'wait', Args: { seconds: 0 }, Status: 'CONTINUE' });
    const delegate = replies.hostTo('xterm', 'keep waiting');
    const current = await startHarness(
      {
        name: 'budget across crashes',
        steps: [delegate, wait, wait, { ...wait, delayMs: 3_000 }, { ...delegate, delayMs: 3_000 }, delegate, wait, wait, wait, wait],
      },
      { config: { limits: { maxStepsPerRound: 5 } } },
    );
    /** A kill while the model is asked for its `requests`-th reply: the database as a killed host leaves it. */
    const crashAt = async (requests: number): Promise<void> => {
      await until(() => current.model.requests.length === requests, `model request ${requests}`);
      await current.host.close();
      const db = new Database(join(current.dataDir, 'deskhand.sqlite'));
      db.prepare(`UPDATE sessions SET status = 'running'`).run();
      db.prepare(`UPDATE rounds SET status = 'running', result = NULL, ended_at = NULL WHERE idx = (SELECT MAX(idx) FROM rounds)`).run();
      db.close();
      await current.restart();
    };
    const start = await current.host.endpoint.handle({ type: 'session.start', id: 's', request: 'keep waiting' });
    const sessionId = (start as { result: { session: { id: string } } }).result.session.id;
    const resume = async (): Promise<void> => {
      expect(current.host.store.getSession(sessionId)?.status).toBe('interrupted');
      expect(await current.host.endpoint.handle({ type: 'session.resume', id: 'r', sessionId })).toMatchObject({ ok: true });
    };

    await crashAt(4);
    expect(current.host.store.steps(sessionId)).toHaveLength(3);
    await resume();
    // The note that the request was cut off, then a crash again while the host asks the model.
    await crashAt(5);
    expect(current.host.store.steps(sessionId)).toHaveLength(4);
    await resume();
    expect(await current.host.sessions.running).toEqual({ status: 'failed', result: 'Reached the limit of 5 steps for one request' });
    // Three steps, a note, another note: five for the request over three rounds, and no more model calls.
    const steps = current.host.store.steps(sessionId);
    expect(steps.map((step) => `${step.round}:${step.actionText}`).slice(3)).toEqual(['1:Resumed after an interruption', '2:Resumed after an interruption']);
    expect(current.model.requests).toHaveLength(5);
  });

  it('a follow-up after the user used the mouse to ask for it is not taken for a takeover', async () => {
    const harness = await startHarness(
      {
        name: 'click, then a follow-up',
        steps: [
          replies.hostTo('xterm', 'click'),
          app({ Function: 'click', Args: { x: 10, y: 10 }, Status: 'CONTINUE' }),
          app({ Function: '', Status: 'FINISH', Comment: 'clicked' }),
          hostReply({ Status: 'FINISH', Comment: 'first done' }),
          hostReply({ Status: 'FINISH', Comment: 'second done' }),
        ],
      },
      // "The user" moves the mouse after the first round's last screenshot (one per step): to type the
      // follow-up and press Send.
      { deviceEnv: { DESKHAND_FAKE_DEVICE_USER_MOVES_AFTER: 'screenshot#4' } },
    );
    const first = await runRequest(harness.host, 'click it');
    expect(first.outcome).toEqual({ status: 'finished', result: 'first done' });
    expect(first.steps).toHaveLength(4);
    const statuses: string[] = [];
    harness.host.sessions.subscribe((event) => {
      if (event.kind === 'status.changed') statuses.push(event.status);
    });
    const second = await followUp(harness.host, first.sessionId, 'and now this');
    expect(second.outcome).toEqual({ status: 'finished', result: 'second done' });
    expect(statuses).not.toContain('paused');
  });

  it('a result is never the comment of an earlier round or sub-task', async () => {
    const harness = await startHarness({
      name: 'comments',
      steps: [app({ Function: '', Status: 'FINISH', Comment: 'Renamed the three PDFs' }), app({ Function: '', Status: 'FAIL' })],
    });
    const first = await runRequest(harness.host, 'rename them', 'shell');
    expect(first.outcome).toEqual({ status: 'finished', result: 'Renamed the three PDFs' });
    const second = await followUp(harness.host, first.sessionId, 'now delete them');
    expect(second.outcome.status).toBe('failed');
    expect(second.outcome.result).not.toContain('Renamed');
  });

  it('Pause and Resume while the run waits for an answer leave it waiting for the answer', async () => {
    const harness = await startHarness({
      name: 'question',
      steps: [app({ Function: '', Status: 'PENDING', Questions: ['Which file?'] }), app({ Function: '', Status: 'FINISH', Comment: 'ok' })],
    });
    const { host } = harness;
    const start = await host.endpoint.handle({ type: 'session.start', id: 's', request: 'go', mode: 'shell' });
    const sessionId = (start as { result: { session: { id: string } } }).result.session.id;
    const current = harness;
    await until(() => current.host.store.getSession(sessionId)?.status === 'waiting', 'the question');
    expect(await host.endpoint.handle({ type: 'session.pause', id: 'p', sessionId })).toMatchObject({ ok: true, result: { paused: true } });
    expect(host.store.getSession(sessionId)?.status).toBe('paused');
    expect(await host.endpoint.handle({ type: 'session.resume', id: 'r', sessionId })).toMatchObject({ ok: true });
    expect(host.store.getSession(sessionId)?.status).toBe('waiting');
    await host.endpoint.handle({ type: 'session.stop', id: 'x', sessionId });
    await host.sessions.running;
  });

  it('a form in a run without a UI (the CLI) is not waited on for ever: the agent is told nobody can fill it in', async () => {
    const form = { schema: { type: 'object', properties: { name: { type: 'string' } } } };
    const harness = await startHarness(
      {
        name: 'headless form',
        steps: [
          app({ Function: '', Status: 'PENDING', Questions: [], Form: form }),
          { ...app({ Function: '', Status: 'FAIL', Comment: 'needed a name' }), expect: { contains: ['Not filled in: this run has no one to fill in forms'] } },
        ],
      },
      { autoResponder: (interaction) => (interaction.kind === 'questions' ? { kind: 'answers', answers: interaction.questions.map(() => 'no answer given') } : null) },
    );
    const { outcome, sessionId } = await runRequest(harness.host, 'ask me', 'shell');
    expect(outcome).toEqual({ status: 'failed', result: 'needed a name' });
    harness.model.assertDone();
    expect(await harness.host.endpoint.handle({ type: 'session.open', id: 'o', sessionId })).toMatchObject({ ok: true, result: { forms: [{ state: 'closed' }] } });
  });

  it('a step asking questions and showing a form, without a UI: the questions are still answered', async () => {
    const form = { schema: { type: 'object', properties: { name: { type: 'string' } } } };
    const harness = await startHarness(
      {
        name: 'headless questions and form',
        steps: [
          app({ Function: '', Status: 'PENDING', Questions: ['Which folder?'], Form: form }),
          {
            ...app({ Function: '', Status: 'FINISH', Comment: 'used Documents' }),
            expect: { contains: ['Q: "Which folder?" A: Documents', 'Not filled in: this run has no one to fill in forms'] },
          },
        ],
      },
      { autoResponder: (interaction) => (interaction.kind === 'questions' ? { kind: 'answers', answers: interaction.questions.map(() => 'Documents') } : null) },
    );
    const { outcome } = await runRequest(harness.host, 'ask me', 'shell');
    expect(outcome).toEqual({ status: 'finished', result: 'used Documents' });
    harness.model.assertDone();
  });

  it('Stop while the host waits for an opened application\'s window records that it was opened', async () => {
    const harness = await startHarness(
      { name: 'slow app', steps: [hostReply({ Status: 'CONTINUE', 'Current Sub-Task': 'write', AppsToOpen: { APP: 'slowapp', file_path: '' } })] },
      { deviceEnv: { DESKHAND_FAKE_DEVICE_NO_WINDOW_FOR: 'slowapp' } },
    );
    const { host } = harness;
    const start = await host.endpoint.handle({ type: 'session.start', id: 's', request: 'write in slowapp' });
    const sessionId = (start as { result: { session: { id: string } } }).result.session.id;
    const current = harness;
    await until(() => current.deviceActions().some((action) => action.tool === 'launch_app'), 'the launch');
    await new Promise((done) => setTimeout(done, 300));
    await host.endpoint.handle({ type: 'session.stop', id: 'x', sessionId });
    expect(await host.sessions.running).toMatchObject({ status: 'stopped' });
    expect(host.store.steps(sessionId)).toMatchObject([{ agent: 'HostAgent', result: 'Opened slowapp; stopped before its window appeared', error: null }]);
  });
});

describe('rounds: Stop at any moment ends the round', () => {
  it('Stop while the loop reads the pointer, before a step that asks: nothing is asked, the round ends, the next run starts', async () => {
    const harness = await startHarness({
      name: 'stop at the pointer check',
      steps: [hostReply({ Status: 'PENDING', Questions: ['Which file?'] }), hostReply({ Status: 'FINISH', Comment: 'the next one' })],
    });
    const { host } = harness;
    // The pointer check answers null when aborted, rather than throwing: Stop lands while it is under way.
    const { dispatcher } = (host.sessions as unknown as { deps: SessionServiceDeps }).deps;
    const check = dispatcher.checkTakeover.bind(dispatcher);
    let checks = 0;
    dispatcher.checkTakeover = async (signal) => {
      const result = await check(signal);
      // The second check comes after the step that asked; the loop goes on to the state that asks the user.
      if (++checks === 2) await host.endpoint.handle({ type: 'session.stop', id: 'x', sessionId: host.sessions.runningSessionId ?? '' });
      return result;
    };
    const start = await host.endpoint.handle({ type: 'session.start', id: 's', request: 'ask me' });
    const sessionId = (start as { result: { session: { id: string } } }).result.session.id;
    const ended = await Promise.race([host.sessions.running, new Promise((done) => setTimeout(() => done('still running after 5 s'), 5_000))]);
    expect(ended).toEqual({ status: 'stopped', result: 'Stopped by you' });
    expect(checks).toBe(2);
    expect(host.store.getSession(sessionId)?.status).toBe('stopped');
    const afterStop = harness.events.slice(harness.events.findIndex((event) => event.kind === 'status.changed' && event.status === 'stopping'));
    expect(afterStop.filter((event) => event.kind === 'interaction.requested' || (event.kind === 'status.changed' && event.status === 'waiting'))).toEqual([]);
    const open = await host.endpoint.handle({ type: 'session.open', id: 'o', sessionId });
    expect(open).toMatchObject({ ok: true, result: { interactions: [] } });

    dispatcher.checkTakeover = check;
    const next = await runRequest(host, 'the next one');
    expect(next.outcome).toEqual({ status: 'finished', result: 'the next one' });
  });
});

describe('rounds: a session is kept in memory only while its round runs', () => {
  it('lets go of a finished session (blackboard, agents) and builds it again from the store for a follow-up', async () => {
    const harness = await startHarness(
      {
        name: 'released between rounds',
        steps: [
          hostReply({ Status: 'PENDING', Questions: ['Which file?'] }),
          hostReply({ Status: 'FINISH', Comment: 'first done' }),
          // The follow-up sees what the first round left: the answer and the requests; the host's own
          // earlier steps are its history again, not repeated as the blackboard's trajectory.
          {
            ...hostReply({ Status: 'FINISH', Comment: 'second done' }),
            expect: { contains: ['Q: "Which file?" A: a.txt', '1. first request', '2. second request'], notContains: ['Trajectory'] },
          },
        ],
      },
      { autoResponder: (interaction) => (interaction.kind === 'questions' ? { kind: 'answers', answers: ['a.txt'] } : null) },
    );
    const { host } = harness;
    const internals = host.sessions as unknown as { runningSession: object | null };
    const start = await host.endpoint.handle({ type: 'session.start', id: 's', request: 'first request' });
    const sessionId = (start as { result: { session: { id: string } } }).result.session.id;
    // No strong reference here: a local holding the session would keep it alive.
    expect(internals.runningSession === null, 'the round holds its session while it runs').toBe(false);
    const held = new WeakRef(internals.runningSession as object);
    expect(await host.sessions.running).toEqual({ status: 'finished', result: 'first done' });
    for (let i = 0; i < 5 && held.deref(); i++) {
      await new Promise((done) => setTimeout(done, 20));
      gc();
    }
    expect(held.deref(), 'the finished session is still held').toBeUndefined();

    const second = await followUp(host, sessionId, 'second request');
    expect(second.outcome).toEqual({ status: 'finished', result: 'second done' });
    harness.model.assertDone();
    const board = await host.endpoint.handle({ type: 'blackboard.get', id: 'b', sessionId });
    expect(board).toMatchObject({ ok: true, result: { questions: [{ question: 'Which file?', answer: 'a.txt' }], requests: ['first request', 'second request'] } });
  });
});
