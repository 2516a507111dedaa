import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { assetCookieName, isLoopbackAddress, reachableAddress } from '../../src-main/web/auth';
import { startWebServer, type WebServer } from '../../src-main/web/web-server';
import { startReliabilityHost, withDeadline, type ReliabilityHost } from '../support/reliability-harness';
import { spawnWebApp, webAppBuilt, type WebAppProcess } from '../support/web-app';

// Browser mode: every HTTP and WebSocket request without the right token is refused, whatever its path
// and method; listening beyond loopback needs the explicit setting and prints a warning.
const TOKEN = 'auth-token-abcdefghijklmnop';

let rig: ReliabilityHost;
let server: WebServer;
let sessionId: string;

beforeAll(async () => {
  rig = await startReliabilityHost({ name: 'none', steps: [] });
  const rendererDir = mkdtempSync(join(tmpdir(), 'deskhand-renderer-'));
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Deskhand UI</title>');
  mkdirSync(join(rendererDir, 'assets'));
  writeFileSync(join(rendererDir, 'assets', 'index-abc.js'), 'console.log("app")');
  // A stored screenshot and session, as a run would leave them.
  sessionId = rig.host.store.createSession('look at my screen', 'desktop').id;
  mkdirSync(join(rig.dataDir, 'screenshots', sessionId), { recursive: true });
  writeFileSync(join(rig.dataDir, 'screenshots', sessionId, 'step-00000.jpg'), 'PRIVATE-PIXELS');
  server = await startWebServer({ host: rig.host, rendererDir, token: TOKEN, bindHost: '127.0.0.1', port: 0, allowRemote: false });
});

afterAll(async () => {
  await server?.close();
  await rig?.close();
});

interface Answer {
  status: number;
  body: string;
}

function send(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((done, fail) => {
    const request = httpRequest({ host: '127.0.0.1', port: server.port, method, path, headers }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => done({ status: response.statusCode ?? 0, body: text }));
    });
    request.on('error', fail);
    if (body !== undefined) request.write(body);
    request.end();
  });
}

/** The outcome of a WebSocket handshake: 'open', or the HTTP status it was refused with. */
function upgrade(path: string, headers: Record<string, string> = {}): Promise<number | 'open'> {
  return new Promise((done) => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}${path}`, { headers });
    ws.once('open', () => {
      ws.close();
      done('open');
    });
    ws.once('unexpected-response', (_request, response) => {
      done(response.statusCode ?? 0);
      response.resume();
    });
    ws.once('error', () => done(0));
  });
}

const PATHS = () => [
  '/',
  '/index.html',
  '/assets/index-abc.js',
  '/assets/missing.js',
  `/screenshots/${sessionId}/step-00000.jpg`,
  '/screenshots/x/y.jpg',
  '/ws',
  '/api/session.list',
  '/favicon.ico',
  '/..%2f..%2fetc%2fpasswd',
  '//etc/passwd',
  '/index.html?tok=x',
];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

/** Ways of presenting a token that must all fail. */
const WRONG = (): Array<[string, (path: string) => { path: string; headers: Record<string, string> }]> => [
  ['no token', (path) => ({ path, headers: {} })],
  ['empty ?token=', (path) => ({ path: `${path}${path.includes('?') ? '&' : '?'}token=`, headers: {} })],
  ['wrong ?token=', (path) => ({ path: `${path}${path.includes('?') ? '&' : '?'}token=${TOKEN.slice(0, -1)}x`, headers: {} })],
  ['a longer ?token=', (path) => ({ path: `${path}${path.includes('?') ? '&' : '?'}token=${TOKEN}x`, headers: {} })],
  ['a shorter ?token=', (path) => ({ path: `${path}${path.includes('?') ? '&' : '?'}token=${TOKEN.slice(0, -1)}`, headers: {} })],
  ['the token under another name', (path) => ({ path: `${path}${path.includes('?') ? '&' : '?'}Token=${TOKEN}`, headers: {} })],
  ['the token in upper case', (path) => ({ path: `${path}${path.includes('?') ? '&' : '?'}token=${TOKEN.toUpperCase()}`, headers: {} })],
  ['a wrong cookie', (path) => ({ path, headers: { Cookie: 'deskhand_token=nope' } })],
  ['the token in another cookie', (path) => ({ path, headers: { Cookie: `other=${TOKEN}` } })],
  // The cookie reaches every server on this host name, whatever its port: it never carries the token.
  ['the token in the old token cookie', (path) => ({ path, headers: { Cookie: `deskhand_token=${TOKEN}` } })],
  ['the token in the asset cookie', (path) => ({ path, headers: { Cookie: `${assetCookieName(server.port)}=${TOKEN}` } })],
  ['a wrong asset key', (path) => ({ path, headers: { Cookie: `${assetCookieName(server.port)}=nope` } })],
  ['a wrong Bearer', (path) => ({ path, headers: { Authorization: 'Bearer nope' } })],
  ['Basic with the token', (path) => ({ path, headers: { Authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` } })],
];

