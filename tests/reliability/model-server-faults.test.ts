import OpenAI, { APIConnectionError } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer, type Scenario } from '../fixtures/model-server';
import { waitUntil } from '../support/reliability-harness';

// The scripted model server's fault steps (tests/fixtures/model-server.ts): `reset`, `truncate`, `stall`.
// The rest of the server is covered by tests/unit/model-server.test.ts.

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(steps: Scenario['steps']): Promise<{ server: ModelServer; client: OpenAI }> {
  server = await startModelServer({ name: 'faults', steps });
  return { server, client: new OpenAI({ baseURL: server.baseUrl, apiKey: 'test', maxRetries: 0 }) };
}

const USER = [{ role: 'user' as const, content: 'hello' }];
const REPLY = { Thought: 'a reply long enough to be cut in half somewhere in its middle', Status: 'FINISH' };

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

describe('fault steps of the scripted model server', () => {
  it('reset: drops the connection without an answer; the request is recorded', async () => {
    const { server, client } = await start([{ reset: true }, { content: 'after the reset' }]);
    expect(await caught(client.chat.completions.create({ model: 'm', messages: USER }))).toBeInstanceOf(APIConnectionError);
    expect(server.requests).toHaveLength(1);
    await waitUntil('the reset request to be gone', () => server.inFlight() === 0);
    const next = await client.chat.completions.create({ model: 'm', messages: USER });
    expect(next.choices[0]?.message.content).toBe('after the reset');
    expect(server.failures).toEqual([]);
  });

  it('truncate: half the body, then the connection drops (plain and streaming)', async () => {
    const { server, client } = await start([{ json: REPLY, truncate: true }, { json: REPLY, truncate: true }]);
    const plain = await caught(client.chat.completions.create({ model: 'm', messages: USER }));
    expect(plain).toBeInstanceOf(Error);

    const stream = await client.chat.completions.create({ model: 'm', messages: USER, stream: true });
    let text = '';
    const streamed = await caught(
      (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      })(),
    );
    expect(streamed).toBeInstanceOf(Error);
    // Half the content arrived, never all of it.
    expect(text.length).toBeGreaterThan(0);
    expect(text.length).toBeLessThan(JSON.stringify(REPLY).length);
    await waitUntil('both to be gone', () => server.inFlight() === 0);
  });

  it('stall: half the body, then nothing; it stays in flight until the client gives up', async () => {
    const { server, client } = await start([{ content: JSON.stringify(REPLY), stall: true }, { content: 'x', stall: true }]);
    const abort = new AbortController();
    const pending = caught(client.chat.completions.create({ model: 'm', messages: USER }, { signal: abort.signal }));
    await waitUntil('the stalled request', () => server.requests.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(server.inFlight()).toBe(1);
    abort.abort();
    // Aborted while reading the body: the fetch layer's AbortError (before the body, the SDK's APIUserAbortError).
    expect(await pending).toMatchObject({ name: expect.stringMatching(/Abort/) });
    await waitUntil('the server to drop it', () => server.inFlight() === 0);

    // close() ends a stalled reply at once.
    const second = caught(client.chat.completions.create({ model: 'm', messages: USER }));
    await waitUntil('the second stalled request', () => server.inFlight() === 1);
    await server.close();
    expect(await second).toBeInstanceOf(Error);
    expect(server.inFlight()).toBe(0);
  });

  it('refuses fault steps that make no sense', async () => {
    await expect(startModelServer({ name: 'bad', steps: [{ reset: true, content: 'x' }] })).rejects.toThrow(/exactly one of .*found content and reset/);
    await expect(startModelServer({ name: 'bad', steps: [{ status: 500, truncate: true }] })).rejects.toThrow(/"truncate" is only allowed with "content" or "json"/);
    await expect(startModelServer({ name: 'bad', steps: [{ hang: true, stall: true }] })).rejects.toThrow(/"stall" is only allowed with "content" or "json"/);
    await expect(startModelServer({ name: 'bad', steps: [{ content: 'x', truncate: true, stall: true }] })).rejects.toThrow(/cannot both "truncate" and "stall"/);
  });
});
