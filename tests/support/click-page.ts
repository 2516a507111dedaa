import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/**
 * Serves tests/support/pages/click-page.html on 127.0.0.1 and collects the events the page reports
 * (POST /event): where each click, double click, right or middle click, wheel and drag landed relative
 * to its target element.
 */

export interface PageEvent {
  type: string;
  target?: string;
  /** Position relative to the target's top-left corner, CSS pixels. */
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  button?: number;
  deltaX?: number;
  deltaY?: number;
  moves?: number;
  [key: string]: unknown;
}

export interface ClickPage {
  url: string;
  events: PageEvent[];
  /** Resolves with the first event (from index `from` on) that matches, or rejects after timeoutMs. */
  waitFor(match: (event: PageEvent) => boolean, timeoutMs?: number, from?: number): Promise<PageEvent>;
  close(): Promise<void>;
}

export async function startClickPage(): Promise<ClickPage> {
  const html = await readFile(join(process.cwd(), 'tests/support/pages/click-page.html'));
  const events: PageEvent[] = [];
  const server: Server = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/event') {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        try {
          events.push(JSON.parse(body) as PageEvent);
        } catch {
          // ignore malformed reports
        }
        res.writeHead(204).end();
      });
      return;
    }
    if (req.method === 'GET' && (req.url === '/' || req.url?.startsWith('/?'))) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    events,
    async waitFor(match, timeoutMs = 5_000, from = 0) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = events.slice(from).find(match);
        if (found) return found;
        if (Date.now() > deadline) {
          throw new Error(`no matching page event within ${timeoutMs} ms; events: ${JSON.stringify(events.slice(from))}`);
        }
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
