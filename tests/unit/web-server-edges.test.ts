import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpGet, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { hostname, networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import type { HostEvent, HostMessage } from '../../src-main/protocol';
import type { MachineAddresses } from '../../src-main/web/auth';
import { MAX_CONNECTIONS, startWebServer, type WebHost, type WebServer, type WebServerOptions } from '../../src-main/web/web-server';

const TOKEN = 'edge-token-0123456789abcdef';

interface FakeHost extends WebHost {
  readonly listeners: Set<(event: HostEvent) => void>;
  emit(event: HostEvent): void;
}

function fakeHost(screenshotPath: string): FakeHost {
  const listeners = new Set<(event: HostEvent) => void>();
  const notUnderstood: HostMessage = { type: 'reply', id: null, ok: false, error: { code: 'bad_message', message: 'fake host' } };
  return {
    listeners,
    emit: (event) => listeners.forEach((listener) => listener(event)),
    endpoint: { handleText: () => Promise.resolve(notUnderstood) },
    sessions: {
      subscribe(listener) {
        listeners.add(listener);
        return () => void listeners.delete(listener);
      },
    },
    screenshots: { pathOf: (sessionId, file) => (sessionId === 's1' && file === 'step-00000.png' ? screenshotPath : null) },
  };
}

let dir: string;
let rendererDir: string;
let host: FakeHost;
const servers: WebServer[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'deskhand-web-edges-'));
  rendererDir = join(dir, 'renderer');
  mkdirSync(rendererDir);
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Deskhand</title>');
  writeFileSync(join(dir, 'shot.png'), 'PIXELS');
  host = fakeHost(join(dir, 'shot.png'));
});

afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function start(options: Partial<WebServerOptions> = {}): Promise<WebServer> {
  const server = await startWebServer({ host, rendererDir, token: TOKEN, bindHost: '127.0.0.1', port: 0, allowRemote: false, ...options });
  servers.push(server);
  return server;
}

interface Answer {
  status: number;
  body: string;
}

/** A GET to `address` (where the TCP connection goes) with any Host header. */
function getVia(address: string, port: number, path: string, hostHeader: string): Promise<Answer> {
  return new Promise((done, fail) => {
    const request = httpRequest({ host: address, port, path, headers: { Host: hostHeader } }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => done({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', fail);
    request.end();
  });
}

/** Opens the printed URL as a browser would (Host from the URL). */
function getUrl(url: string): Promise<Answer> {
  return new Promise((done, fail) => {
    httpGet(url, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => done({ status: response.statusCode ?? 0, body }));
    }).on('error', fail);
  });
}

function hasAddress(address: string): boolean {
  return Object.values(networkInterfaces()).some((list) => list?.some((info) => info.address === address));
}

function externalIPv4(): string | undefined {
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .find((info) => info.family === 'IPv4' && !info.internal)?.address;
}

describe('the printed address is the one listening (defect: every loopback printed as 127.0.0.1)', () => {
  it.skipIf(!hasAddress('::1'))('bound to ::1: prints [::1], and that URL opens the page', async () => {
    const server = await start({ bindHost: '::1' });
    expect(server.url).toBe(`http://[::1]:${server.port}/?token=${TOKEN}`);
    expect((await getUrl(server.url)).status).toBe(200);
  });

  // All of 127/8 is loopback on Linux; macOS has only 127.0.0.1 unless aliased.
  it.skipIf(process.platform !== 'linux')('bound to 127.0.0.2: prints 127.0.0.2, and that URL opens the page', async () => {
    const server = await start({ bindHost: '127.0.0.2' });
    expect(server.url).toBe(`http://127.0.0.2:${server.port}/?token=${TOKEN}`);
    expect((await getUrl(server.url)).status).toBe(200);
    expect((await getVia('127.0.0.2', server.port, `/?token=${TOKEN}`, `localhost:${server.port}`)).status).toBe(200);
    expect((await getVia('127.0.0.2', server.port, `/?token=${TOKEN}`, `evil.example:${server.port}`)).status).toBe(403);
  });

  it('the default stays http://127.0.0.1:PORT/?token=TOKEN', async () => {
    const server = await start();
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=${TOKEN}`);
  });
});

describe('bound to every interface with DESKHAND_ALLOW_REMOTE (defect: only Host 0.0.0.0:port was accepted)', () => {
  const quiet = () => vi.spyOn(console, 'warn').mockImplementation(() => undefined);

  it.skipIf(!externalIPv4())('prints a real interface address, and the page opens through it', async () => {
    quiet();
    const server = await start({ bindHost: '0.0.0.0', allowRemote: true });
    const address = externalIPv4() ?? '';
    expect(server.url).toBe(`http://${address}:${server.port}/?token=${TOKEN}`);
    expect((await getUrl(server.url)).status).toBe(200);
  });

  it('accepts the machine name and loopback, refuses other names (DNS rebinding)', async () => {
    quiet();
    const server = await start({ bindHost: '0.0.0.0', allowRemote: true });
    const path = `/?token=${TOKEN}`;
    for (const name of ['127.0.0.1', 'localhost', hostname()]) {
      expect((await getVia('127.0.0.1', server.port, path, `${name}:${server.port}`)).status, name).toBe(200);
    }
    for (const name of ['evil.example', '0.0.0.0.evil.example', `${hostname()}.evil.example`]) {
      expect((await getVia('127.0.0.1', server.port, path, `${name}:${server.port}`)).status, name).toBe(403);
    }
  });

  it('an address the machine gets while Deskhand runs is accepted', async () => {
    quiet();
    const addresses = ['127.0.0.1', '192.0.2.5'];
    const machine: MachineAddresses = {
      interfaces: () => addresses.map((address) => ({ address, family: 'IPv4', internal: address === '127.0.0.1', netmask: '', mac: '', cidr: null })),
      hostname: () => 'workstation',
    };

    const server = await start({ bindHost: '0.0.0.0', allowRemote: true, machine });
    expect(server.url).toBe(`http://192.0.2.5:${server.port}/?token=${TOKEN}`);
    const viaNewAddress = () => getVia('127.0.0.1', server.port, `/?token=${TOKEN}`, `198.51.100.7:${server.port}`);
    expect((await viaNewAddress()).status).toBe(403);
    addresses.push('198.51.100.7');
    expect((await viaNewAddress()).status).toBe(200);
  });
});

describe('screenshot paths', () => {
  it('a malformed percent-encoding is a 404, not a 500 with a logged stack', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const server = await start();
    const via = (path: string) => getVia('127.0.0.1', server.port, `${path}?token=${TOKEN}`, `127.0.0.1:${server.port}`);
    for (const path of ['/screenshots/%E0%A4%A/x.png', '/screenshots/s1/%E0%A4%A', '/screenshots/%/%']) {
      expect((await via(path)).status, path).toBe(404);
    }
    expect(errors).not.toHaveBeenCalled();
    expect(await via('/screenshots/s1/step-00000.png')).toEqual({ status: 200, body: 'PIXELS' });
    expect((await via('/screenshots/%73%31/step-00000.png')).body).toBe('PIXELS');
  });
});

