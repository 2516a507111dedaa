import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { HostEvent } from '../../src-main/protocol';
import { replies, runRequest, until } from '../support/host-harness';
import { harnessPerTest } from '../support/host-per-test';

const { app, hostTo, host } = replies;
const hostFinish = (comment = 'done') => host({ Status: 'FINISH', Comment: comment });

const startHarness = harnessPerTest();

describe('a session through the host core', () => {
  it('acts only once the step\'s screenshot is on disk: one that cannot be written fails the step, and nothing runs', async () => {
    const harness = await startHarness(
      {
        name: 'screenshot not written',
        steps: [
          // While the host's step waits for this reply, the session's screenshot folder turns into a file.
          { ...hostTo('xterm', 'click'), delayMs: 3_000 },
          app({ Function: 'click', Args: { x: 5, y: 5 }, Status: 'CONTINUE' }),
          app({ Function: 'click', Args: { x: 5, y: 5 }, Status: 'CONTINUE' }),
        ],
      },
      { config: { limits: { maxConsecutiveErrors: 2 } } },
    );
    const { host: deskhand } = harness;
    const start = await deskhand.endpoint.handle({ type: 'session.start', id: 's', request: 'click' });
    const sessionId = (start as { result: { session: { id: string } } }).result.session.id;
    const folder = join(deskhand.screenshots.root, sessionId);
    // Written while the model is asked (a loaded machine may take a while to get there).
    for (let i = 0; i < 250 && !existsSync(join(folder, 'step-00000.jpg')); i++) await new Promise((done) => setTimeout(done, 10));
    expect(existsSync(join(folder, 'step-00000.jpg')), 'the first screenshot was saved').toBe(true);
    rmSync(folder, { recursive: true });
    writeFileSync(folder, 'not a folder');

    const outcome = await deskhand.sessions.running;
    expect(outcome?.status).toBe('error');
    const appSteps = deskhand.store.steps(sessionId).filter((step) => step.agent === 'AppAgent');
    expect(appSteps).toHaveLength(2);
    // Saved without a screenshot: none is on disk to show.
    for (const step of appSteps) expect(step).toMatchObject({ status: 'ERROR', error: expect.stringMatching(/ENOTDIR/), screenshot: null });
    expect(harness.deviceActions().filter((action) => action.tool === 'click')).toEqual([]);
  });

  it('ends a new session in error, saying why, when its first round cannot be saved (it said "running" with nothing running)', async () => {
    const harness = await startHarness({ name: 'round not saved', steps: [] });
    const { host: deskhand } = harness;
    vi.spyOn(deskhand.store, 'startRound').mockImplementation(() => {
      throw new Error('database or disk is full');
    });
    const events: HostEvent[] = [];
    deskhand.sessions.subscribe((event) => events.push(event));
    const reply = await deskhand.endpoint.handle({ type: 'session.start', id: 's', request: 'tidy the desktop' });
    expect(reply).toMatchObject({ ok: false, error: { message: expect.stringMatching(/database or disk is full/) } });
    const [session] = deskhand.store.listSessions(10);
    expect(session).toMatchObject({ status: 'error', result: 'the run could not start: database or disk is full' });
    expect(events.at(-1)).toMatchObject({ kind: 'session.ended', sessionId: session?.id, status: 'error' });
    expect(deskhand.sessions.runningSessionId).toBeNull();
    expect(harness.model.requests).toHaveLength(0);
  });

  it('says the device client did not start, and why, as an error of the round (no internal error, no stack)', async () => {
    const harness = await startHarness({ name: 'no device', steps: [] }, { deviceEnv: { DESKHAND_FAKE_DEVICE_FAILS_TO_START: 'the display went away' } });
    const { outcome } = await runRequest(harness.host, 'look at the screen');
    expect(outcome.status).toBe('error');
    expect(outcome.result).toMatch(/^the device client did not start \(.*\): fake device: the display went away$/s);
    expect(outcome.result).not.toMatch(/internal error|\n\s+at /);
    expect(harness.model.requests).toHaveLength(0);
  });

  it('runs host -> AppAgent (screenshot -> model -> action -> persist) -> host FINISH', async () => {
    const harness = await startHarness({
      name: 'two steps',
      steps: [
        { ...hostTo('xterm', 'type echo hi'), expect: { contains: ['<data name="request">', 'say hi', '<data name="windows">\n- id 0x100001: Terminal [app: xterm]'] } },
        { ...app({ Function: 'type_text', Args: { text: 'echo hi', x: 5, y: 5 }, Status: 'CONTINUE' }), expect: { contains: ['type echo hi', 'You work in the window'] } },
        { ...app({ Function: '', Args: {}, Status: 'FINISH', Comment: 'said hi' }), expect: { contains: ['<data name="history">\nStep 2 [CONTINUE] Type \'echo hi\' at (5, 5)'] } },
        { ...hostFinish('hi was said'), expect: { contains: ['<data name="subtasks">\n1. type echo hi -> AppAgent (Terminal): FINISH, said hi'] } },
      ],
    });
    const { sessionId, outcome, steps } = await runRequest(harness.host, 'say hi');
    expect(outcome).toEqual({ status: 'finished', result: 'hi was said' });
    expect(steps.map((step) => `${step.agent}:${step.status}`)).toEqual(['HostAgent:CONTINUE', 'AppAgent:CONTINUE', 'AppAgent:FINISH', 'HostAgent:FINISH']);
    expect(steps[1]).toMatchObject({ target: 'Terminal', subtask: 'type echo hi', approvedBy: 'policy' });
    // The AppAgent's screenshot is cropped to its window; the host's is the whole desktop.
    expect(steps[0]?.screenshot).toMatchObject({ sessionId, width: 640, height: 400 });
    expect(steps[1]?.screenshot).toMatchObject({ width: 320, height: 200 });
    expect(steps[1]?.phaseMs).toHaveProperty('LLM_INTERACTION');
    // Of asking the model, the wait for its reply, listed right after it.
    const phases = Object.keys(steps[1]?.phaseMs ?? {});
    expect(phases.slice(phases.indexOf('LLM_INTERACTION'), phases.indexOf('LLM_INTERACTION') + 2)).toEqual(['LLM_INTERACTION', 'MODEL_REPLY']);
    expect(steps[1]?.phaseMs.MODEL_REPLY).toBeGreaterThan(0);
    expect(steps[1]?.phaseMs.MODEL_REPLY).toBeLessThanOrEqual(steps[1]?.phaseMs.LLM_INTERACTION ?? 0);
    // An action aimed at a point is drawn on a copy of the step's screenshot; a step without one has none.
    expect(steps[1]?.annotated).toMatchObject({ file: expect.stringMatching(/^step-00001-annotated\.jpg$/), width: 320, height: 200 });
    expect(existsSync(harness.host.screenshots.pathOf(sessionId, steps[1]!.annotated!.file)!)).toBe(true);
    expect(steps[2]?.annotated).toBeNull();
    expect(harness.deviceActions()).toEqual([
      { tool: 'focus_window', args: { id: '0x100001' } },
      { tool: 'type_text', args: { text: 'echo hi', x: 5, y: 5 } },
    ]);
    expect(harness.model.requests.every((request) => request.images === 1)).toBe(true);
    harness.model.assertDone();
    const kinds = harness.events.map((event) => event.kind);
    expect(kinds[0]).toBe('session.started');
    expect(kinds.filter((kind) => kind === 'step.added')).toHaveLength(4);
    expect(kinds.at(-1)).toBe('session.ended');
    const audit = harness.host.audit.list(sessionId);
    expect(audit.map((row) => `${row.tool}:${row.decision}:${row.status}`)).toEqual(['focus_window:allowed:success', 'type_text:allowed:success']);
  });

  it('keeps each agent\'s system prompt byte-identical from step to step', async () => {
    const harness = await startHarness({
      name: 'stable prefix',
      steps: [
        hostTo('xterm', 'wait'),
        app({ Function: 'wait', Args: { seconds: 0 }, Status: 'CONTINUE' }),
        app({ Function: 'wait', Args: { seconds: 0 }, Status: 'CONTINUE' }),
        app({ Function: '', Status: 'FINISH' }),
        hostFinish(),
      ],
    });
    await runRequest(harness.host, 'wait twice');
    const systems = harness.model.requests.map((request) => JSON.stringify(request.body.messages[0]));
    const appSystems = systems.slice(1, 4);
    expect(new Set(appSystems).size).toBe(1);
    expect(systems[0]).toBe(systems[4]);
    expect(appSystems[0]).toContain('- click(');
    expect(appSystems[0]).not.toContain('- screenshot(');
  });

  it('repairs a reply that is not JSON once, then records a clear ERROR step and runs nothing', async () => {
    const harness = await startHarness({
      name: 'not json',
      steps: [
        hostTo('xterm', 'click it'),
        { content: 'Sure! I will click the button now.' },
        { content: 'Still not JSON.', expect: { contains: ['Your reply could not be used', 'not valid JSON'] } },
        { ...app({ Function: '', Status: 'FINISH' }), expect: { contains: ['Your last step failed', 'not valid JSON'] } },
        hostFinish(),
      ],
    });
    const { outcome, steps } = await runRequest(harness.host, 'click it');
    expect(steps[1]).toMatchObject({ status: 'ERROR', action: null, agent: 'AppAgent' });
    expect(steps[1]?.error).toMatch(/invalid model reply: the reply is not valid JSON/);
    // The failed step still counts both of its replies: the first one and the repaired one.
    const [, first, repaired] = harness.model.requests;
    const rough = (text: string): number => Math.ceil(text.length / 4);
    expect(steps[1]?.tokens).toEqual({
      prompt: rough(first?.text ?? '') + rough(repaired?.text ?? ''),
      completion: rough('Sure! I will click the button now.') + rough('Still not JSON.'),
    });
    expect(outcome.status).toBe('finished');
    expect(harness.deviceActions().filter((action) => action.tool !== 'focus_window')).toEqual([]);
  });

  it('accepts a repaired reply within the same step', async () => {
    const harness = await startHarness({
      name: 'repair',
      steps: [
        hostTo('xterm', 'wait'),
        app({ Function: 'wait', Args: { seconds: 0 }, Status: 'EXPLODE' }),
        { ...app({ Function: 'wait', Args: { seconds: 0 }, Status: 'CONTINUE' }), expect: { contains: ['Status'] } },
        app({ Function: '', Status: 'FINISH' }),
        hostFinish(),
      ],
    });
    const { steps } = await runRequest(harness.host, 'wait');
    expect(steps[1]).toMatchObject({ status: 'CONTINUE', error: null });
    expect(harness.deviceActions().map((action) => action.tool)).toEqual(['focus_window', 'wait']);
  });

  it('refuses an unknown tool with the list of real ones and runs nothing; three in a row end the round', async () => {
    const bad = app({ Function: 'format_disk', Args: { drive: 'C' }, Status: 'CONTINUE' });
    const harness = await startHarness({ name: 'unknown tool', steps: [hostTo('xterm', 'wipe'), bad, bad, bad, bad, bad, bad] });
    const { outcome, steps } = await runRequest(harness.host, 'wipe it');
    const appSteps = steps.filter((step) => step.agent === 'AppAgent');
    expect(appSteps).toHaveLength(3);
    for (const step of appSteps) {
      expect(step.status).toBe('ERROR');
      expect(step.error).toMatch(/unknown tool 'format_disk'; available tools: .*click/);
    }
    expect(outcome.status).toBe('error');
    expect(outcome.result).toMatch(/3 failed steps in a row/);
    expect(harness.deviceActions().filter((action) => action.tool !== 'focus_window')).toEqual([]);
  });

  it('does not let the model call the tools the host keeps to itself: a screenshot inside a sequence would move later clicks', async () => {
    const sneaky = app({
      Function: '',
      Actions: [
        { Function: 'screenshot', Args: {} },
        { Function: 'click', Args: { x: 5, y: 5 } },
      ],
      Status: 'CONTINUE',
    });
    const done = app({ Function: '', Status: 'FINISH', Comment: 'gave up' });
    const harness = await startHarness({ name: 'host-only tools', steps: [hostTo('xterm', 'look'), sneaky, done, host({ Status: 'FINISH', Comment: 'done' })] });
    const { steps } = await runRequest(harness.host, 'look around');
    const refused = steps.find((step) => step.agent === 'AppAgent' && step.status === 'ERROR');
    expect(refused?.error).toMatch(/^action 1: unknown tool 'screenshot'; available tools: /);
    expect(refused?.error).not.toMatch(/available tools: .*\b(screenshot|list_windows|focus_window|pointer|list_displays)\b/);
    expect(harness.deviceActions().filter((action) => action.tool !== 'focus_window')).toEqual([]);
  });

  it('ends at the step limit', async () => {
    const wait = app({ Function: 'wait', Args: { seconds: 0 }, Status: 'CONTINUE' });
    const harness = await startHarness(
      { name: 'limit', steps: [hostTo('xterm', 'wait'), wait, wait, wait] },
      { config: { limits: { maxStepsPerRound: 3 } } },
    );
    const { outcome } = await runRequest(harness.host, 'wait forever');
    expect(outcome).toEqual({ status: 'failed', result: 'Reached the limit of 3 steps for one request' });
  });

  it('ends at the step limit saying what the last finished sub-task achieved, shortened', async () => {
    const wait = app({ Function: 'wait', Args: { seconds: 0 }, Status: 'CONTINUE' });
    const found = `Found 42 reports from March: ${'report-2026-03-xx.pdf, '.repeat(40)}and no others`;
    const harness = await startHarness(
      {
        name: 'limit after a sub-task',
        steps: [hostTo('xterm', 'find the March reports'), app({ Status: 'FINISH', Comment: found }), hostTo('xterm', 'wait for the copy'), wait, wait],
      },
      { config: { limits: { maxStepsPerRound: 5 } } },
    );
    const { outcome } = await runRequest(harness.host, 'copy the March reports');
    expect(outcome.status).toBe('failed');
    expect(outcome.result).toMatch(/^Reached the limit of 5 steps for one request\. /);
    expect(outcome.result).toContain('find the March reports');
    expect(outcome.result).toContain('Found 42 reports from March: report-2026-03-xx.pdf');
    // Shortened: the whole of a long result is in the sub-task's steps, not the outcome.
    expect(outcome.result).not.toContain('and no others');
    expect(outcome.result?.length).toBeLessThan(700);
  });

  it('ends at the step limit with the result of a sub-task that finished at its last step', async () => {
    const harness = await startHarness(
      { name: 'limit at a finished sub-task', steps: [hostTo('xterm', 'count the reports'), app({ Status: 'FINISH', Comment: 'There are 42 reports' })] },
      { config: { limits: { maxStepsPerRound: 2 } } },
    );
    const { outcome } = await runRequest(harness.host, 'count the reports');
    expect(outcome).toEqual({ status: 'failed', result: 'Reached the limit of 2 steps for one request. The last finished sub-task (count the reports): There are 42 reports' });
  });

  it('stops with the model request in flight aborted', async () => {
    const harness = await startHarness({ name: 'hang', steps: [{ hang: true }] });
    const reply = await harness.host.endpoint.handle({ type: 'session.start', id: 'a', request: 'hang' });
    if (reply.type !== 'reply' || !reply.ok) throw new Error('start refused');
    const { session } = reply.result as { session: { id: string } };
    while (harness.model.inFlight() === 0) await new Promise((done) => setTimeout(done, 20));
    const stop = await harness.host.endpoint.handle({ type: 'session.stop', id: 'b', sessionId: session.id });
    expect(stop).toMatchObject({ ok: true, result: { stopped: true } });
    expect(await harness.host.sessions.running).toEqual({ status: 'stopped', result: 'Stopped by you' });
    while (harness.model.inFlight() > 0) await new Promise((done) => setTimeout(done, 20));
    expect(harness.host.store.getSession(session.id)?.status).toBe('stopped');
  });

  it('counts the tokens of a malformed reply when Stop comes while its repair is asked for', async () => {
    const malformed = 'Sure! I will open the terminal now.';
    const harness = await startHarness({ name: 'stop during repair', steps: [{ content: malformed }, { hang: true }] }, { prices: { input: 2, output: 10 } });
    const { host: deskhand, model } = harness;
    const reply = await deskhand.endpoint.handle({ type: 'session.start', id: 'a', request: 'open a terminal' });
    if (reply.type !== 'reply' || !reply.ok) throw new Error('start refused');
    const { session } = reply.result as { session: { id: string } };
    await until(() => model.requests.length === 2 && model.inFlight() === 1, 'the repair request');
    expect(model.requests[1]?.text).toContain('Your reply could not be used');
    await deskhand.endpoint.handle({ type: 'session.stop', id: 'b', sessionId: session.id });
    expect(await deskhand.sessions.running).toEqual({ status: 'stopped', result: 'Stopped by you' });
    // The scripted server counts a token per four characters of the request's messages and of the reply.
    const tokens = { prompt: Math.ceil((model.requests[0]?.text.length ?? 0) / 4), completion: Math.ceil(malformed.length / 4) };
    const stored = deskhand.store.getSession(session.id);
    expect(stored).toMatchObject({ stepCount: 0, tokens });
    expect(stored?.costUsd).toBeCloseTo((tokens.prompt * 2 + tokens.completion * 10) / 1_000_000, 12);
    const updates = harness.events.filter((event) => event.kind === 'session.updated' && event.session.id === session.id);
    expect(updates.at(-1)).toMatchObject({ session: { tokens } });
  });

  it('keeps sessions and steps across a restart and refuses a second concurrent run', async () => {
    const harness = await startHarness({ name: 'persist', steps: [{ delayMs: 300, ...hostFinish() }] });
    const first = await harness.host.endpoint.handle({ type: 'session.start', id: 'a', request: 'one' });
    const second = await harness.host.endpoint.handle({ type: 'session.start', id: 'b', request: 'two' });
    expect(first).toMatchObject({ ok: true });
    expect(second).toMatchObject({ ok: false, error: { code: 'conflict' } });
    await harness.host.sessions.running;
    const restarted = await harness.restart();
    const list = await restarted.endpoint.handle({ type: 'session.list', id: 'c' });
    expect(list).toMatchObject({ ok: true, result: { sessions: [{ title: 'one', status: 'finished', stepCount: 1 }] } });
  });

  it('answers malformed protocol messages with an error and keeps working', async () => {
    const harness = await startHarness({ name: 'none', steps: [] });
    const { endpoint } = harness.host;
    expect(await endpoint.handleText('{not json')).toMatchObject({ ok: false, id: null, error: { code: 'bad_message' } });
    expect(await endpoint.handle({ type: 'session.start', id: 'x', request: '   ' })).toMatchObject({
      ok: false,
      id: 'x',
      error: { code: 'bad_message', message: expect.stringMatching(/empty/) },
    });
    expect(await endpoint.handle({ type: 'rm -rf', id: 'y' })).toMatchObject({ ok: false, id: 'y' });
    expect(await endpoint.handle({ type: 'session.list', id: 'z', extra: 1 })).toMatchObject({ ok: false });
    expect(await endpoint.handle({ type: 'session.open', id: 'w', sessionId: 'nope' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(await endpoint.handle({ type: 'session.list', id: 'v' })).toMatchObject({ ok: true, result: { sessions: [] } });
  });
});
