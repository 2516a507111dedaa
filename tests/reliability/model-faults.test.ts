import { describe, expect, it } from 'vitest';
import type { ScenarioStep } from '../fixtures/model-server';
import { replies } from '../support/host-harness';
import { closedAfterEach } from '../support/host-per-test';
import { roundWithin, startReliabilityHost, startSession, waitUntil } from '../support/reliability-harness';

// Model endpoint faults through the real host: bounded retries, then clear ERROR steps, and the round
// ends within the budget its settings give it. Small budgets: 1 s per request, one retry, two failed
// steps in a row end the round.
const TIMEOUT_MS = 1_000;
const MAX_RETRIES = 1;
const MAX_ERRORS = 2;
const ATTEMPTS = MAX_RETRIES + 1;

const finish = replies.app({ Function: '', Status: 'FINISH', Comment: 'all done' });

interface Fault {
  name: string;
  step: ScenarioStep;
  /** Whether the model client retries it (the SDK retries 408/409/429/5xx, timeouts and connection errors). */
  retried: boolean;
  error: RegExp;
  /** Longest the fault itself holds one attempt (delay, Retry-After), for the run's budget. */
  holdMs: number;
}

const FAULTS: Fault[] = [
  {
    name: '429 with Retry-After',
    step: { status: 429, headers: { 'Retry-After': '1' }, body: { error: { message: 'rate limited, slow down', type: 'rate_limit' } } },
    retried: true,
    error: /429.*rate limited/,
    holdMs: 1_000,
  },
  { name: '500', step: { status: 500 }, retried: true, error: /500/, holdMs: 0 },
  { name: '503 with an HTML body', step: { status: 503, body: '<html><body>Service Unavailable</body></html>' }, retried: true, error: /503/, holdMs: 0 },
  { name: 'a reply slower than the timeout', step: { delayMs: 4_000, ...finish }, retried: true, error: /timed out/i, holdMs: TIMEOUT_MS },
  { name: 'connection reset', step: { reset: true }, retried: true, error: /connection error/i, holdMs: 0 },
  { name: 'a body cut off half way', step: { ...finish, truncate: true }, retried: true, error: /model endpoint/, holdMs: 0 },
  { name: '401 (a wrong key)', step: { status: 401, body: { error: { message: 'Incorrect API key provided' } } }, retried: false, error: /401/, holdMs: 0 },
];

/** What the settings allow a failing run: every attempt of every failed step, with its backoff, plus slack for a busy machine. */
function budgetFor(fault: Pick<Fault, 'holdMs'>, steps = MAX_ERRORS): number {
  const perAttempt = Math.max(fault.holdMs, TIMEOUT_MS) + 1_000; // the SDK's backoff is under a second for the first retry
  return steps * ATTEMPTS * perAttempt + 10_000;
}

const startRig = closedAfterEach(startReliabilityHost);

async function start(steps: ScenarioStep[], mode: 'shell' | 'desktop' = 'shell') {
  const rig = await startRig(
    { name: 'model faults', steps },
    {
      model: { timeoutMs: TIMEOUT_MS, maxRetries: MAX_RETRIES },
      config: { limits: { maxConsecutiveErrors: MAX_ERRORS, maxRepairs: 0, maxStepsPerRound: 20 }, safety: { confirmation: 'never' } },
    },
  );
  const sessionId = await startSession(rig.host, 'list my files', mode);
  return { rig, sessionId };
}

function expectClearError(error: string | null, pattern: RegExp, name: string): void {
  expect(error, name).toBeTruthy();
  expect(error, name).toMatch(pattern);
  expect(error!.length, name).toBeLessThan(1_000);
  expect(error, `${name}: no stack trace in a step`).not.toMatch(/\n\s+at /);
}