/** Sends `head` as it is over a fresh connection; resolves with what came back once the server closes it. */
function rawRequest(port: number, head: string): Promise<string> {
  return new Promise((done, fail) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('close', () => done(answer));
    socket.on('error', fail);
    setTimeout(() => {
      socket.destroy();
      fail(new Error(`no answer to ${JSON.stringify(head.split('\r\n')[0])}, got ${JSON.stringify(answer)}`));
    }, 3_000).unref();
  });
}

describe('a request target that is no URL (defect: an upgrade with one threw out of the handler and ended browser mode)', () => {
  const head = (target: string, port: number, upgrade: boolean) =>
    `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
    (upgrade ? 'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n' : 'Connection: close\r\n') +
    '\r\n';

  it('is answered 400, with nothing thrown and nothing logged, and the server goes on', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const server = await start();
    for (const target of ['http://[', '//[', `http://[/ws?token=${TOKEN}`]) {
      expect(await rawRequest(server.port, head(target, server.port, true)), target).toMatch(/^HTTP\/1\.1 400 /);
      expect(await rawRequest(server.port, head(target, server.port, false)), target).toMatch(/^HTTP\/1\.1 400 /);
    }
    expect(errors).not.toHaveBeenCalled();
    const ws = await openSocket(server.port);
    const gone = closed(ws);
    ws.close();
    await gone;
    await expect.poll(() => host.listeners.size).toBe(0);
  });
});