describe('browser mode refuses every request without the token', () => {
  it('HTTP: every path, every method, every wrong way of presenting a token', async () => {
    const accepted: string[] = [];
    let count = 0;
    for (const method of METHODS) {
      for (const base of PATHS()) {
        for (const [how, make] of WRONG()) {
          const { path, headers } = make(base);
          const answer = await send(method, path, headers, method === 'POST' || method === 'PUT' ? '{"type":"session.list","id":"x"}' : undefined);
          count++;
          if (answer.status !== 401 && answer.status !== 403) accepted.push(`${method} ${path} (${how}) -> ${answer.status}`);
          if (answer.body.includes('PRIVATE-PIXELS') || answer.body.includes('Deskhand UI') || answer.body.includes('console.log')) {
            accepted.push(`${method} ${path} (${how}) leaked content`);
          }
        }
      }
    }
    expect(accepted).toEqual([]);
    expect(count).toBe(METHODS.length * PATHS().length * WRONG().length);
  });

  it('HTTP: the right token from another site (Host or Origin) is refused too', async () => {
    const foreign: Array<Record<string, string>> = [
      { Host: `evil.example:${server.port}` },
      { Origin: 'http://evil.example' },
      { Origin: 'null' },
      { Host: 'localhost.evil.example' },
    ];
    for (const headers of foreign) {
      expect((await send('GET', `/?token=${TOKEN}`, headers)).status, JSON.stringify(headers)).toBe(403);
    }
  });

  it('WebSocket: every path and every wrong way of presenting a token is refused', async () => {
    const opened: string[] = [];
    for (const base of ['/ws', '/', '/ws/', '/wss', '/ws/../ws', '/index.html', `/screenshots/${sessionId}/step-00000.jpg`]) {
      for (const [how, make] of WRONG()) {
        const { path, headers } = make(base);
        const outcome = await upgrade(path, headers);
        if (outcome === 'open' || ![401, 403, 404].includes(outcome)) opened.push(`${path} (${how}) -> ${outcome}`);
      }
    }
    expect(opened).toEqual([]);
    // Only /ws with the token opens, and not from another origin.
    expect(await upgrade(`/ws?token=${TOKEN}`)).toBe('open');
    expect(await upgrade(`/ws?token=${TOKEN}`, { Origin: 'http://evil.example' })).toBe(403);
    expect(await upgrade(`/ws`, { Authorization: `Bearer ${TOKEN}` })).toBe('open');
  });

  it('the token works only as sent: the page loads with it, the screenshot with it', async () => {
    expect((await send('GET', `/?token=${TOKEN}`)).status).toBe(200);
    const shot = await send('GET', `/screenshots/${sessionId}/step-00000.jpg?token=${TOKEN}`);
    expect(shot.status).toBe(200);
    expect(shot.body).toBe('PRIVATE-PIXELS');
    // Writing methods are refused even with the token.
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) expect((await send(method, `/?token=${TOKEN}`)).status, method).toBe(405);
  });
});

describe('the asset cookie opens the built renderer files and nothing else', () => {
  /** The cookie the page sets, as the browser sends it back. */
  async function assetCookieFromPage(): Promise<string> {
    const cookie = await new Promise<string>((done, fail) => {
      const request = httpRequest({ host: '127.0.0.1', port: server.port, path: `/?token=${TOKEN}` }, (response) => {
        response.resume();
        done(String(response.headers['set-cookie'] ?? ''));
      });
      request.on('error', fail);
      request.end();
    });
    expect(cookie).toMatch(new RegExp(`^${assetCookieName(server.port)}=[^;]+; HttpOnly; SameSite=Strict; Path=/$`));
    expect(cookie).not.toContain(TOKEN);
    return cookie.split(';')[0] ?? '';
  }

  it('the page sets a per-launch key, not the token, under a name that carries the port', async () => {
    const cookie = await assetCookieFromPage();
    expect(cookie.startsWith(`deskhand_assets_${server.port}=`)).toBe(true);
    const asset = await send('GET', '/assets/index-abc.js', { Cookie: cookie });
    expect(asset).toEqual({ status: 200, body: 'console.log("app")' });
    expect((await send('HEAD', '/assets/index-abc.js', { Cookie: cookie })).status).toBe(200);
    expect((await send('GET', '/assets/missing.js', { Cookie: cookie })).status).toBe(404);
  });

  it('alone it opens neither the page, nor a screenshot, nor the WebSocket, nor any other method', async () => {
    const cookie = await assetCookieFromPage();
    const opened: string[] = [];
    const paths = ['/', '/index.html', '//index.html', '/index.html/', '/./index.html', '/%69ndex.html', '/INDEX.HTML', `/screenshots/${sessionId}/step-00000.jpg`];
    for (const path of paths) {
      const answer = await send('GET', path, { Cookie: cookie });
      if (answer.status !== 401 || answer.body.includes('Deskhand UI') || answer.body.includes('PRIVATE-PIXELS')) opened.push(`GET ${path} -> ${answer.status}`);
    }
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const answer = await send(method, '/assets/index-abc.js', { Cookie: cookie }, method === 'POST' ? '{}' : undefined);
      if (answer.status !== 401) opened.push(`${method} asset -> ${answer.status}`);
    }
    expect(opened).toEqual([]);
    expect(await upgrade('/ws', { Cookie: cookie })).toBe(401);
    // Another instance's port name does not open this one's files.
    const otherPort = cookie.replace(`deskhand_assets_${server.port}=`, `deskhand_assets_${server.port + 1}=`);
    expect((await send('GET', '/assets/index-abc.js', { Cookie: otherPort })).status).toBe(401);
  });

  it('the renderer fetches screenshots and the WebSocket with the token, which works alongside the cookie', async () => {
    const cookie = await assetCookieFromPage();
    expect((await send('GET', `/screenshots/${sessionId}/step-00000.jpg?token=${TOKEN}`, { Cookie: cookie })).body).toBe('PRIVATE-PIXELS');
    expect(await upgrade(`/ws?token=${TOKEN}`, { Cookie: cookie })).toBe('open');
  });
});

