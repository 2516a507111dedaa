import { describe, expect, it } from 'vitest';
import type { ScenarioStep } from '../fixtures/model-server';
import { replies } from '../support/host-harness';
import { closedAfterEach } from '../support/host-per-test';
import { roundWithin, startReliabilityHost } from '../support/reliability-harness';
import { CATEGORIES, HOST_CATEGORIES, hostileHostReplies, hostileReplies, type HostileReply } from '../support/reliability-hostile';
import { seeded, seedFromEnv, soaking } from '../support/reliability-random';

// Generated malformed and hostile model replies (seeded: DESKHAND_SEED=<seed> replays a run). Each one
// is invalid by construction; each must become a clear ERROR step, and nothing may reach the device but
// the window focus of the one hand-off.
const SEED = seedFromEnv(0x5eed_0007);
/** Each batch is one session (a round has at most 1,000 steps); the soak runs more batches. */
const BATCHES = soaking() ? 20 : 1;
const APP_CASES = 220;
const HOST_CASES = 45;
/** A harmless step after this many errors, so the errors-in-a-row limit does not end the run. */
const ERRORS_BETWEEN_RESETS = 4;

const random = seeded(SEED);
const batches = Array.from({ length: BATCHES }, (_, batch) => ({
  batch: `${batch + 1} of ${BATCHES}`,
  appCases: hostileReplies(random, APP_CASES),
  hostCases: hostileHostReplies(random, HOST_CASES),
}));

const LOOK: ScenarioStep = replies.app({ Function: '', Status: 'SCREENSHOT', Comment: 'look again' });
// The host has no SCREENSHOT status: a question (answered "no" by the suite's responder) resets its count.
const ASK: ScenarioStep = replies.host({ Status: 'PENDING', Questions: ['which window?'] });

function withResets(cases: HostileReply[], reset: ScenarioStep): ScenarioStep[] {
  return cases.flatMap((hostile, index) => [{ content: hostile.content }, ...((index + 1) % ERRORS_BETWEEN_RESETS === 0 ? [reset] : [])]);
}

const startRig = closedAfterEach(startReliabilityHost);

describe(`${BATCHES * (APP_CASES + HOST_CASES)} generated hostile model replies (seed ${SEED})`, () => {
  it('cover every category', () => {
    for (const { appCases, hostCases } of batches) {
      expect(new Set(appCases.map((hostile) => hostile.category)).size).toBe(CATEGORIES.length);
      expect(new Set(hostCases.map((hostile) => hostile.category)).size).toBe(HOST_CATEGORIES.length);
    }
    expect(APP_CASES + HOST_CASES).toBeGreaterThanOrEqual(200);
  });

  it.each(batches)('batch $batch: each gives a clear ERROR step, nothing reaches the device, and the host stays up', async ({ appCases, hostCases }) => {
    const steps: ScenarioStep[] = [
      ...withResets(hostCases, ASK),
      replies.hostTo('0x100001', 'type hello in the terminal'),
      ...withResets(appCases, LOOK),
      replies.app({ Function: '', Status: 'FINISH', Comment: 'survived' }),
      replies.host({ Status: 'FINISH', Comment: 'done' }),
    ];
    const rig = await startRig(
      { name: 'generated hostile replies', steps },
      {
        config: {
          limits: { maxStepsPerRound: 1_000, maxStepsPerSession: 10_000, maxRepairs: 0, maxConsecutiveErrors: ERRORS_BETWEEN_RESETS + 1 },
          safety: { confirmation: 'never' },
        },
      },
    );
    const start = await rig.host.endpoint.handle({ type: 'session.start', id: 's', request: 'type hello in the terminal', mode: 'desktop' });
    expect(start).toMatchObject({ ok: true });
    const sessionId = (start as { result: { session: { id: string } } }).result.session.id;
    const outcome = await roundWithin(rig.host, 600_000, 'hostile replies');
    const recorded = rig.host.store.steps(sessionId);

    const hostErrors = recorded.filter((step) => step.agent === 'HostAgent' && !['PENDING', 'CONTINUE', 'FINISH'].includes(step.status));
    const appErrors = recorded.filter((step) => step.agent === 'AppAgent' && !['SCREENSHOT', 'FINISH'].includes(step.status));
    const mismatches: string[] = [];
    const check = (cases: HostileReply[], errors: typeof recorded): void => {
      cases.forEach((hostile, index) => {
        const step = errors[index];
        const name = `[${hostile.category}] ${hostile.label}`;
        if (!step) return void mismatches.push(`${name}: no step`);
        if (step.status !== 'ERROR') mismatches.push(`${name}: status ${step.status}`);
        else if (!step.error || !hostile.error.test(step.error)) mismatches.push(`${name}: error ${JSON.stringify(step.error?.slice(0, 200))} does not match ${hostile.error}`);
        else if (step.error.length > 2_000 || /\n\s+at /.test(step.error)) mismatches.push(`${name}: error too long or with a stack trace`);
      });
      if (errors.length !== cases.length) mismatches.push(`${errors.length} ERROR steps for ${cases.length} cases`);
    };
    check(hostCases, hostErrors);
    check(appCases, appErrors);
    expect(mismatches, `seed ${SEED}`).toEqual([]);

    expect(outcome).toEqual({ status: 'finished', result: 'done' });
    // Only the window focus of the hand-off ever reached the device.
    expect(rig.deviceActions().map((action) => action.tool)).toEqual(['focus_window']);
    expect(rig.model.failures).toEqual([]);
    rig.model.assertDone();
    expect(await rig.host.endpoint.handle({ type: 'session.list', id: 'alive' })).toMatchObject({ ok: true });
  });
});
