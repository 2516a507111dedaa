import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { askModel } from '../../src-main/llm/ask-model';
import { ModelClient } from '../../src-main/llm/model-client';
import { startModelServer, type ModelServer, type Scenario } from '../fixtures/model-server';

let server: ModelServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function clientFor(scenario: Scenario, options: { maxRetries?: number; timeoutMs?: number } = {}) {
  server = await startModelServer(scenario);
  return new ModelClient({
    baseUrl: server.baseUrl,
    apiKey: 'k',
    model: 'm',
    jsonMode: false,
    maxRetries: options.maxRetries ?? 2,
    timeoutMs: options.timeoutMs ?? 10_000,
  });
}

const ask = [{ role: 'user' as const, content: 'hi' }];

describe('ModelClient', () => {
  it('retries a 429 after its Retry-After, and a 500, then succeeds', async () => {
    const client = await clientFor({
      name: 'retry',
      steps: [{ status: 429, headers: { 'Retry-After': '1' }, body: { error: { message: 'slow down' } } }, { status: 500 }, { content: 'ok' }],
    });
    const started = performance.now();
    const answer = await client.complete(ask);
    expect(answer.text).toBe('ok');
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(server?.requests).toHaveLength(3);
  });

  it('gives up after its retries with the endpoint\'s error', async () => {
    const client = await clientFor({ name: 'down', steps: [{ status: 503 }, { status: 503 }] }, { maxRetries: 1 });
    await expect(client.complete(ask)).rejects.toThrow(/^the model endpoint http:\/\/127\.0\.0\.1:\d+\/v1 failed: HTTP 503/);
    expect(server?.requests).toHaveLength(2);
  });

  it('times out a reply that never comes', async () => {
    const client = await clientFor({ name: 'hang', steps: [{ hang: true }] }, { maxRetries: 0, timeoutMs: 1_000 });
    await expect(client.complete(ask)).rejects.toThrow(/timed out/i);
  });

  it('aborts the request in flight when stopped', async () => {
    const client = await clientFor({ name: 'hang', steps: [{ hang: true }] }, { maxRetries: 0 });
    const abort = new AbortController();
    const pending = client.complete(ask, abort.signal);
    while (server?.inFlight() === 0) await new Promise((done) => setTimeout(done, 10));
    const started = performance.now();
    abort.abort();
    await expect(pending).rejects.toThrow(/abort/i);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('askModel', () => {
  const schema = z.object({ Status: z.enum(['OK']) }).strict();

  it('quotes the validation error back to the model and accepts the mended reply', async () => {
    const client = await clientFor({ name: 'repair', steps: [{ content: '{"Status": "NOPE"}' }, { content: '{"Status": "OK"}', expect: { contains: ['Your reply could not be used', 'Status'] } }] });
    const exchange = await askModel(client, ask, schema, { maxRepairs: 1, signal: new AbortController().signal });
    expect(exchange).toMatchObject({ reply: { Status: 'OK' }, attempts: 2, error: null });
    expect(exchange.usage.prompt).toBeGreaterThan(0);
  });

  it('stops after the bounded number of repairs', async () => {
    const client = await clientFor({ name: 'hopeless', steps: [{ content: 'no' }, { content: 'still no' }] });
    const exchange = await askModel(client, ask, schema, { maxRepairs: 1, signal: new AbortController().signal });
    expect(exchange).toMatchObject({ reply: null, attempts: 2, text: 'still no' });
    expect(exchange.error).toMatch(/no JSON object/);
    expect(server?.remaining()).toBe(0);
  });
});
