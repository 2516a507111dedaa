import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import OpenAI, { APIError, APIUserAbortError } from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadScenario, startModelServer, type ModelServer, type Scenario } from '../fixtures/model-server';

const FIXTURES = resolve(import.meta.dirname, '../fixtures');

let server: ModelServer | undefined;
let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'deskhand-model-server-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(steps: Scenario['steps']): Promise<{ server: ModelServer; client: OpenAI }> {
  server = await startModelServer({ name: 'unit', steps });
  return { server, client: new OpenAI({ baseURL: server.baseUrl, apiKey: 'test', maxRetries: 0 }) };
}

const USER = [
  { role: 'system' as const, content: 'You are the AppAgent.' },
  { role: 'user' as const, content: 'Type hello into the terminal.' },
];

async function waitFor(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the promise to reject');
}

describe('scripted model server', () => {
  it('answers a plain completion with the scripted content and rough usage', async () => {
    const { server, client } = await start([{ content: 'hello there' }]);
    const completion = await client.chat.completions.create({ model: 'gpt-test', messages: USER });

    expect(completion.choices[0]?.message.content).toBe('hello there');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.model).toBe('gpt-test');
    const promptChars = 'You are the AppAgent.\nType hello into the terminal.'.length;
    expect(completion.usage).toEqual({
      prompt_tokens: Math.ceil(promptChars / 4),
      completion_tokens: Math.ceil('hello there'.length / 4),
      total_tokens: Math.ceil(promptChars / 4) + Math.ceil('hello there'.length / 4),
    });
    expect(server.remaining()).toBe(0);
    server.assertDone();
  });

  it('serialises json steps as the message content', async () => {
    const reply = { Status: 'FINISH', Function: '', Args: {}, Plan: [] };
    const { client } = await start([{ json: reply }]);
    const completion = await client.chat.completions.create({ model: 'm', messages: USER });
    expect(JSON.parse(completion.choices[0]?.message.content ?? '')).toEqual(reply);
  });

  it('streams the content as SSE chunks with usage in the last chunk', async () => {
    const content = 'A longer reply, with ünïcödé and emoji 🙂, split over several chunks.';
    const { server, client } = await start([{ content }, { content: 'no usage' }]);

    const stream = await client.chat.completions.create({
      model: 'm',
      messages: USER,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let chunks = 0;
    let lastUsage: OpenAI.CompletionUsage | null | undefined;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      chunks += 1;
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      lastUsage = chunk.usage;
    }
    expect(text).toBe(content);
    expect(chunks).toBeGreaterThan(3);
    expect(finish).toBe('stop');
    expect(lastUsage?.completion_tokens).toBe(Math.ceil(content.length / 4));

    const plain = await client.chat.completions.create({ model: 'm', messages: USER, stream: true });
    let second = '';
    for await (const chunk of plain) {
      expect(chunk.usage ?? null).toBeNull();
      second += chunk.choices[0]?.delta.content ?? '';
    }
    expect(second).toBe('no usage');
    expect(server.requests.map((r) => r.body.stream)).toEqual([true, true]);
  });

  it('records every request: body, headers, message text and images', async () => {
    const { server, client } = await start([{ content: 'one' }, { content: 'two' }]);
    await client.chat.completions.create({ model: 'm1', messages: USER, temperature: 0 });
    await client.chat.completions.create({
      model: 'm2',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Here is the screen.' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
    });

    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests;
    expect(first?.index).toBe(0);
    expect(first?.step).toBe(0);
    expect(first?.body.model).toBe('m1');
    expect(first?.body.temperature).toBe(0);
    expect(first?.body.messages).toEqual(USER);
    expect(first?.text).toBe('You are the AppAgent.\nType hello into the terminal.');
    expect(first?.headers.authorization).toBe('Bearer test');
    expect(first?.headers['content-type']).toContain('application/json');
    expect(second?.step).toBe(1);
    expect(second?.text).toBe('Here is the screen.');
    expect(second?.images).toBe(1);
  });

  it('refuses a message holding a lone half of a surrogate pair with a 400, as hosted endpoints do, and records it', async () => {
    const { server, client } = await start([{ content: 'never sent' }]);
    const refused = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'cut emoji \uD83D' }] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(APIError);
    expect((refused as APIError).status).toBe(400);
    expect(server.failures).toEqual(['POST /v1/chat/completions: a message holds a lone surrogate']);
    // A whole emoji is fine.
    const answer = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'whole emoji 😀' }] });
    expect(answer.choices[0]?.message.content).toBe('never sent');
  });

  it('serves GET /v1/models', async () => {
    const { client } = await start([]);
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['scripted']);
  });

  it('passes a scripted 429 through as an APIError with its headers', async () => {
    const { server, client } = await start([
      { status: 429, body: { error: { message: 'slow down', type: 'rate_limit' } }, headers: { 'Retry-After': '7' } },
      { content: 'after the limit' },
    ]);
    const err = await caught(client.chat.completions.create({ model: 'm', messages: USER }));
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).status).toBe(429);
    expect((err as APIError).message).toContain('slow down');
    expect((err as APIError).headers?.get('retry-after')).toBe('7');

    const completion = await client.chat.completions.create({ model: 'm', messages: USER });
    expect(completion.choices[0]?.message.content).toBe('after the limit');
    expect(server.failures).toEqual([]);
  });

  it('refuses an unsupported parameter with OpenAI\'s 400, without consuming a step', async () => {
    server = await startModelServer({ name: 'reasoning model', unsupportedParams: ['temperature'], steps: [{ content: 'answered' }] });
    const client = new OpenAI({ baseURL: server.baseUrl, apiKey: 'test', maxRetries: 0 });
    const err = await caught(client.chat.completions.create({ model: 'm', messages: USER, temperature: 0 }));
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).status).toBe(400);
    expect((err as APIError).param).toBe('temperature');
    expect((err as APIError).message).toContain("'temperature' is not supported");

    const completion = await client.chat.completions.create({ model: 'm', messages: USER });
    expect(completion.choices[0]?.message.content).toBe('answered');
    expect(server.requests.map((r) => r.step)).toEqual([null, 0]);
    server.assertDone();
  });

  it('answers 500 "scenario exhausted" and records a failure when the script runs out', async () => {
    const { server, client } = await start([{ content: 'only one' }]);
    await client.chat.completions.create({ model: 'm', messages: USER });
    const err = await caught(client.chat.completions.create({ model: 'm', messages: USER }));
    expect((err as APIError).status).toBe(500);
    expect((err as APIError).message).toContain('scenario exhausted');
    expect(server.failures).toHaveLength(1);
    expect(server.failures[0]).toContain('exhausted');
    expect(server.requests[1]?.step).toBeNull();
    expect(() => server.assertDone()).toThrow(/exhausted/);
  });

  it('checks expect.contains / notContains against the request messages', async () => {
    const { server, client } = await start([
      { content: 'ok', expect: { contains: ['AppAgent', 'hello'] } },
      { content: 'never sent', expect: { contains: ['Blackboard', 'hello'], notContains: ['terminal'] } },
    ]);
    const ok = await client.chat.completions.create({ model: 'm', messages: USER });
    expect(ok.choices[0]?.message.content).toBe('ok');
    expect(server.failures).toEqual([]);

    const err = await caught(client.chat.completions.create({ model: 'm', messages: USER }));
    expect((err as APIError).status).toBe(500);
    expect((err as APIError).message).toContain('"Blackboard"');
    expect(server.failures).toHaveLength(1);
    expect(server.failures[0]).toMatch(/step 1.*missing "Blackboard".*unexpectedly containing "terminal"/);
    expect(server.failures[0]).not.toContain('"hello"');
  });

  it('waits delayMs before answering', async () => {
    const { client } = await start([{ delayMs: 150, content: 'late' }]);
    const started = Date.now();
    const completion = await client.chat.completions.create({ model: 'm', messages: USER });
    expect(completion.choices[0]?.message.content).toBe('late');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('abandons a delayed answer when the client aborts, and serves the next step', async () => {
    const { server, client } = await start([{ delayMs: 30_000, content: 'too late' }, { content: 'next' }]);
    const controller = new AbortController();
    const pending = client.chat.completions.create({ model: 'm', messages: USER }, { signal: controller.signal });
    await waitFor(() => server.requests.length === 1, 'the request to arrive');
    controller.abort();
    expect(await caught(pending)).toBeInstanceOf(APIUserAbortError);
    await waitFor(() => server.inFlight() === 0, 'the server to notice the disconnect');

    const next = await client.chat.completions.create({ model: 'm', messages: USER });
    expect(next.choices[0]?.message.content).toBe('next');
    expect(server.failures).toEqual([]);
  });

  it('hangs until the client aborts, without leaking the connection', async () => {
    const { server, client } = await start([{ hang: true }]);
    const controller = new AbortController();
    const pending = client.chat.completions.create({ model: 'm', messages: USER }, { signal: controller.signal });
    await waitFor(() => server.inFlight() === 1, 'the hung request');
    controller.abort();
    expect(await caught(pending)).toBeInstanceOf(APIUserAbortError);
    await waitFor(() => server.inFlight() === 0, 'the server to drop the hung request');

    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('close() resolves promptly while a request hangs, and the client sees a connection error', async () => {
    const { server, client } = await start([{ hang: true }]);
    const pending = caught(client.chat.completions.create({ model: 'm', messages: USER }));
    await waitFor(() => server.inFlight() === 1, 'the hung request');

    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(server.inFlight()).toBe(0);
    expect(await pending).toBeInstanceOf(APIError); // APIConnectionError extends APIError
    await server.close(); // idempotent
  });
});

describe('scenario files', () => {
  it('loads the xterm-echo example with {{OUT}} substituted inside the JSON reply', async () => {
    const out = '/tmp/deskhand "quoted" out.txt';
    const scenario = await loadScenario(join(FIXTURES, 'scenarios/xterm-echo.yaml'), { OUT: out });
    expect(scenario.name).toBe('xterm-echo');
    expect(scenario.steps).toHaveLength(4);

    const { server, client } = await start(scenario.steps);
    const handOff = await client.chat.completions.create({ model: 'm', messages: USER });
    expect(JSON.parse(handOff.choices[0]?.message.content ?? '')).toMatchObject({ ControlText: 'xterm', 'Current Sub-Task': `Write deskhand-ok into ${out} with a shell command.` });
    const first = await client.chat.completions.create({ model: 'm', messages: USER });
    const step1 = JSON.parse(first.choices[0]?.message.content ?? '') as Record<string, unknown>;
    expect(step1).toMatchObject({
      ControlText: 'xterm',
      Function: 'type_text',
      Args: { text: `echo deskhand-ok > ${out}\n` },
      Status: 'CONTINUE',
      Plan: ['check the file'],
    });
    expect(first.choices[0]?.message.content).toContain('\\n"');

    const second = await client.chat.completions.create({ model: 'm', messages: USER });
    expect(JSON.parse(second.choices[0]?.message.content ?? '')).toMatchObject({
      Status: 'FINISH',
      Function: '',
      Args: {},
    });
    const done = await client.chat.completions.create({ model: 'm', messages: USER });
    expect(JSON.parse(done.choices[0]?.message.content ?? '')).toMatchObject({ Status: 'FINISH', Comment: `The file ${out} says deskhand-ok.` });
    server.assertDone();
  });

  it('reads JSON scenario files too', async () => {
    const file = join(tmp, 'plain.json');
    await writeFile(file, JSON.stringify({ name: 'plain', steps: [{ content: 'hi {{WHO}}' }] }));
    const scenario = await loadScenario(file, { WHO: 'Ana' });
    expect(scenario.steps[0]?.content).toBe('hi Ana');
  });

  it('refuses an unknown placeholder, naming it, the file and where it is', async () => {
    const file = join(tmp, 'unknown-var.yaml');
    await writeFile(file, 'name: x\nsteps:\n  - content: ok\n  - json:\n      Args: { path: "{{ DIR }}/a" }\n');
    await expect(loadScenario(file, { OUT: '/tmp/o' })).rejects.toThrow(
      `Scenario ${file}: unknown placeholder {{DIR}} at steps[1].json.Args.path (variables given: OUT)`,
    );
  });

  it('refuses an invalid scenario with the file and the path of each bad field', async () => {
    const file = join(tmp, 'bad.yaml');
    await writeFile(
      file,
      [
        'name: bad',
        'steps:',
        '  - content: fine',
        '  - status: "429"',
        '  - contents: typo',
        '  - content: a',
        '    json: {}',
        '  - content: b',
        '    expect: { contains: nope }',
      ].join('\n'),
    );
    const err = (await caught(loadScenario(file, {}))) as Error;
    expect(err.message).toContain(`Invalid scenario ${file}:`);
    expect(err.message).toMatch(/at steps\[1\]\.status: .*number/i);
    expect(err.message).toMatch(/at steps\[2\]: .*contents/);
    expect(err.message).toMatch(/at steps\[3\]: a step needs exactly one of content, json, status, hang, found content and json/);
    expect(err.message).toMatch(/at steps\[4\]\.expect\.contains: /);
  });

  it('refuses unparsable YAML and missing files with the file name', async () => {
    const file = join(tmp, 'broken.yaml');
    await writeFile(file, 'name: broken\nsteps: [\n');
    await expect(loadScenario(file, {})).rejects.toThrow(`Cannot parse scenario ${file}`);
    await expect(loadScenario(join(tmp, 'nope.yaml'), {})).rejects.toThrow(`Cannot read scenario ${join(tmp, 'nope.yaml')}`);
  });

  it('validates scenarios given to startModelServer directly', async () => {
    await expect(startModelServer({ name: 'inline', steps: [{ delayMs: 10 }] })).rejects.toThrow(
      /Invalid scenario "inline":\n {2}at steps\[0\]: a step needs exactly one of/,
    );
  });
});

describe('model-server CLI', () => {
  it('prints MODEL_BASE_URL and serves the scenario until killed', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(FIXTURES, 'model-server-cli.ts'), join(FIXTURES, 'scenarios/xterm-echo.yaml'), 'OUT=/tmp/x'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      const lines = createInterface({ input: child.stdout });
      const first = await new Promise<string>((resolve, reject) => {
        lines.once('line', resolve);
        child.once('exit', () => reject(new Error(`CLI exited early: ${stderr}`)));
      });
      const match = /^MODEL_BASE_URL=(http:\/\/127\.0\.0\.1:\d+\/v1)$/.exec(first);
      expect(match, first).not.toBeNull();
      const client = new OpenAI({ baseURL: match?.[1], apiKey: 'test', maxRetries: 0 });
      const completion = await client.chat.completions.create({ model: 'm', messages: USER });
      expect(completion.choices[0]?.message.content).toContain('"Current Sub-Task":"Write deskhand-ok into /tmp/x with a shell command."');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(stderr).toContain('3 steps left');
  });
});