describe('listening beyond loopback', () => {
  const warnings: string[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    warnings.length = 0;
  });
  const spyWarn = () => vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void warnings.push(args.map(String).join(' ')));

  it('is refused without the explicit setting, for any non-loopback address', async () => {
    for (const bindHost of ['0.0.0.0', '::', '192.0.2.10', '10.0.0.1', 'example.com']) {
      await expect(startWebServer({ host: rig.host, rendererDir: '.', token: TOKEN, bindHost, port: 0, allowRemote: false }), bindHost).rejects.toThrow(
        /DESKHAND_ALLOW_REMOTE/,
      );
    }
  });

  it('with the setting it listens, and prints a warning', async () => {
    spyWarn();
    const remote = await startWebServer({ host: rig.host, rendererDir: '.', token: TOKEN, bindHost: '0.0.0.0', port: 0, allowRemote: true });
    try {
      expect(warnings.join('\n')).toMatch(/WARNING: browser mode listens on 0\.0\.0\.0/);
      // An address another machine can use (or loopback when there is no network), never 0.0.0.0.
      expect(remote.url).toBe(`http://${reachableAddress('0.0.0.0')}:${remote.port}/?token=${TOKEN}`);
    } finally {
      await remote.close();
    }
  });

  it('loopback listens without a warning', async () => {
    spyWarn();
    for (const bindHost of ['127.0.0.1', 'localhost']) {
      const local = await startWebServer({ host: rig.host, rendererDir: '.', token: TOKEN, bindHost, port: 0, allowRemote: false });
      await local.close();
    }
    expect(warnings).toEqual([]);
  });

  it('a host name is not an address: "127.example.com" is not loopback', () => {
    // Found here: isLoopbackAddress trusts any name that starts with "127.", so DESKHAND_HOST=127.lan (a
    // name that may resolve to a LAN address) would listen beyond loopback without the setting or a warning.
    expect(isLoopbackAddress('127.0.0.1')).toBe(true);
    expect(isLoopbackAddress('127.example.com')).toBe(false);
  });

  it.skipIf(!webAppBuilt())('npm run web: DESKHAND_HOST=0.0.0.0 stops without DESKHAND_ALLOW_REMOTE=1, and warns with it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'deskhand-web-'));
    const apps: WebAppProcess[] = [];
    const run = async (extra: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> => {
      const env: NodeJS.ProcessEnv = { ...process.env, DESKHAND_DATA_DIR: dataDir, DESKHAND_PORT: '0', DESKHAND_HOST: '0.0.0.0' };
      delete env.DESKHAND_ALLOW_REMOTE;
      Object.assign(env, extra);
      const app = spawnWebApp(env);
      apps.push(app);
      const start = await app.started;
      // The warning goes to stderr first; give that pipe a moment to deliver it.
      if (start.state === 'listening') await new Promise((done) => setTimeout(done, 500));
      return { code: start.state === 'exited' ? start.code : null, stdout: app.stdout(), stderr: app.log() };
    };
    try {
      const refused = await withDeadline(run({}), 30_000, 'web.js neither exited nor listened');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/DESKHAND_ALLOW_REMOTE=1/);
      expect(refused.stdout).not.toMatch(/Deskhand UI/);

      const allowed = await withDeadline(run({ DESKHAND_ALLOW_REMOTE: '1' }), 30_000, 'web.js did not listen');
      expect(allowed.stdout).toContain(`Deskhand UI: http://${reachableAddress('0.0.0.0')}:`);
      expect(allowed.stderr).toMatch(/WARNING: browser mode listens on 0\.0\.0\.0/);
    } finally {
      await Promise.all(apps.map((app) => app.stop()));
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
