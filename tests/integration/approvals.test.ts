import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Interaction } from '../../src-main/protocol';
import type { AutoResponder } from '../../src-main/session/interaction-broker';
import { replies, runRequest, until, type HostHarness } from '../support/host-harness';
import { harnessPerTest } from '../support/host-per-test';

const { app, hostTo, host } = replies;
const approve: AutoResponder = (interaction) => (interaction.kind === 'confirm' ? { kind: 'decision', approved: true, note: null } : null);
const reject: AutoResponder = (interaction) => (interaction.kind === 'confirm' ? { kind: 'decision', approved: false, note: null } : null);

const startHarness = harnessPerTest();

const tools = (current: HostHarness): string[] => current.deviceActions().map((action) => action.tool);

const requested = (current: HostHarness, kind: Interaction['kind']): Interaction | undefined => {
  const event = current.events.find((candidate) => candidate.kind === 'interaction.requested' && candidate.interaction.kind === kind);
  return event?.kind === 'interaction.requested' ? event.interaction : undefined;
};

describe('approvals: what the user approves is what runs, where they meant it', () => {
  it('holds a sequence when one of its actions names a sensitive control or says CONFIRM itself', async () => {
    const harness = await startHarness(
      {
        name: 'sequence held by one action',
        steps: [
          hostTo('xterm', 'clean up'),
          app({
            Function: '',
            Status: 'CONTINUE',
            ControlText: '',
            Actions: [
              { Function: 'wait', Args: { seconds: 0 } },
              { Function: 'click', Args: { x: 5, y: 5 }, ControlText: 'Delete all' },
            ],
          }),
          app({
            Function: '',
            Status: 'CONTINUE',
            Actions: [
              { Function: 'wait', Args: { seconds: 0 } },
              { Function: 'click', Args: { x: 6, y: 6 }, Status: 'CONFIRM' },
            ],
          }),
          app({ Function: '', Status: 'FINISH' }),
          host({ Status: 'FINISH', Comment: 'done' }),
        ],
      },
      { autoResponder: reject },
    );
    const { outcome, steps, sessionId } = await runRequest(harness.host, 'clean up');
    expect(outcome.status).toBe('finished');
    expect(steps.filter((step) => step.status === 'CONFIRM').map((step) => step.result)).toEqual([
      "Held for your approval: rule: control text 'Delete'",
      'Held for your approval: the model asked for confirmation',
    ]);
    // Rejected: not even the harmless first action of either sequence ran (after each decision the
    // window is brought to the front again).
    expect(tools(harness)).toEqual(['focus_window', 'focus_window', 'focus_window']);
    const refused = harness.host.audit.list(sessionId).filter((row) => row.decision === 'rejected');
    expect(refused.map((row) => row.tool)).toEqual(['wait', 'click', 'wait', 'click']);
  });

  it('brings the window to the front again before running an approved action', async () => {
    const harness = await startHarness(
      {
        name: 'approved hotkey',
        steps: [
          hostTo('xterm', 'close the tab'),
          app({ Function: 'hotkey', Args: { keys: ['ctrl', 'w'] }, Status: 'CONTINUE' }),
          app({ Function: 'click', Args: { x: 5, y: 5 }, Status: 'CONTINUE' }),
          app({ Function: '', Status: 'FINISH' }),
          host({ Status: 'FINISH', Comment: 'done' }),
        ],
      },
      { autoResponder: approve },
    );
    const { outcome, steps } = await runRequest(harness.host, 'close the tab');
    expect(outcome.status).toBe('finished');
    expect(steps.map((step) => `${step.agent}:${step.status}:${step.approvedBy}`)).toContain('AppAgent:CONTINUE:user');
    // The user pressed Approve in Deskhand: the keys go to the xterm, and so does the next step's click.
    expect(tools(harness)).toEqual(['focus_window', 'focus_window', 'hotkey', 'click']);
  });

  it('focuses the window before acting in `always` mode too, without asking', async () => {
    const harness = await startHarness(
      {
        name: 'always',
        steps: [
          hostTo('xterm', 'click'),
          app({ Function: 'click', Args: { x: 5, y: 5 }, Status: 'CONTINUE' }),
          app({ Function: '', Status: 'FINISH' }),
          host({ Status: 'FINISH', Comment: 'done' }),
        ],
      },
      { config: { safety: { confirmation: 'always' } }, autoResponder: approve },
    );
    const { outcome, sessionId } = await runRequest(harness.host, 'click');
    expect(outcome.status).toBe('finished');
    expect(tools(harness)).toEqual(['focus_window', 'focus_window', 'click']);
    const audit = harness.host.audit.list(sessionId);
    expect(audit.filter((row) => row.tool === 'focus_window').map((row) => row.decision)).toEqual(['allowed', 'allowed']);
    expect(audit.find((row) => row.tool === 'click')).toMatchObject({ decision: 'approved', approvedBy: 'user', status: 'success' });
  });

  it('fails the step, and types nothing, when the window cannot be brought to the front', async () => {
    const harness = await startHarness(
      {
        name: 'focus fails',
        steps: [hostTo('xterm', 'type'), app({ Function: 'type_text', Args: { text: 'hello' }, Status: 'CONTINUE' })],
      },
      { deviceEnv: { DESKHAND_FAKE_DEVICE_FAIL_ON: 'focus_window' } },
    );
    const run = runRequest(harness.host, 'type');
    const { steps } = await run;
    const appSteps = steps.filter((step) => step.agent === 'AppAgent');
    expect(appSteps.length).toBeGreaterThan(0);
    for (const step of appSteps) {
      expect(step).toMatchObject({ status: 'ERROR', error: expect.stringMatching(/could not bring Terminal to the front: focus_window failed on purpose/) });
    }
    expect(tools(harness)).toEqual([]);
    // The model was never asked for an action it could not aim.
    expect(harness.model.requests).toHaveLength(1);
  });

  it('an action approved while the run is paused waits for Resume', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'deskhand-approvals-'));
    const effect = join(dir, 'effect.txt');
    const harness = await startHarness({
      name: 'approved while paused',
      steps: [app({ Function: 'execute_command', Args: { command: `touch ${effect}` }, Status: 'CONTINUE' }), app({ Function: '', Status: 'FINISH' })],
    });
    const { host: deskhand } = harness;
    const run = runRequest(deskhand, 'touch it', 'shell');
    const current = harness;
    const confirm = await until(() => requested(current, 'confirm'), 'the approval card');
    const { sessionId } = confirm;
    expect(await deskhand.endpoint.handle({ type: 'session.pause', id: 'p', sessionId })).toMatchObject({ ok: true });
    const decided = { type: 'interaction.decide', id: 'd', sessionId, interactionId: confirm.id, approved: true } as const;
    expect(await deskhand.endpoint.handle(decided)).toMatchObject({ ok: true });
    await new Promise((done) => setTimeout(done, 300));
    expect(existsSync(effect)).toBe(false);
    expect(deskhand.store.getSession(sessionId)?.status).toBe('paused');

    expect(await deskhand.endpoint.handle({ type: 'session.resume', id: 'r', sessionId })).toMatchObject({ ok: true });
    expect((await run).outcome.status).toBe('finished');
    expect(existsSync(effect)).toBe(true);
  });

  it('audits an approved action that Stop cut off while the run was paused, as not run, and gives it a step tagged stopped', async () => {
    const harness = await startHarness({
      name: 'approved, paused, stopped',
      steps: [app({ Function: 'execute_command', Args: { command: 'touch /tmp/deskhand-never' }, Status: 'CONTINUE' })],
    });
    const { host: deskhand } = harness;
    const run = runRequest(deskhand, 'touch it', 'shell');
    const current = harness;
    const confirm = await until(() => requested(current, 'confirm'), 'the approval card');
    const { sessionId } = confirm;
    await deskhand.endpoint.handle({ type: 'session.pause', id: 'p', sessionId });
    expect(await deskhand.endpoint.handle({ type: 'interaction.decide', id: 'd', sessionId, interactionId: confirm.id, approved: true })).toMatchObject({ ok: true });
    await deskhand.endpoint.handle({ type: 'session.stop', id: 's', sessionId });
    const { outcome, steps } = await run;
    expect(outcome.status).toBe('stopped');
    expect(harness.deviceActions()).toEqual([]);
    expect(deskhand.audit.list(sessionId)).toMatchObject([
      { tool: 'execute_command', decision: 'approved', status: 'skipped', error: 'not run: the run was stopped' },
    ]);
    // The approved action has its step, tagged in the trajectory "Not run: stopped".
    expect(steps.map((step) => `${step.status}:${step.notRun}`)).toEqual(['CONFIRM:null', 'ERROR:stopped']);
    expect(steps.at(-1)).toMatchObject({ error: 'not run: the run was stopped', approvedBy: 'user' });
  });

  it('audits an action still held when the round hits its step limit', async () => {
    const harness = await startHarness(
      { name: 'held at the limit', steps: [app({ Function: 'execute_command', Args: { command: 'touch /tmp/never' }, Status: 'CONTINUE' })] },
      { config: { limits: { maxStepsPerRound: 1 } } },
    );
    const { outcome, sessionId } = await runRequest(harness.host, 'touch it', 'shell');
    expect(outcome).toMatchObject({ status: 'failed', result: expect.stringMatching(/limit of 1 steps/) });
    expect(harness.deviceActions()).toEqual([]);
    expect(harness.host.audit.list(sessionId)).toMatchObject([
      { tool: 'execute_command', decision: 'rejected', status: 'skipped', error: 'not run: the round ended before it was decided' },
    ]);
  });

  it('Stop right after Approve: the approved action never runs, and the audit and the trajectory say so', async () => {
    const current = await startHarness(
      { name: 'stop after approve', steps: [hostTo('xterm', 'send it'), app({ Function: 'click', Args: { x: 5, y: 5 }, ControlText: 'Send', Status: 'CONTINUE' })] },
      { autoResponder: approve },
    );
    // Stop as the approval is acted on: before the window is focused for the click.
    current.host.sessions.subscribe((event) => {
      if (event.kind === 'status.changed' && event.detail.startsWith('Approved:')) {
        void current.host.sessions.handle({ type: 'session.stop', id: 'stop', sessionId: event.sessionId });
      }
    });
    const { sessionId, outcome, steps } = await runRequest(current.host, 'press send');
    expect(outcome.status).toBe('stopped');
    expect(tools(current)).not.toContain('click');
    const click = current.host.audit.list(sessionId).filter((row) => row.tool === 'click');
    expect(click).toMatchObject([{ decision: 'approved', approvedBy: 'user', status: 'skipped', error: 'not run: the run was stopped' }]);
    expect(steps.at(-1)).toMatchObject({ actionText: expect.stringContaining('Send'), status: 'ERROR', error: 'not run: the run was stopped', approvedBy: 'user', notRun: 'stopped' });
  });
});
