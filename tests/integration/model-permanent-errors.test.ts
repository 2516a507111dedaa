import { describe, expect, it } from 'vitest';
import type { ScenarioStep } from '../fixtures/model-server';
import { replies } from '../support/host-harness';
import { closedAfterEach } from '../support/host-per-test';
import { roundWithin, startReliabilityHost, startSession } from '../support/reliability-harness';

// An unknown model or endpoint cannot be mended by another step: the round ends at its first failed step,
// saying which model and endpoint to check; a 401 (a gateway renewing its token) is still tolerated once.
const MAX_ERRORS = 3;
const finish = replies.app({ Function: '', Status: 'FINISH', Comment: 'all done' });
const unknownModel: ScenarioStep = { status: 404, body: { error: { message: 'The model `scripted` does not exist.', code: 'model_not_found' } } };

const startRig = closedAfterEach(startReliabilityHost);

async function start(steps: ScenarioStep[], mode: 'shell' | 'desktop', maxRepairs = 0) {
  const rig = await startRig(
    { name: 'permanent model errors', steps },
    { model: { maxRetries: 2 }, config: { limits: { maxConsecutiveErrors: MAX_ERRORS, maxRepairs }, safety: { confirmation: 'never' } } },
  );
  const sessionId = await startSession(rig.host, 'list my files', mode);
  return { rig, sessionId };
}

describe('a model endpoint that cannot answer at all', () => {
  it.each(['shell', 'desktop'] as const)('a 404 for the model ends the round after one ERROR step (%s mode)', async (mode) => {
    const { rig, sessionId } = await start([unknownModel, unknownModel, unknownModel], mode);
    const outcome = await roundWithin(rig.host, 20_000, 'unknown model');
    expect(outcome.status).toBe('error');
    expect(outcome.result).not.toMatch(/failed steps in a row/);
    expect(outcome.result).toMatch(/HTTP 404: The model `scripted` does not exist\.; check the model name "scripted" and the base URL/);
    expect(outcome.result).toContain(rig.model.baseUrl);
    expect(rig.host.store.steps(sessionId).map((step) => step.status)).toEqual(['ERROR']);
    expect(rig.model.requests).toHaveLength(1);
    expect(rig.deviceActions()).toEqual([]);
  });

  it('a single 401 is still tolerated: one ERROR step, then the run goes on', async () => {
    const { rig, sessionId } = await start([{ status: 401, body: { error: { message: 'token expired' } } }, finish], 'shell');
    const outcome = await roundWithin(rig.host, 20_000, 'one 401');
    expect(outcome).toEqual({ status: 'finished', result: 'all done' });
    expect(rig.host.store.steps(sessionId).map((step) => step.status)).toEqual(['ERROR', 'FINISH']);
    expect(rig.host.store.steps(sessionId)[0]?.error).toMatch(/HTTP 401: token expired; check the API key/);
  });

  it('a repair request that fails still counts the tokens the step had spent', async () => {
    const unusable: ScenarioStep = { content: 'not JSON at all' };
    const { rig, sessionId } = await start([unusable, unknownModel], 'shell', 1);
    const outcome = await roundWithin(rig.host, 20_000, 'repair fails');
    expect(outcome.status).toBe('error');
    const [step] = rig.host.store.steps(sessionId);
    expect(step?.status).toBe('ERROR');
    expect(step?.error).toMatch(/HTTP 404/);
    // The scripted server counts about a token per four characters: the first attempt's prompt and reply.
    expect(step?.tokens.prompt).toBeGreaterThan(100);
    expect(step?.tokens.completion).toBeGreaterThan(0);
    expect(rig.host.store.getSession(sessionId)?.tokens).toEqual(step?.tokens);
  });
});
