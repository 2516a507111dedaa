import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { HostMessage } from '../../src-main/protocol';
import { startWebServer, type WebServer } from '../../src-main/web/web-server';
import { startReliabilityHost, withDeadline, type ReliabilityHost } from '../support/reliability-harness';
import { badMessages, oversizeMessage, PROTOCOL_CATEGORIES } from '../support/reliability-protocol';
import { seeded, seedFromEnv, soaking } from '../support/reliability-random';

// Random or malformed protocol messages: the host stays up, answers every one with an error reply, and
// still answers a valid session.list afterwards. In-process (ProtocolEndpoint.handleText, what every
// bridge calls) and over browser mode's WebSocket.
const SEED = seedFromEnv(0x5eed_0005);
const COUNT = soaking() ? 20_000 : 1_000;
const TOKEN = 'fuzz-token-0123456789';

let rig: ReliabilityHost;
let server: WebServer;

beforeAll(async () => {
  rig = await startReliabilityHost({ name: 'no model calls', steps: [] });
  const rendererDir = mkdtempSync(join(tmpdir(), 'deskhand-renderer-'));
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Deskhand</title>');
  server = await startWebServer({ host: rig.host, rendererDir, token: TOKEN, bindHost: '127.0.0.1', port: 0, allowRemote: false });
});

afterAll(async () => {
  await server?.close();
  await rig?.close();
});

function isErrorReply(message: HostMessage): boolean {
  return message.type === 'reply' && message.ok === false && typeof message.error.message === 'string' && message.error.message.length > 0;
}

function tally(messages: Array<{ category: string }>, errors: boolean[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const category of PROTOCOL_CATEGORIES) {
    const indexes = messages.flatMap((message, index) => (message.category === category ? [index] : []));
    out[category] = `${indexes.filter((index) => errors[index]).length}/${indexes.length}`;
  }
  return out;
}

describe(`${COUNT} random or malformed protocol messages (seed ${SEED})`, () => {
  it('in-process: each is answered with an error reply; the host stays up', async () => {
    const random = seeded(SEED);
    const messages = badMessages(random, COUNT);
    const answers: HostMessage[] = [];
    for (const message of messages) answers.push(await rig.host.endpoint.handleText(message.text));
    const errors = answers.map(isErrorReply);
    const wrong = messages.flatMap((message, index) => (errors[index] ? [] : [`[${message.category}] ${message.text.slice(0, 120)} -> ${JSON.stringify(answers[index]).slice(0, 200)}`]));
    expect(wrong).toEqual([]);
    expect(errors.filter(Boolean)).toHaveLength(COUNT);
    // Every category was sent and refused in full.
    for (const [category, count] of Object.entries(tally(messages, errors))) expect(count, category).toMatch(/^(\d+)\/\1$/);

    // Over the size limit: refused before it is read.
    expect(isErrorReply(await rig.host.endpoint.handleText(oversizeMessage(random)))).toBe(true);

    // Still up, and nothing was started by any of it.
    const list = await rig.host.endpoint.handleText(JSON.stringify({ type: 'session.list', id: 'after' }));
    expect(list).toMatchObject({ type: 'reply', ok: true, id: 'after', result: { sessions: [] } });
    expect(rig.host.sessions.running).toBeNull();
    expect(rig.model.requests).toHaveLength(0);
  });

  it('over the WebSocket: each is answered with an error reply; the server and the connection stay up', async () => {
    const random = seeded(SEED + 1);
    const messages = badMessages(random, COUNT);
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=${TOKEN}`);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const replies: HostMessage[] = [];
    const binaryFrames = 10;
    const expected = COUNT + binaryFrames + 1;
    const done = new Promise<void>((resolve) => {
      ws.on('message', (data) => {
        const message = JSON.parse(data.toString()) as HostMessage;
        if (message.type !== 'reply') return;
        replies.push(message);
        if (replies.length === expected) resolve();
      });
    });
    for (const message of messages) ws.send(message.text);
    for (let i = 0; i < binaryFrames; i++) ws.send(Buffer.from([0, 1, 2, 255, i]), { binary: true });
    ws.send(JSON.stringify({ type: 'session.list', id: 'after-fuzz' }));
    await withDeadline(done, 120_000, `only ${replies.length} of ${expected} replies arrived`);

    const valid = replies.filter((reply) => reply.type === 'reply' && reply.ok);
    expect(valid).toHaveLength(1);
    expect(valid[0]).toMatchObject({ id: 'after-fuzz', result: { sessions: [] } });
    const errors = replies.filter(isErrorReply);
    expect(errors).toHaveLength(COUNT + binaryFrames);
    expect(ws.readyState).toBe(WebSocket.OPEN);
    ws.close();
  });

  it('a message over the size limit closes only its own WebSocket; the server goes on', async () => {
    const random = seeded(SEED + 2);
    const big = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=${TOKEN}`);
    await new Promise<void>((resolve, reject) => {
      big.once('open', () => resolve());
      big.once('error', reject);
    });
    const closed = new Promise<number>((resolve) => big.once('close', (code) => resolve(code)));
    big.on('error', () => undefined);
    big.send(oversizeMessage(random));
    expect(await withDeadline(closed, 10_000, 'the oversized message did not close its socket')).toBe(1009);

    const next = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=${TOKEN}`);
    const reply = await new Promise<HostMessage>((resolve, reject) => {
      next.once('open', () => next.send(JSON.stringify({ type: 'session.list', id: 'still-up' })));
      next.on('message', (data) => {
        const message = JSON.parse(data.toString()) as HostMessage;
        if (message.type === 'reply') resolve(message);
      });
      next.once('error', reject);
    });
    expect(reply).toMatchObject({ ok: true, id: 'still-up' });
    next.close();
  });
});