function openSocket(port: number): Promise<WebSocket> {
  return new Promise((done, fail) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${TOKEN}`);
    ws.once('open', () => done(ws));
    ws.once('unexpected-response', (_request, response) => {
      response.resume();
      fail(new Error(`refused with ${response.statusCode}`));
    });
    ws.once('error', fail);
  });
}

function closed(ws: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((done) => ws.once('close', (code, reason) => done({ code, reason: reason.toString() })));
}

describe('WebSocket limits', () => {
  it('a refused upgrade whose client resets the connection is no uncaught error (defect: write ECONNRESET ended the process)', async () => {
    const server = await start();
    for (let i = 0; i < 20; i++) {
      await new Promise<void>((done) => {
        const socket = connect(server.port, '127.0.0.1', () =>
          socket.write(`GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n`, () => {
            socket.resetAndDestroy();
            done();
          }),
        );
        socket.on('error', () => done());
      });
    }
    // Vitest fails the run on an uncaught error; the server must also still be there.
    await new Promise((done) => setTimeout(done, 200));
    const ws = await openSocket(server.port);
    const gone = closed(ws);
    ws.close();
    await gone;
  });

  it('a refused upgrade is closed by the server, not held for a client that keeps its half open (defect: held forever, and close() waited for it)', async () => {
    const server = await start();
    const socket = connect({ port: server.port, host: '127.0.0.1', allowHalfOpen: true });
    socket.write(`GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n`);
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    await new Promise((done) => socket.once('end', done));
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    const stopped = await Promise.race([
      server.close().then(() => 'closed'),
      new Promise((done) => setTimeout(() => done('still open'), 2_000)),
    ]);
    socket.destroy();
    expect(stopped).toBe('closed');
  });

  it(`at most ${MAX_CONNECTIONS} open connections; one more is refused with 503 until one closes`, async () => {
    const server = await start();
    const before = host.listeners.size;
    const open = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, () => openSocket(server.port)));
    await expect(openSocket(server.port)).rejects.toThrow(/503/);
    const first = open.shift();
    const gone = first ? closed(first) : Promise.resolve();
    first?.close();
    await gone;
    await expect.poll(() => host.listeners.size).toBe(before + MAX_CONNECTIONS - 1);
    open.push(await openSocket(server.port));
    await Promise.all(open.map((ws) => ((ws.close(), closed(ws)))));
  });

  it('a client that stops reading is closed with 1013 instead of holding every event in memory', async () => {
    const server = await start({ maxBufferedBytes: 1024 * 1024 });
    const slow = await openSocket(server.port);
    const healthy = await openSocket(server.port);
    let healthyGot = 0;
    healthy.on('message', () => healthyGot++);
    slow.pause();
    const subscribed = host.listeners.size;
    const big: HostEvent = { kind: 'session.deleted', sessionId: 'x'.repeat(1024 * 1024) };
    let sent = 0;
    // Loopback's socket buffers take several MB before anything stays in the server's queue.
    while (host.listeners.size === subscribed && sent < 64) {
      host.emit(big);
      sent++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(host.listeners.size).toBe(subscribed - 1);
    const outcome = closed(slow);
    slow.resume();
    expect(await outcome).toEqual({ code: 1013, reason: expect.stringMatching(/reconnect/) });
    // The other client was not affected.
    await expect.poll(() => healthyGot, { timeout: 10_000 }).toBe(sent);
    healthy.close();
  });
});

describe('WebSocket heartbeat (defect: a client that vanished without closing held its slot for good)', () => {
  /** Completes a WebSocket handshake by hand, then never answers anything: a peer that is gone. */
  function silentPeer(port: number): Promise<{ gone(): boolean }> {
    return new Promise((done, fail) => {
      const socket = connect(port, '127.0.0.1', () =>
        socket.write(
          `GET /ws?token=${TOKEN} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
            'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
        ),
      );
      let gone = false;
      socket.once('close', () => (gone = true));
      socket.once('data', (chunk: Buffer) => {
        if (chunk.toString().startsWith('HTTP/1.1 101 ')) done({ gone: () => gone });
        else fail(new Error(chunk.toString()));
      });
      socket.on('error', () => undefined);
    });
  }

  it('a peer that answers no ping is dropped; one that does stays', async () => {
    // The connections of earlier tests are gone once their servers closed.
    await expect.poll(() => host.listeners.size).toBe(0);
    const server = await start({ heartbeatMs: 100 });
    const healthy = await openSocket(server.port);
    const silent = await silentPeer(server.port);
    await expect.poll(() => silent.gone(), { timeout: 3_000 }).toBe(true);
    await expect.poll(() => host.listeners.size).toBe(1);
    // Several more rounds of pings: the one that answers stays.
    await new Promise((done) => setTimeout(done, 500));
    expect(healthy.readyState).toBe(WebSocket.OPEN);
    expect(host.listeners.size).toBe(1);
    const gone = closed(healthy);
    healthy.close();
    await gone;
  });
});

describe("the page mark (the device client keeps off the browser window whose title has it)", () => {
  it('is refused when it could turn up in other titles by chance, or would not fit in a title', async () => {
    for (const pageMark of ['', 'abc', '<b>mark</b>', 'two words', 'x'.repeat(65)]) {
      await expect(start({ pageMark }), pageMark).rejects.toThrow(/page mark/);
    }
  });

  it('a built page without a title is an error, not a page without the mark', async () => {
    const untitled = join(dir, 'untitled');
    mkdirSync(untitled, { recursive: true });
    writeFileSync(join(untitled, 'index.html'), '<!doctype html><p>no title</p>');
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const server = await start({ rendererDir: untitled, pageMark: '5e1f0a9c' });
    expect((await getUrl(server.url)).status).toBe(500);
  });
});