describe('model endpoint faults that never clear', () => {
  it.each(FAULTS)('$name: bounded retries, then ERROR steps, and the round ends', async (fault) => {
    const { rig, sessionId } = await start(Array.from({ length: ATTEMPTS * MAX_ERRORS }, () => fault.step));
    const outcome = await roundWithin(rig.host, budgetFor(fault), fault.name);

    expect(outcome.status).toBe('error');
    expect(outcome.result).toMatch(new RegExp(`${MAX_ERRORS} failed steps in a row`));
    const steps = rig.host.store.steps(sessionId);
    expect(steps.map((step) => step.status)).toEqual(Array.from({ length: MAX_ERRORS }, () => 'ERROR'));
    for (const step of steps) expectClearError(step.error, fault.error, fault.name);
    // Bounded: each failed step made at most 1 + maxRetries requests.
    expect(rig.model.requests).toHaveLength((fault.retried ? ATTEMPTS : 1) * MAX_ERRORS);
    expect(rig.model.failures).toEqual([]);
    expect(rig.host.store.getSession(sessionId)?.status).toBe('error');
    expect(rig.host.sessions.running).toBeNull();
    expect(rig.deviceActions()).toEqual([]);
    // No request left hanging on the endpoint once the round is over.
    await waitUntil('the endpoint to see no request in flight', () => rig.model.inFlight() === 0);
    expect(await rig.host.endpoint.handle({ type: 'session.list', id: 'alive' })).toMatchObject({ ok: true });
  });

  it('an endpoint that refuses connections: bounded retries, ERROR steps, the round ends', async () => {
    const { rig, sessionId } = await start([]);
    // The round is already asking; close the endpoint under it.
    await rig.model.close();
    const outcome = await roundWithin(rig.host, budgetFor({ holdMs: 0 }), 'refused connections');
    expect(outcome.status).toBe('error');
    const steps = rig.host.store.steps(sessionId);
    expect(steps.length).toBeGreaterThanOrEqual(1);
    expect(steps.length).toBeLessThanOrEqual(MAX_ERRORS);
    for (const step of steps) expectClearError(step.error, /connection error|scenario exhausted|500/i, 'refused');
  });

  it('the HostAgent too: a failing endpoint gives ERROR steps and ends the round', async () => {
    const { rig, sessionId } = await start(Array.from({ length: ATTEMPTS * MAX_ERRORS }, () => ({ status: 502 })), 'desktop');
    const outcome = await roundWithin(rig.host, budgetFor({ holdMs: 0 }), 'host 502');
    expect(outcome.status).toBe('error');
    const steps = rig.host.store.steps(sessionId);
    expect(steps.map((step) => `${step.agent} ${step.status}`)).toEqual(Array.from({ length: MAX_ERRORS }, () => 'HostAgent ERROR'));
    for (const step of steps) expectClearError(step.error, /502/, 'host 502');
    expect(rig.model.requests).toHaveLength(ATTEMPTS * MAX_ERRORS);
    expect(rig.deviceActions()).toEqual([]);
  });
});

describe('model endpoint faults that clear', () => {
  it.each(FAULTS.filter((fault) => fault.retried))('$name once: the retry succeeds and the run goes on', async (fault) => {
    const { rig, sessionId } = await start([fault.step, finish]);
    const outcome = await roundWithin(rig.host, budgetFor(fault, 1), fault.name);
    expect(outcome).toEqual({ status: 'finished', result: 'all done' });
    expect(rig.host.store.steps(sessionId).map((step) => step.status)).toEqual(['FINISH']);
    expect(rig.model.requests).toHaveLength(2);
    rig.model.assertDone();
  });

  it.each(FAULTS.filter((fault) => !fault.retried))('$name once: one ERROR step, then the run goes on', async (fault) => {
    const { rig, sessionId } = await start([fault.step, finish]);
    const outcome = await roundWithin(rig.host, budgetFor(fault, 2), fault.name);
    expect(outcome).toEqual({ status: 'finished', result: 'all done' });
    const steps = rig.host.store.steps(sessionId);
    expect(steps.map((step) => step.status)).toEqual(['ERROR', 'FINISH']);
    expectClearError(steps[0]!.error, fault.error, fault.name);
    rig.model.assertDone();
  });

  it('a Retry-After honoured by the client is the one the endpoint sent', async () => {
    const { rig } = await start([{ status: 429, headers: { 'Retry-After': '1' } }, finish]);
    await roundWithin(rig.host, budgetFor({ holdMs: 1_000 }, 1), 'retry-after');
    const [first, second] = rig.model.requests;
    // The second request came after the server's Retry-After (1 s), not the SDK's default backoff (< 0.5 s).
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(900);
  });
});
