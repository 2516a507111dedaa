// Finding and starting the Electron binary for desktop-app tests. No Electron binary can be downloaded on
// the machines these tests usually run on, so tests that need it ask
// `electronAvailability()` first and skip with its reason.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { _electron, type ElectronApplication, type Page } from 'playwright-core';

const require = createRequire(import.meta.url);

export type Availability = { ok: true; executable: string } | { ok: false; reason: string };

/** The Electron executable `npm start` would use, or why there is none. */
export function electronAvailability(): Availability {
  let packageDir: string;
  try {
    packageDir = dirname(require.resolve('electron/package.json'));
  } catch {
    return { ok: false, reason: 'the electron package is not installed (npm install)' };
  }
  // What the electron package's own index.js does (it may not be required here: lint keeps electron
  // inside src-main/electron): path.txt names the executable under dist/, or under
  // ELECTRON_OVERRIDE_DIST_PATH when that is set (an Electron installed elsewhere).
  const pathFile = join(packageDir, 'path.txt');
  const named = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  if (!named && !override) {
    return {
      ok: false,
      reason: `no Electron binary (${pathFile} is missing: its download is skipped at install time and happens on the first \`npm start\`)`,
    };
  }
  const executable = override ? join(override, named ?? 'electron') : join(packageDir, 'dist', named as string);
  if (!existsSync(executable)) {
    return { ok: false, reason: `the Electron binary ${executable} does not exist` };
  }
  return { ok: true, executable };
}

/** better-sqlite3 for Electron's ABI (build/electron-native.mjs), which the app needs to open its database. */
export function electronSqliteAvailability(): Availability {
  const binary = resolve('node_modules/.cache/deskhand-electron/better_sqlite3.node');
  const stamp = resolve('node_modules/.cache/deskhand-electron/better_sqlite3.json');
  if (!existsSync(binary) || !existsSync(stamp)) {
    return { ok: false, reason: `better-sqlite3 is not built for Electron (${binary} is missing): run  node build/electron-native.mjs` };
  }
  const electronVersion = (JSON.parse(readFileSync(resolve('node_modules/electron/package.json'), 'utf8')) as { version: string }).version;
  const built = (JSON.parse(readFileSync(stamp, 'utf8')) as { electron?: string }).electron;
  if (built !== electronVersion) {
    return { ok: false, reason: `better-sqlite3 was built for Electron ${built}, not ${electronVersion}: run  node build/electron-native.mjs` };
  }
  return { ok: true, executable: binary };
}

export interface DesktopApp {
  app: ElectronApplication;
  window: Page;
  /** Everything the main process printed, for failure messages. */
  log(): string;
  close(): Promise<void>;
}

/** Starts the built app (out/main/electron.js via package.json "main") like `electron .` does. */
export async function launchDesktopApp(executable: string, env: NodeJS.ProcessEnv): Promise<DesktopApp> {
  if (!existsSync(resolve('out/main/electron.js'))) throw new Error('the app is not built: run `npm run build` (npm test does)');
  // Chromium's own sandbox cannot start as root (containers); the renderer stays sandboxed by Electron.
  const args = [resolve('.'), ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])];
  const app = await _electron.launch({ executablePath: executable, args, env: env as Record<string, string>, timeout: 60_000 });
  let output = '';
  app.process().stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  app.process().stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const window = await app.firstWindow({ timeout: 60_000 });
  return {
    app,
    window,
    log: () => output,
    close: async () => {
      await app.close().catch(() => app.process().kill('SIGKILL'));
    },
  };
}
