import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, get, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendFile } from '../../src-main/web/static-files';

let dir: string;
let server: Server | undefined;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'deskhand-static-'));
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((done) => server?.close(done) ?? done(undefined));
  rmSync(dir, { recursive: true, force: true });
});

describe('sendFile', () => {
  it('finishes when the client goes away mid-file (defect: the file stayed open and the send never ended)', async () => {
    // Larger than what loopback's socket buffers take, so the client's leaving stops the transfer halfway.
    const big = join(dir, 'big.png');
    writeFileSync(big, Buffer.alloc(64 * 1024 * 1024, 1));
    let finished = false;
    server = createServer((_request, response) => {
      void sendFile(response, big, dir).then(() => (finished = true));
    });
    await new Promise<void>((done) => server?.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;

    await new Promise<void>((done, fail) => {
      const request = get({ host: '127.0.0.1', port, path: '/' }, (response) => {
        response.once('data', () => {
          request.destroy();
          done();
        });
      });
      request.on('error', (error) => (request.destroyed ? undefined : fail(error)));
    });
    await expect.poll(() => finished, { timeout: 3_000 }).toBe(true);
  });

  it('a HEAD is answered with the headers and no body, and finishes', async () => {
    const small = join(dir, 'small.css');
    writeFileSync(small, 'body{}');
    const head = createServer((_request, response) => void sendFile(response, small, dir));
    await new Promise<void>((done) => head.listen(0, '127.0.0.1', done));
    const { port } = head.address() as AddressInfo;
    const answer = await new Promise<{ length: string | undefined; body: string }>((done, fail) => {
      httpRequest({ host: '127.0.0.1', port, path: '/', method: 'HEAD' }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => done({ length: response.headers['content-length'], body }));
      })
        .on('error', fail)
        .end();
    });
    head.closeAllConnections();
    head.close();
    expect(answer).toEqual({ length: '6', body: '' });
  });

  it('serves no file through a symbolic link that leads out of its root, and one that stays inside', async () => {
    // A command the agent runs can put a link in the screenshots folder: it must not open the user's files.
    const root = join(dir, 'root');
    mkdirSync(join(root, 's1'), { recursive: true });
    const secret = join(dir, 'secret.txt');
    writeFileSync(secret, 'private');
    writeFileSync(join(root, 's1', 'step-1.png'), 'picture');
    symlinkSync(secret, join(root, 's1', 'step-2.png'));
    symlinkSync(dir, join(root, 'out'));
    symlinkSync(join(root, 's1', 'step-1.png'), join(root, 's1', 'step-3.png'));
    const served = createServer((request, response) => {
      void sendFile(response, join(root, decodeURIComponent(request.url ?? '/')), root).then((sent) => {
        if (!sent) response.writeHead(404).end();
      });
    });
    await new Promise<void>((done) => served.listen(0, '127.0.0.1', done));
    const { port } = served.address() as AddressInfo;
    const fetchBody = (path: string): Promise<{ status: number | undefined; body: string }> =>
      new Promise((done, fail) => {
        get({ host: '127.0.0.1', port, path }, (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => done({ status: response.statusCode, body }));
        }).on('error', fail);
      });
    try {
      expect(await fetchBody('/s1/step-2.png')).toEqual({ status: 404, body: '' });
      expect(await fetchBody('/out/secret.txt')).toEqual({ status: 404, body: '' });
      expect(await fetchBody('/s1/step-1.png')).toEqual({ status: 200, body: 'picture' });
      expect(await fetchBody('/s1/step-3.png')).toEqual({ status: 200, body: 'picture' });
    } finally {
      served.closeAllConnections();
      served.close();
    }
  });
});
