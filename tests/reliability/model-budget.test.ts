import { describe, expect, it } from 'vitest';
import type { ScenarioStep } from '../fixtures/model-server';
import { replies } from '../support/host-harness';
import { closedAfterEach } from '../support/host-per-test';
import { roundWithin, startReliabilityHost, startSession, waitUntil, withDeadline } from '../support/reliability-harness';

// The model client's budget: `timeoutMs` per request and `maxRetries` retries must bound a run whatever
// the endpoint does: a reply that starts and never ends, a Retry-After of minutes, Stop while waiting.
// And what a failed step says must be short and name the model endpoint.
const TIMEOUT_MS = 1_000;
const MAX_RETRIES = 1;
const MAX_ERRORS = 2;
/** Every attempt of every failed step at its timeout, with backoff, plus slack for a busy machine. */
const BUDGET_MS = MAX_ERRORS * (MAX_RETRIES + 1) * (TIMEOUT_MS + 1_000) + 6_000;

const finish = replies.app({ Function: '', Status: 'FINISH', Comment: 'all done' });

const startRig = closedAfterEach(startReliabilityHost);

async function start(steps: ScenarioStep[]) {
  const rig = await startRig(
    { name: 'model budget', steps },
    {
      model: { timeoutMs: TIMEOUT_MS, maxRetries: MAX_RETRIES },
      config: { limits: { maxConsecutiveErrors: MAX_ERRORS, maxRepairs: 0, maxStepsPerRound: 20 } },
    },
  );
  const sessionId = await startSession(rig.host, 'list my files', 'shell');
  return { rig, sessionId };
}

describe('the model budget holds whatever the endpoint does', () => {
  it('a reply that never ends (headers and half a body, then silence) ends in ERROR steps within the timeout', async () => {
    const { rig, sessionId } = await start(Array.from({ length: (MAX_RETRIES + 1) * MAX_ERRORS }, () => ({ ...finish, stall: true })));
    const outcome = await roundWithin(rig.host, BUDGET_MS, 'a stalled reply');
    expect(outcome.status).toBe('error');
    const steps = rig.host.store.steps(sessionId);
    expect(steps.map((step) => step.status)).toEqual(['ERROR', 'ERROR']);
    for (const step of steps) expect(step.error).toMatch(/time|model/i);
    await waitUntil('no request in flight', () => rig.model.inFlight() === 0);
  });

  it('a 429 asking to retry after 30 s does not hold a run whose budget is a few seconds', async () => {
    const { rig, sessionId } = await start(Array.from({ length: (MAX_RETRIES + 1) * MAX_ERRORS }, () => ({ status: 429, headers: { 'Retry-After': '30' } })));
    const outcome = await roundWithin(rig.host, BUDGET_MS, 'a long Retry-After');
    expect(outcome.status).toBe('error');
    for (const step of rig.host.store.steps(sessionId)) expect(step.error).toMatch(/429/);
  });

  it('Stop while the client waits out a Retry-After halts the run at once', async () => {
    const { rig } = await start([{ status: 429, headers: { 'Retry-After': '30' } }, finish]);
    await waitUntil('the first request', () => rig.model.requests.length === 1);
    const sessionId = rig.host.sessions.runningSessionId!;
    const running = rig.host.sessions.running!;
    await rig.host.endpoint.handle({ type: 'session.stop', id: 'stop', sessionId });
    const outcome = await withDeadline(running, 5_000, 'Stop did not halt a run waiting out a Retry-After within 5 s');
    expect(outcome.status).toBe('stopped');
    // The retry never went out.
    expect(rig.model.requests).toHaveLength(1);
  });
});

describe('what a failed model call says', () => {
  it('names the model endpoint, whatever the fault', async () => {
    const look = replies.app({ Function: '', Status: 'SCREENSHOT', Comment: 'look again' });
    const slow: ScenarioStep = { delayMs: 3_000, ...finish };
    // A reset and a slow reply are retried once; a cut body is not. A harmless step between faults keeps
    // the errors-in-a-row limit away.
    const { rig, sessionId } = await start([{ reset: true }, { reset: true }, look, { ...finish, truncate: true }, look, slow, slow, finish]);
    await roundWithin(rig.host, BUDGET_MS * 2, 'faults');
    const errors = rig.host.store
      .steps(sessionId)
      .map((step) => step.error)
      .filter((error): error is string => error !== null);
    expect(errors.length).toBeGreaterThan(0);
    // Today: "Connection error.", "terminated", "Request timed out.": nothing says it was the model.
    for (const error of errors) expect(error).toMatch(/model/i);
  });

  it('keeps an endpoint error page of 200 KB out of the step and the session result', async () => {
    const page = `<html><body>${'Service Unavailable. '.repeat(10_000)}</body></html>`;
    const { rig, sessionId } = await start(Array.from({ length: (MAX_RETRIES + 1) * MAX_ERRORS }, () => ({ status: 503, body: page })));
    const outcome = await roundWithin(rig.host, BUDGET_MS, 'a big error page');
    expect(outcome.status).toBe('error');
    for (const step of rig.host.store.steps(sessionId)) {
      expect(step.error).toMatch(/503/);
      expect(step.error!.length).toBeLessThan(2_000);
    }
    expect(rig.host.store.getSession(sessionId)!.result!.length).toBeLessThan(2_000);
  });
});
