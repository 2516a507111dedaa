import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CONTENT_SECURITY_POLICY,
  handleAppRequest,
  registerAppProtocol,
  resolveAppUrl,
  type AppRoots,
} from '../../src-main/electron/app-protocol';
import { ScreenshotFiles } from '../../src-main/memory/screenshot-files';

let base: string;
let roots: AppRoots;
let rendererDir: string;
let screenshotsRoot: string;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'deskhand-app-protocol-'));
  rendererDir = join(base, 'renderer');
  mkdirSync(join(rendererDir, 'assets'), { recursive: true });
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Deskhand</title>');
  writeFileSync(join(rendererDir, 'assets', 'index-abc.js'), 'console.log(1)');
  // Files next to the roots that must never be served.
  writeFileSync(join(base, 'secret.txt'), 'top secret');
  mkdirSync(join(base, 'data'), { recursive: true });
  writeFileSync(join(base, 'data', 'deskhand.sqlite'), 'db');
  const screenshots = new ScreenshotFiles(join(base, 'data'));
  screenshotsRoot = screenshots.root;
  mkdirSync(join(screenshotsRoot, 's1'), { recursive: true });
  writeFileSync(join(screenshotsRoot, 's1', 'step-1.jpg'), Buffer.from([0xff, 0xd8, 0xff]));
  roots = { rendererDir, screenshotPath: (sessionId, file) => screenshots.pathOf(sessionId, file) };
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

function inside(path: string, root: string): boolean {
  return path === resolve(root) || path.startsWith(resolve(root) + sep);
}

describe('app:// URL resolution', () => {
  it('serves the renderer and its assets', () => {
    expect(resolveAppUrl('app://deskhand/index.html', roots)).toEqual({ kind: 'file', path: join(rendererDir, 'index.html'), root: 'renderer' });
    expect(resolveAppUrl('app://deskhand/', roots)).toMatchObject({ kind: 'file', path: join(rendererDir, 'index.html') });
    expect(resolveAppUrl('app://deskhand/assets/index-abc.js?v=1#x', roots)).toMatchObject({ path: join(rendererDir, 'assets', 'index-abc.js') });
  });

  it('serves screenshots through the host screenshot store', () => {
    expect(resolveAppUrl('app://screenshots/s1/step-1.jpg', roots)).toEqual({
      kind: 'file',
      path: join(screenshotsRoot, 's1', 'step-1.jpg'),
      root: 'screenshots',
    });
  });

  // Every one of these must be refused, or at worst resolve to a path inside the renderer root (the
  // URL parser folds plain "../" segments away before we see them).
  const rendererAttempts = [
    'app://deskhand/../secret.txt',
    'app://deskhand/../../../../etc/passwd',
    'app://deskhand/%2e%2e/secret.txt',
    'app://deskhand/%2E%2E/%2e%2E/etc/passwd',
    'app://deskhand/assets/..%2f..%2fsecret.txt',
    'app://deskhand/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
    'app://deskhand/..%5c..%5csecret.txt',
    'app://deskhand/assets%5c..%5c..%5csecret.txt',
    'app://deskhand/%2fetc%2fpasswd',
    'app://deskhand//etc/passwd',
    'app://deskhand/C:%5cWindows%5cwin.ini',
    'app://deskhand/index.html%00.png',
    'app://deskhand/%252e%252e/secret.txt',
    'app://deskhand/%E0%A4%A',
  ];
  it.each(rendererAttempts)('keeps %s inside out/renderer', (url) => {
    const result = resolveAppUrl(url, roots);
    if (result.kind === 'file') expect(inside(result.path, rendererDir), result.path).toBe(true);
    else expect(result.status).toBeGreaterThanOrEqual(400);
  });

  it('refuses encoded separators and parent references outright', () => {
    for (const url of ['app://deskhand/assets/..%2f..%2fsecret.txt', 'app://deskhand/..%5csecret.txt', 'app://deskhand/%2fetc%2fpasswd']) {
      expect(resolveAppUrl(url, roots), url).toMatchObject({ kind: 'refused', status: 403 });
    }
  });

  const screenshotAttempts = [
    'app://screenshots/s1/..%2f..%2fdeskhand.sqlite',
    'app://screenshots/..%2f..%2fdata/deskhand.sqlite',
    'app://screenshots/%2e%2e/deskhand.sqlite',
    'app://screenshots/s1/%2e%2e',
    'app://screenshots/../../secret.txt',
    'app://screenshots/s1/step-1.jpg/extra',
    'app://screenshots/s1',
    'app://screenshots/s1/%2fetc%2fpasswd',
    'app://screenshots/s1/..%5c..%5cdeskhand.sqlite',
    'app://screenshots/%2Fetc/passwd',
    'app://screenshots/s1/.hidden',
    'app://screenshots//step-1.jpg',
  ];
  it.each(screenshotAttempts)('refuses the screenshot path %s', (url) => {
    expect(resolveAppUrl(url, roots)).toMatchObject({ kind: 'refused' });
  });

  it('refuses absolute paths, other hosts, schemes, ports, credentials and methods', () => {
    for (const url of [
      'app://evil/index.html',
      'app://deskhand.evil.com/index.html',
      'app://localhost/etc/passwd',
      'app:///etc/passwd',
      'file:///etc/passwd',
      'https://deskhand/index.html',
      'app://deskhand:8080/index.html',
      'app://user:pw@deskhand/index.html',
      'app://DESKHAND/index.html',
      'not a url',
    ]) {
      expect(resolveAppUrl(url, roots), url).toMatchObject({ kind: 'refused' });
    }
    expect(resolveAppUrl('app://deskhand/index.html', roots, 'POST')).toMatchObject({ kind: 'refused', status: 405 });
  });
});

