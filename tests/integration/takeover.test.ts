import { describe, expect, it } from 'vitest';
import { replies, runRequest, until, type HostHarness } from '../support/host-harness';
import { harnessPerTest } from '../support/host-per-test';

const { app, hostTo, host } = replies;

const startHarness = harnessPerTest();

/** Starts a session on the harness's host and waits until the run pauses for a takeover. */
async function startUntilPaused(current: HostHarness, request: string): Promise<string> {
  const start = await current.host.endpoint.handle({ type: 'session.start', id: 's', request });
  const sessionId = (start as { result: { session: { id: string } } }).result.session.id;
  await until(() => current.host.store.getSession(sessionId)?.status === 'paused', 'the pause');
  return sessionId;
}

/** The actions that reached the device, without the window focusing the AppAgent does on its own. */
function acted(current: HostHarness): string[] {
  return current
    .deviceActions()
    .map((action) => action.tool)
    .filter((tool) => tool !== 'focus_window');
}

describe('takeover: the user takes the mouse', () => {
  it('pauses the run before the next step, says why, and goes on only when resumed', async () => {
    const harness = await startHarness(
      {
        name: 'takeover',
        steps: [
          hostTo('xterm', 'click twice'),
          app({ Function: 'click', Args: { x: 10, y: 10 }, Status: 'CONTINUE' }),
          app({ Function: 'click', Args: { x: 20, y: 20 }, Status: 'CONTINUE' }),
          app({ Function: '', Status: 'FINISH' }),
          host({ Status: 'FINISH', Comment: 'done' }),
        ],
      },
      // "The user" moves the pointer away right after the agent's first click.
      { deviceEnv: { DESKHAND_FAKE_DEVICE_USER_MOVES_AFTER: 'click' } },
    );
    const { host: deskhand } = harness;
    const sessionId = await startUntilPaused(harness, 'click twice');
    const notice = harness.events.find((event) => event.kind === 'status.changed' && event.status === 'paused');
    expect(notice).toMatchObject({ detail: expect.stringMatching(/you have taken the mouse, so the run is paused/), pause: 'takeover' });
    // Paused after the first click: the model was not asked for the next step.
    expect(harness.model.requests).toHaveLength(2);
    await new Promise((done) => setTimeout(done, 300));
    expect(harness.model.requests).toHaveLength(2);
    expect(harness.deviceActions().filter((action) => action.tool === 'click')).toHaveLength(1);

    expect(await deskhand.endpoint.handle({ type: 'session.resume', id: 'r', sessionId })).toMatchObject({ ok: true });
    const outcome = await deskhand.sessions.running;
    expect(outcome).toEqual({ status: 'finished', result: 'done' });
    expect(harness.deviceActions().filter((action) => action.tool === 'click')).toHaveLength(2);
    // The user may have clicked elsewhere meanwhile: the window is brought to the front again.
    expect(harness.deviceActions().map((action) => action.tool)).toEqual(['focus_window', 'click', 'focus_window', 'click']);
  });

  it('refuses the action on the device when the mouse was taken while the model was thinking', async () => {
    const harness = await startHarness(
      {
        name: 'takeover mid-step',
        steps: [
          hostTo('xterm', 'click twice'),
          app({ Function: 'click', Args: { x: 10, y: 10 }, Status: 'CONTINUE' }),
          app({ Function: 'click', Args: { x: 20, y: 20 }, Status: 'CONTINUE' }),
          app({ Function: 'click', Args: { x: 20, y: 20 }, Status: 'CONTINUE' }),
          app({ Function: '', Status: 'FINISH' }),
          host({ Status: 'FINISH', Comment: 'done' }),
        ],
      },
      // Screenshots: the host's, then one per AppAgent step. "The user" moves the pointer right after the
      // third, so that step's own screenshot still shows the pointer where the agent left it.
      { deviceEnv: { DESKHAND_FAKE_DEVICE_USER_MOVES_AFTER: 'screenshot#3' } },
    );
    const { host: deskhand } = harness;
    const sessionId = await startUntilPaused(harness, 'click twice');
    expect(harness.model.requests).toHaveLength(3);
    expect(harness.deviceActions().filter((action) => action.tool === 'click')).toEqual([{ tool: 'click', args: { x: 10, y: 10 } }]);
    const refused = deskhand.store.steps(sessionId).at(-1);
    expect(refused).toMatchObject({ status: 'ERROR', action: { function: 'click' } });
    expect(refused?.error).toMatch(/^not run: The pointer moved from \(10, 10\).*to \(210, 110\).*you have taken the mouse/);

    expect(await deskhand.endpoint.handle({ type: 'session.resume', id: 'r', sessionId })).toMatchObject({ ok: true });
    expect(await deskhand.sessions.running).toEqual({ status: 'finished', result: 'done' });
    expect(harness.deviceActions().filter((action) => action.tool === 'click')).toHaveLength(2);
  });

  it('does not count actions refused because the user took the mouse as the agent\'s errors', async () => {
    // The user takes the mouse while the model thinks, three steps running: each time the run pauses
    // and is resumed. Three errors in a row end a round; these three are not the agent's.
    const harness = await startHarness(
      {
        name: 'takeover three times',
        steps: [
          hostTo('xterm', 'click'),
          ...[1, 2, 3, 4].map((n) => app({ Function: 'click', Args: { x: 10 * n, y: 10 }, Status: 'CONTINUE' })),
          app({ Function: '', Status: 'FINISH' }),
          host({ Status: 'FINISH', Comment: 'done' }),
        ],
      },
      { deviceEnv: { DESKHAND_FAKE_DEVICE_USER_MOVES_AFTER: 'screenshot#2,screenshot#3,screenshot#4' } },
    );
    const { host: deskhand } = harness;
    const sessionId = await startUntilPaused(harness, 'click');
    for (let resumed = 1; resumed < 3; resumed++) {
      expect(await deskhand.endpoint.handle({ type: 'session.resume', id: `r${resumed}`, sessionId })).toMatchObject({ ok: true });
      await until(() => deskhand.store.steps(sessionId).filter((step) => step.status === 'ERROR').length === resumed + 1, 'the next refusal');
      await until(() => deskhand.store.getSession(sessionId)?.status === 'paused', 'the pause');
    }
    expect(await deskhand.endpoint.handle({ type: 'session.resume', id: 'r3', sessionId })).toMatchObject({ ok: true });
    expect(await deskhand.sessions.running).toEqual({ status: 'finished', result: 'done' });
    expect(deskhand.store.steps(sessionId).filter((step) => step.status === 'ERROR')).toHaveLength(3);
    expect(harness.deviceActions().filter((action) => action.tool === 'click')).toEqual([{ tool: 'click', args: { x: 40, y: 10 } }]);
  });

  it('notices the mouse taken during an action that does not move it (a wait)', async () => {
    const harness = await startHarness(
      {
        name: 'takeover during a wait',
        steps: [
          hostTo('xterm', 'click, wait, click'),
          app({ Function: 'click', Args: { x: 10, y: 10 }, Status: 'CONTINUE' }),
          app({ Function: 'wait', Args: { seconds: 0 }, Status: 'CONTINUE' }),
          app({ Function: 'click', Args: { x: 20, y: 20 }, Status: 'CONTINUE' }),
          app({ Function: '', Status: 'FINISH' }),
          host({ Status: 'FINISH', Comment: 'done' }),
        ],
      },
      { deviceEnv: { DESKHAND_FAKE_DEVICE_USER_MOVES_DURING: 'wait' } },
    );
    const { host: deskhand } = harness;
    const sessionId = await startUntilPaused(harness, 'click, wait, click');
    expect(harness.model.requests).toHaveLength(3);
    expect(acted(harness)).toEqual(['click', 'wait']);
    expect(await deskhand.endpoint.handle({ type: 'session.resume', id: 'r', sessionId })).toMatchObject({ ok: true });
    expect(await deskhand.sessions.running).toEqual({ status: 'finished', result: 'done' });
    expect(acted(harness)).toEqual(['click', 'wait', 'click']);
  });

  it('runs nothing more of an action sequence once the mouse is taken part-way through it', async () => {
    const harness = await startHarness(
      {
        name: 'takeover mid-sequence',
        steps: [
          hostTo('xterm', 'click, wait, click'),
          app({
            Function: '',
            Status: 'CONTINUE',
            Actions: [
              { Function: 'click', Args: { x: 10, y: 10 } },
              { Function: 'wait', Args: { seconds: 0 } },
              { Function: 'click', Args: { x: 20, y: 20 } },
            ],
          }),
          app({ Function: 'click', Args: { x: 20, y: 20 }, Status: 'CONTINUE' }),
          app({ Function: '', Status: 'FINISH' }),
          host({ Status: 'FINISH', Comment: 'done' }),
        ],
      },
      { deviceEnv: { DESKHAND_FAKE_DEVICE_USER_MOVES_DURING: 'wait' } },
    );
    const { host: deskhand } = harness;
    const sessionId = await startUntilPaused(harness, 'click, wait, click');
    expect(acted(harness)).toEqual(['click', 'wait']);
    const step = deskhand.store.steps(sessionId).at(-1);
    expect(step).toMatchObject({ status: 'ERROR', error: expect.stringMatching(/^not run: The pointer moved .*you have taken the mouse/) });
    expect(await deskhand.endpoint.handle({ type: 'session.resume', id: 'r', sessionId })).toMatchObject({ ok: true });
    expect(await deskhand.sessions.running).toEqual({ status: 'finished', result: 'done' });
    expect(acted(harness)).toEqual(['click', 'wait', 'click']);
  });

  it('notices the mouse taken while an application starts', async () => {
    const harness = await startHarness(
      {
        name: 'takeover during a launch',
        steps: [
          hostTo('xterm', 'click'),
          app({ Function: 'click', Args: { x: 10, y: 10 }, Status: 'CONTINUE' }),
          app({ Function: '', Status: 'FINISH' }),
          host({ Status: 'CONTINUE', 'Current Sub-Task': 'write hello', AppsToOpen: { APP: 'gedit', file_path: '' } }),
          app({ Function: 'click', Args: { x: 20, y: 20 }, Status: 'CONTINUE' }),
          app({ Function: '', Status: 'FINISH' }),
          host({ Status: 'FINISH', Comment: 'done' }),
        ],
      },
      { deviceEnv: { DESKHAND_FAKE_DEVICE_USER_MOVES_DURING: 'launch_app' } },
    );
    const { host: deskhand } = harness;
    const sessionId = await startUntilPaused(harness, 'click, open gedit, click');
    expect(acted(harness)).toEqual(['click', 'launch_app']);
    const notice = harness.events.find((event) => event.kind === 'status.changed' && event.status === 'paused');
    expect(notice).toMatchObject({ detail: expect.stringMatching(/^The pointer moved from \(10, 10\).*to \(210, 110\)/) });
    // The gedit AppAgent was not asked for its first step while paused.
    expect(harness.model.requests).toHaveLength(4);

    expect(await deskhand.endpoint.handle({ type: 'session.resume', id: 'r', sessionId })).toMatchObject({ ok: true });
    expect(await deskhand.sessions.running).toEqual({ status: 'finished', result: 'done' });
    expect(acted(harness)).toEqual(['click', 'launch_app', 'click']);
  });

  it('does not mistake the agent\'s own pointer moves for a takeover', async () => {
    const harness = await startHarness({
      name: 'no takeover',
      steps: [
        hostTo('xterm', 'click twice'),
        app({ Function: 'click', Args: { x: 10, y: 10 }, Status: 'CONTINUE' }),
        app({ Function: 'click', Args: { x: 200, y: 150 }, Status: 'CONTINUE' }),
        app({ Function: '', Status: 'FINISH' }),
        host({ Status: 'FINISH', Comment: 'done' }),
      ],
    });
    const { outcome } = await runRequest(harness.host, 'click twice');
    expect(outcome.status).toBe('finished');
    expect(harness.events.some((event) => event.kind === 'status.changed' && event.status === 'paused')).toBe(false);
  });
});
