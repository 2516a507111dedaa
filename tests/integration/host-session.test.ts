import { afterEach, describe, expect, it } from 'vitest';
import { runRequest, startHostHarness, type HostHarness } from '../support/host-harness';

const reply = (fields: Record<string, unknown>) => ({
  json: { Observation: 'a terminal', Thought: 'next', ControlLabel: '', ControlText: '', Plan: [], Comment: '', ...fields },
});

let harness: HostHarness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

describe('a session through the host core', () => {
  it('runs screenshot -> model -> action -> persist until FINISH', async () => {
    harness = await startHostHarness({
      name: 'two steps',
      steps: [
        { ...reply({ Function: 'type_text', Args: { text: 'echo hi\n' }, Status: 'CONTINUE' }), expect: { contains: ['<data name="request">', 'say hi'] } },
        { ...reply({ Function: '', Args: {}, Status: 'FINISH', Comment: 'said hi' }), expect: { contains: ["Type 'echo hi'"] } },
      ],
    });
    const { sessionId, outcome, steps } = await runRequest(harness.host, 'say hi');
    expect(outcome).toEqual({ status: 'finished', result: 'said hi' });
    expect(steps.map((step) => step.status)).toEqual(['CONTINUE', 'FINISH']);
    expect(steps[0]?.screenshot).toMatchObject({ sessionId, width: 640, height: 400 });
    expect(steps[0]?.tokens.prompt).toBeGreaterThan(0);
    expect(harness.deviceActions()).toEqual([{ tool: 'type_text', args: { text: 'echo hi\n' } }]);
    expect(harness.model.requests.every((request) => request.images === 1)).toBe(true);
    harness.model.assertDone();
    const kinds = harness.events.map((event) => event.kind);
    expect(kinds[0]).toBe('session.started');
    expect(kinds.filter((kind) => kind === 'step.added')).toHaveLength(2);
    expect(kinds.at(-1)).toBe('session.ended');
  });

  it('keeps the system prompt byte-identical from step to step', async () => {
    harness = await startHostHarness({
      name: 'stable prefix',
      steps: [
        reply({ Function: 'wait', Args: { seconds: 0 }, Status: 'CONTINUE' }),
        reply({ Function: 'wait', Args: { seconds: 0 }, Status: 'CONTINUE' }),
        reply({ Function: '', Status: 'FINISH' }),
      ],
    });
    await runRequest(harness.host, 'wait twice');
    const systems = harness.model.requests.map((request) => JSON.stringify(request.body.messages[0]));
    expect(new Set(systems).size).toBe(1);
    expect(systems[0]).toContain('- click(');
  });

  it('records a clear ERROR step for a reply that is not JSON, runs nothing, and feeds the error back', async () => {
    harness = await startHostHarness({
      name: 'not json',
      steps: [
        { content: 'Sure! I will click the button now.' },
        { ...reply({ Function: '', Status: 'FINISH' }), expect: { contains: ['Your last step failed', 'not valid JSON'] } },
      ],
    });
    const { outcome, steps } = await runRequest(harness.host, 'click it');
    expect(steps[0]).toMatchObject({ status: 'ERROR', action: null });
    expect(steps[0]?.error).toMatch(/invalid model reply: the reply is not valid JSON/);
    expect(outcome.status).toBe('finished');
    expect(harness.deviceActions()).toEqual([]);
  });

  it('refuses an unknown tool with the list of real ones and runs nothing', async () => {
    harness = await startHostHarness({
      name: 'unknown tool',
      steps: [
        reply({ Function: 'format_disk', Args: { drive: 'C' }, Status: 'CONTINUE' }),
        reply({ Function: 'format_disk', Args: { drive: 'C' }, Status: 'CONTINUE' }),
        reply({ Function: 'format_disk', Args: { drive: 'C' }, Status: 'CONTINUE' }),
      ],
    });
    const { outcome, steps } = await runRequest(harness.host, 'wipe it');
    expect(steps).toHaveLength(3);
    for (const step of steps) {
      expect(step.status).toBe('ERROR');
      expect(step.error).toMatch(/unknown tool 'format_disk'; available tools: .*click/);
    }
    expect(outcome.status).toBe('error');
    expect(outcome.result).toMatch(/3 failed steps in a row/);
    expect(harness.deviceActions()).toEqual([]);
  });

  it('refuses bad arguments for a real tool', async () => {
    harness = await startHostHarness(
      { name: 'bad args', steps: [reply({ Function: 'click', Args: { x: 'left', y: 3 }, Status: 'CONTINUE' })] },
      { config: { limits: { maxStepsPerRound: 30, maxConsecutiveErrors: 1 } } },
    );
    const { steps } = await runRequest(harness.host, 'click');
    expect(steps[0]?.error).toMatch(/invalid arguments for click: x:/);
    expect(harness.deviceActions()).toEqual([]);
  });

  it('never runs an action the model marked CONFIRM', async () => {
    harness = await startHostHarness({
      name: 'confirm',
      steps: [reply({ Function: 'hotkey', Args: { keys: ['ctrl', 'w'] }, Status: 'CONFIRM' })],
    });
    const { outcome, steps } = await runRequest(harness.host, 'close it');
    expect(steps[0]?.status).toBe('CONFIRM');
    expect(outcome.status).toBe('stopped');
    expect(harness.deviceActions()).toEqual([]);
  });

  it('ends at the step limit', async () => {
    harness = await startHostHarness(
      {
        name: 'limit',
        steps: [
          reply({ Function: 'wait', Args: { seconds: 0 }, Status: 'CONTINUE' }),
          reply({ Function: 'wait', Args: { seconds: 0 }, Status: 'CONTINUE' }),
        ],
      },
      { config: { limits: { maxStepsPerRound: 2, maxConsecutiveErrors: 3 } } },
    );
    const { outcome } = await runRequest(harness.host, 'wait forever');
    expect(outcome).toEqual({ status: 'failed', result: 'Reached the limit of 2 steps' });
  });

  it('stops with the model request in flight aborted', async () => {
    harness = await startHostHarness({ name: 'hang', steps: [{ hang: true }] });
    const reply = await harness.host.endpoint.handle({ type: 'session.start', id: 'a', request: 'hang' });
    if (reply.type !== 'reply' || !reply.ok) throw new Error('start refused');
    const { session } = reply.result as { session: { id: string } };
    while (harness.model.inFlight() === 0) await new Promise((done) => setTimeout(done, 20));
    const stop = await harness.host.endpoint.handle({ type: 'session.stop', id: 'b', sessionId: session.id });
    expect(stop).toMatchObject({ ok: true, result: { stopped: true } });
    expect(await harness.host.sessions.running).toEqual({ status: 'stopped', result: 'Stopped by the user' });
    while (harness.model.inFlight() > 0) await new Promise((done) => setTimeout(done, 20));
    expect(harness.host.store.getSession(session.id)?.status).toBe('stopped');
  });

  it('keeps sessions and steps across a restart and refuses a second concurrent run', async () => {
    harness = await startHostHarness({
      name: 'persist',
      steps: [reply({ Function: 'wait', Args: { seconds: 0 }, Status: 'CONTINUE' }), { delayMs: 300, ...reply({ Function: '', Status: 'FINISH' }) }],
    });
    const first = await harness.host.endpoint.handle({ type: 'session.start', id: 'a', request: 'one' });
    const second = await harness.host.endpoint.handle({ type: 'session.start', id: 'b', request: 'two' });
    expect(first).toMatchObject({ ok: true });
    expect(second).toMatchObject({ ok: false, error: { code: 'conflict' } });
    await harness.host.sessions.running;
    const host = await harness.restart();
    const list = await host.endpoint.handle({ type: 'session.list', id: 'c' });
    expect(list).toMatchObject({ ok: true, result: { sessions: [{ title: 'one', status: 'finished', stepCount: 2 }] } });
  });

  it('answers malformed protocol messages with an error and keeps working', async () => {
    harness = await startHostHarness({ name: 'none', steps: [] });
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