describe('app:// responses', () => {
  const get = (url: string, method = 'GET') => handleAppRequest(new Request(url, { method }), roots);

  it('answers with the file, its type and the strict CSP', async () => {
    const response = await get('app://deskhand/index.html');
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<title>Deskhand</title>');
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const screenshot = await get('app://screenshots/s1/step-1.jpg');
    expect(screenshot.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await screenshot.arrayBuffer())).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
  });

  it('has a CSP that allows only the app itself (and screenshots as images)', () => {
    const directives = new Map(CONTENT_SECURITY_POLICY.split(';').map((part) => {
      const [name = '', ...values] = part.trim().split(/\s+/);
      return [name, values] as const;
    }));
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('img-src')).toContain('app://screenshots');
    for (const name of ['object-src', 'base-uri', 'frame-ancestors', 'form-action', 'frame-src']) expect(directives.get(name)).toEqual(["'none'"]);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|\*|https?:/);
  });

  it('answers 404 with no file content for refused or missing paths', async () => {
    for (const url of ['app://deskhand/%2e%2e/secret.txt', 'app://deskhand/missing.js', 'app://deskhand/assets', 'app://screenshots/s1/..%2f..%2fdeskhand.sqlite', 'app://other/x']) {
      const response = await get(url);
      expect(response.status, url).toBe(404);
      const body = await response.text();
      expect(body).not.toContain('top secret');
      expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    }
    expect((await get('app://deskhand/index.html', 'DELETE')).status).toBe(405);
    const head = await get('app://deskhand/index.html', 'HEAD');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('serves no file through a symbolic link that leads out of its root', async () => {
    const links = [
      [join(base, 'secret.txt'), join(rendererDir, 'assets', 'leak.txt'), 'app://deskhand/assets/leak.txt'],
      [base, join(rendererDir, 'up'), 'app://deskhand/up/secret.txt'],
      [join(base, 'secret.txt'), join(screenshotsRoot, 's1', 'step-9.jpg'), 'app://screenshots/s1/step-9.jpg'],
      [join(base, 'data'), join(screenshotsRoot, 's9'), 'app://screenshots/s9/deskhand.sqlite'],
    ] as const;
    for (const [target, link] of links) symlinkSync(target, link);
    try {
      for (const [, , url] of links) {
        for (const method of ['GET', 'HEAD']) {
          const response = await get(url, method);
          expect(response.status, `${method} ${url}`).toBe(404);
          expect(await response.text()).not.toMatch(/top secret|^db$/);
        }
      }
      // A link that stays inside its root is still served.
      symlinkSync(join(rendererDir, 'index.html'), join(rendererDir, 'assets', 'home.html'));
      expect((await get('app://deskhand/assets/home.html')).status).toBe(200);
    } finally {
      for (const [, link] of links) rmSync(link, { force: true });
      rmSync(join(rendererDir, 'assets', 'home.html'), { force: true });
    }
  });

  it('decodes a path once: %25 is a percent sign in a file name, never the start of another escape', async () => {
    writeFileSync(join(rendererDir, 'assets', '50%.svg'), '<svg/>');
    try {
      expect(resolveAppUrl('app://deskhand/assets/50%25.svg', roots)).toMatchObject({ kind: 'file', path: join(rendererDir, 'assets', '50%.svg') });
      expect((await get('app://deskhand/assets/50%25.svg')).status).toBe(200);
      // "%252e%252e" names a folder called "%2e%2e", not the parent folder.
      expect(resolveAppUrl('app://deskhand/assets/%252e%252e/index.html', roots)).toMatchObject({
        kind: 'file',
        path: join(rendererDir, 'assets', '%2e%2e', 'index.html'),
      });
      expect((await get('app://deskhand/assets/%252e%252e/index.html')).status).toBe(404);
    } finally {
      rmSync(join(rendererDir, 'assets', '50%.svg'), { force: true });
    }
  });

  it('registers one handler for the app scheme', async () => {
    const registered: string[] = [];
    let handler: ((request: Request) => Promise<Response>) | null = null;
    registerAppProtocol(
      {
        handle(scheme, fn) {
          registered.push(scheme);
          handler = fn;
        },
      },
      roots,
    );
    expect(registered).toEqual(['app']);
    const response = await (handler as unknown as (request: Request) => Promise<Response>)(new Request('app://deskhand/index.html'));
    expect(response.status).toBe(200);
  });
});
