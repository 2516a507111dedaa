import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startWebServer, type WebServer } from '../../src-main/web/web-server';
import { startHostHarness, type HostHarness } from '../support/host-harness';

let harness: HostHarness;
let server: WebServer;
const token = 'test-token-123';
const pageMark = '5e1f0a9c';

function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port: server.port, path, headers }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, headers: response.headers }));
    });
    request.on('error', reject);
    request.end();
  });
}

function openSocket(path: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}${path}`, { headers });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_request, response) => reject(new Error(`refused with ${response.statusCode}`)));
    ws.once('error', reject);
  });
}

function nextMessage(ws: WebSocket): Promise<Record<string, unknown>> {
  return new Promise((resolve) => ws.once('message', (data) => resolve(JSON.parse(data.toString()))));
}

beforeAll(async () => {
  harness = await startHostHarness({ name: 'none', steps: [] });
  const rendererDir = mkdtempSync(join(tmpdir(), 'deskhand-renderer-'));
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Deskhand</title>');
  mkdirSync(join(rendererDir, 'assets'));
  writeFileSync(join(rendererDir, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(harness.dataDir, 'secret.txt'), 'do not serve');
  mkdirSync(join(harness.dataDir, 'screenshots', 'session-1'), { recursive: true });
  writeFileSync(join(harness.dataDir, 'screenshots', 'session-1', 'step-00000.png'), 'PIXELS');
  server = await startWebServer({ host: harness.host, rendererDir, token, bindHost: '127.0.0.1', port: 0, allowRemote: false, pageMark });
});

afterAll(async () => {
  await server.close();
  await harness.close();
});

describe('browser mode server', () => {
  it('prints a loopback URL with the token', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=${token}`);
  });

  it('refuses every HTTP request without the token', async () => {
    for (const path of ['/', '/index.html', '/assets/app.js', '/screenshots/a/b.jpg']) {
      expect((await get(path)).status, path).toBe(401);
    }
    expect((await get('/?token=wrong')).status).toBe(401);
  });

  it('serves the page with the token, sets the cookie, then serves assets by cookie', async () => {
    const page = await get(`/?token=${token}`);
    expect(page.status).toBe(200);
    // This launch's mark is in the title, where the device client looks for the window showing the page.
    expect(page.body).toContain(`<title>Deskhand · ${pageMark}</title>`);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    const cookie = String(page.headers['set-cookie']);
    expect(cookie).toContain('HttpOnly');
    const asset = await get('/assets/app.js', { Cookie: cookie.split(';')[0] ?? '' });
    expect(asset.status).toBe(200);
  });

  it('serves screenshots with the token in a header, so that no image address carries it', async () => {
    const shot = await get('/screenshots/session-1/step-00000.png', { Authorization: `Bearer ${token}` });
    expect(shot.status).toBe(200);
    expect(shot.body).toBe('PIXELS');
    // A picture of the user's screen: never written to the browser's disk cache, where it would outlive
    // the session's deletion (defect: cached for a day).
    expect(shot.headers['cache-control']).toBe('no-store');
    expect((await get('/screenshots/session-1/step-00000.png')).status).toBe(401);
    expect((await get('/screenshots/session-1/step-00000.png', { Authorization: 'Bearer wrong' })).status).toBe(401);
  });

  it('answers a reload of the page without the token with a refusal that starts the page with the kept token', async () => {
    const cookie = String((await get(`/?token=${token}`)).headers['set-cookie']).split(';')[0] ?? '';
    const reload = await get('/', { Cookie: cookie });
    expect(reload.status).toBe(401);
    expect(reload.headers['cache-control']).toBe('no-store');
    expect(reload.body).toContain('<script type="module" src="/reenter.js"></script>');
    expect(reload.body).toContain(`<title>Deskhand · ${pageMark}</title>`);
    expect(reload.body).toContain('Unauthorized: open the address Deskhand printed, with its token');
    // reenter.js fetches the page with the token in a header.
    const page = await get('/', { Cookie: cookie, Authorization: `Bearer ${token}` });
    expect(page.status).toBe(200);
    expect(page.body).toContain(`<title>Deskhand · ${pageMark}</title>`);
    // Without the asset cookie, or with a wrong token (an earlier launch's link), a plain refusal.
    for (const [path, headers] of [['/', {}], ['/?token=old', { Cookie: cookie }]] as const) {
      const refused = await get(path, headers);
      expect(refused.status, path).toBe(401);
      expect(refused.body, path).toBe('Unauthorized: open the address Deskhand printed, with its token');
    }
  });

  it('refuses a foreign Host or Origin (DNS rebinding)', async () => {
    expect((await get(`/?token=${token}`, { Host: `evil.example:${server.port}` })).status).toBe(403);
    expect((await get(`/?token=${token}`, { Origin: 'http://evil.example' })).status).toBe(403);
  });

  it('never serves files outside its roots', async () => {
    for (const path of ['/..%2fsecret.txt', '/assets/..%2f..%2fsecret.txt', '/screenshots/..%2f/secret.txt', '/screenshots/x/..%2f..%2fsecret.txt']) {
      const response = await get(`${path}${path.includes('?') ? '&' : '?'}token=${token}`);
      expect(response.status, path).toBe(404);
      expect(response.body).not.toContain('do not serve');
    }
  });

  it('refuses a WebSocket without the token or from another origin', async () => {
    await expect(openSocket('/ws')).rejects.toThrow(/401/);
    await expect(openSocket('/ws?token=nope')).rejects.toThrow(/401/);
    await expect(openSocket(`/ws?token=${token}`, { Origin: 'http://evil.example' })).rejects.toThrow(/403/);
  });

  it('answers malformed messages with an error and keeps the connection', async () => {
    const ws = await openSocket(`/ws?token=${token}`);
    ws.send('this is not json');
    expect(await nextMessage(ws)).toMatchObject({ type: 'reply', ok: false, id: null, error: { code: 'bad_message' } });
    ws.send(JSON.stringify({ type: 'session.start', id: 'r1' }));
    expect(await nextMessage(ws)).toMatchObject({ type: 'reply', ok: false, id: 'r1' });
    ws.send(JSON.stringify({ type: 'session.list', id: 'r2' }));
    expect(await nextMessage(ws)).toMatchObject({ type: 'reply', ok: true, id: 'r2', result: { sessions: [] } });
    ws.close();
  });

  it('will not listen beyond loopback without the explicit setting', async () => {
    await expect(
      startWebServer({ host: harness.host, rendererDir: '.', token, bindHost: '0.0.0.0', port: 0, allowRemote: false }),
    ).rejects.toThrow(/DESKHAND_ALLOW_REMOTE/);
  });
});
