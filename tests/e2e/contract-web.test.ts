import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { sendRequest } from '../support/desktop-e2e';
import { replies } from '../support/host-harness';
import { launchChromium, startWebApp, type WebApp } from '../support/web-app';
import { startXvfb, type XDisplay } from '../support/xvfb';

/**
 * The contract for running Deskhand, browser mode: `npm run web` and its UI line, DESKHAND_PORT, settings
 * in the UI over the environment, and the UI's accessible names, against the real app.
 */

const UI_LINE = /^Deskhand UI: http:\/\/127\.0\.0\.1:(\d+)\/\?token=(\S+)$/;

let x: XDisplay;
let browser: Browser;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  x = await startXvfb({ width: 1280, height: 800 });
  browser = await launchChromium();
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await browser?.close();
  await x?.stop();
});

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** Stops a process group we started (npm -> sh -> node). */
function stopGroup(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return done();
    child.once('exit', () => done());
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      done();
    }
  });
}

async function model(steps: Parameters<typeof startModelServer>[0]['steps']): Promise<ModelServer> {
  const server = await startModelServer({ name: 'web contract', steps });
  cleanups.push(() => server.close());
  return server;
}

async function app(env: NodeJS.ProcessEnv): Promise<WebApp> {
  const started = await startWebApp({ ...x.env, DESKHAND_DATA_DIR: mkdtempSync(join(tmpdir(), 'deskhand-contract-web-')), ...env });
  cleanups.push(() => started.stop());
  return started;
}

async function page(url: string): Promise<Page> {
  const opened = await browser.newPage();
  cleanups.push(() => opened.close());
  await opened.goto(url);
  return opened;
}

describe('npm run web', () => {
  it('prints exactly the line "Deskhand UI: http://127.0.0.1:PORT/?token=TOKEN" on the port DESKHAND_PORT names, and serves the UI there', async () => {
    const port = await freePort();
    const child = spawn('npm', ['run', 'web'], {
      env: { ...x.env, DESKHAND_PORT: String(port), DESKHAND_DATA_DIR: mkdtempSync(join(tmpdir(), 'deskhand-contract-npm-web-')), OPENAI_API_KEY: '', OPENAI_BASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    cleanups.push(() => stopGroup(child));
    let stdout = '';
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const line = await new Promise<string>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no UI line within 150 s\nstdout:\n${stdout}\nstderr:\n${stderr}`)), 150_000);
      child.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const found = stdout.split('\n').find((candidate) => candidate.startsWith('Deskhand UI:'));
        if (found !== undefined && stdout.includes(`${found}\n`)) {
          clearTimeout(timer);
          done(found);
        }
      });
      child.once('exit', (code) => fail(new Error(`npm run web exited with ${code}\n${stdout}\n${stderr}`)));
    });
    const match = UI_LINE.exec(line);
    expect(match, `the line was ${JSON.stringify(line)}`).not.toBeNull();
    expect(Number(match?.[1])).toBe(port);
    const url = line.slice('Deskhand UI: '.length);
    const ui = await page(url);
    await ui.getByRole('textbox', { name: 'Request' }).waitFor({ timeout: 20_000 });
    // The token is needed.
    const bare = await fetch(`http://127.0.0.1:${port}/`);
    expect(bare.status).toBeGreaterThanOrEqual(400);
  }, 200_000);

  it('DESKHAND_PORT=0 picks a free port', async () => {
    const running = await app({ DESKHAND_PORT: '0' });
    const match = UI_LINE.exec(running.url.replace(/^/, 'Deskhand UI: '));
    expect(Number(match?.[1])).toBeGreaterThan(0);
    const ui = await page(running.url);
    await ui.getByRole('textbox', { name: 'Request' }).waitFor({ timeout: 20_000 });
  });
});

describe('settings in the UI override the environment', () => {
  it('a model name saved in Settings replaces DESKHAND_MODEL from the next request', async () => {
    const scripted = await model([replies.host({ Status: 'FINISH', Comment: 'first' }), replies.host({ Status: 'FINISH', Comment: 'second' })]);
    const running = await app({ OPENAI_BASE_URL: scripted.baseUrl, OPENAI_API_KEY: 'env-key', DESKHAND_MODEL: 'env-model' });
    const ui = await page(running.url);
    await sendRequest(ui, 'first request');
    await expect.poll(() => ui.getByRole('status').first().textContent(), { timeout: 30_000 }).toMatch(/^Finished/);
    expect(scripted.requests[0]?.body.model).toBe('env-model');
    expect(scripted.requests[0]?.headers.authorization).toBe('Bearer env-key');

    await ui.getByRole('button', { name: 'Settings' }).click();
    const dialog = ui.getByRole('dialog', { name: 'Settings' });
    await dialog.waitFor();
    const name = dialog.getByRole('textbox', { name: 'Model', exact: true }).first();
    await expect.poll(() => name.inputValue(), { timeout: 10_000 }).toBe('env-model');
    await name.fill('scripted');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached', timeout: 15_000 });

    await ui.getByRole('button', { name: /^New/ }).first().click().catch(() => undefined);
    await sendRequest(ui, 'second request');
    await expect.poll(() => scripted.requests.length, { timeout: 30_000 }).toBe(2);
    expect(scripted.requests[1]?.body.model).toBe('scripted');
  });
});

describe('UI accessible names (real app)', () => {
  it('"Request", "Send", "Trajectory" and "Stop": a running request is stopped', async () => {
    const scripted = await model([{ ...replies.host({ Status: 'FINISH', Comment: 'late' }), delayMs: 60_000 }]);
    const running = await app({ OPENAI_BASE_URL: scripted.baseUrl, OPENAI_API_KEY: 'scripted', DESKHAND_MODEL: 'scripted' });
    const ui = await page(running.url);
    await ui.getByRole('textbox', { name: 'Request' }).fill('take your time');
    await ui.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => scripted.requests.length, { timeout: 30_000 }).toBe(1);
    const stop = ui.getByRole('button', { name: 'Stop' });
    await expect.poll(() => stop.isDisabled(), { timeout: 10_000 }).toBe(false);
    await stop.click();
    await expect.poll(() => ui.getByRole('status').first().textContent(), { timeout: 15_000 }).toMatch(/^Stopped/);
    // The model request in flight was abandoned.
    await expect.poll(() => scripted.inFlight(), { timeout: 10_000 }).toBe(0);
    await ui.getByRole('list', { name: 'Trajectory' }).waitFor({ state: 'attached' });
  });
});
