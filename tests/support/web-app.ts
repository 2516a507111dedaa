import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

export interface WebApp {
  url: string;
  process: ChildProcess;
  /** Everything the app wrote on stderr (its log), for failure messages. */
  log(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const BUILT_WEB_ENTRY = resolve('out/main/web.js');

/** Whether `out/main/web.js` is there (`npm run build`, which npm test runs, makes it). */
export function webAppBuilt(): boolean {
  return existsSync(BUILT_WEB_ENTRY);
}

/** How a start of browser mode went: it printed its UI address, or it exited first. */
export type WebAppStart = { state: 'listening'; url: string } | { state: 'exited'; code: number | null };

export interface WebAppProcess {
  process: ChildProcess;
  /** Everything the app wrote on stdout so far. */
  stdout(): string;
  /** Everything the app wrote on stderr (its log) so far. */
  log(): string;
  /** Settles once the app prints its "Deskhand UI: <address>" line, or exits before it does. */
  started: Promise<WebAppStart>;
  /** The exit code, once the app has exited and its output is all read. */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Spawns `node out/main/web.js` with exactly `env` (no port is chosen for it) and collects its output. */
export function spawnWebApp(env: NodeJS.ProcessEnv): WebAppProcess {
  if (!webAppBuilt()) throw new Error('the app is not built: run `npm run build` (npm test does)');
  const child = spawn(process.execPath, [BUILT_WEB_ENTRY], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // 'close', not 'exit': 'exit' can come before the last of the output is read.
  const exited = new Promise<number | null>((done) => child.once('close', (code: number | null) => done(code)));
  const started = new Promise<WebAppStart>((done) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /^Deskhand UI: (\S+)\r?\n/m.exec(stdout);
      if (match?.[1]) done({ state: 'listening', url: match[1] });
    });
    void exited.then((code) => done({ state: 'exited', code }));
  });
  return {
    process: child,
    stdout: () => stdout,
    log: () => stderr,
    started,
    exited,
    stop: (signal = 'SIGTERM') =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', () => done());
        child.kill(signal);
      }),
  };
}

/** Starts `node out/main/web.js` (what `npm run web` runs after building) on a free loopback port and waits for its UI line. */
export async function startWebApp(env: NodeJS.ProcessEnv): Promise<WebApp> {
  const app = spawnWebApp({ ...env, DESKHAND_PORT: '0' });
  let timer: NodeJS.Timeout | undefined;
  const noLine = new Promise<never>((_done, fail) => {
    timer = setTimeout(() => fail(new Error(`no UI line within 20 s; log:\n${app.log()}`)), 20_000);
  });
  try {
    const start = await Promise.race([app.started, noLine]);
    if (start.state === 'exited') throw new Error(`the app exited with ${start.code}; log:\n${app.log()}`);
    if (!/^http:\/\/127\.0\.0\.1:\d+\/\?token=\S+$/.test(start.url)) throw new Error(`the UI address is not a loopback one with a token: ${start.url}`);
    return { url: start.url, process: app.process, log: app.log, stop: app.stop };
  } catch (error) {
    await app.stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.DESKHAND_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
