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

/** Starts `node out/main/web.js` (what `npm run web` runs after building) and waits for its UI line. */
export async function startWebApp(env: NodeJS.ProcessEnv): Promise<WebApp> {
  if (!existsSync(BUILT_WEB_ENTRY)) throw new Error('the app is not built: run `npm run build` (npm test does)');
  const child = spawn(process.execPath, [BUILT_WEB_ENTRY], { env: { ...env, DESKHAND_PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((done, fail) => {
    let stdout = '';
    const timer = setTimeout(() => fail(new Error(`no UI line within 20 s; log:\n${stderr}`)), 20_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /^Deskhand UI: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m.exec(stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        done(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`the app exited with ${code}; log:\n${stderr}`));
    });
  });
  return {
    url,
    process: child,
    log: () => stderr,
    stop: (signal = 'SIGTERM') =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', () => done());
        child.kill(signal);
      }),
  };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.DESKHAND_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
