import { constants } from 'node:os';
import { createHost } from '../host/create-host';
import { openDataDir, unreadableSavedKeys } from '../host/open-settings';
import { defaultDataDir, rendererDir } from '../host/paths';
import { newPageMark, newToken } from './auth';
import { quitOnSignal } from './quit';
import { startWebServer } from './web-server';

function portFromEnv(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 0;
  // Digits only: Number() would read '0x50' as 80, '1e3' as 1000 and ' ' as 0 (any free port).
  const port = /^\d{1,5}$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`DESKHAND_PORT must be 0..65535, got '${raw}'`);
  return port;
}

const QUIT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

async function main(): Promise<void> {
  // A signal while starting is kept until there is something to close (a second one quits at once):
  // ended by its default action, the process would leave the data folder's lock and the device client behind.
  let earlySignal: NodeJS.Signals | null = null;
  const onEarlySignal = (signal: NodeJS.Signals): void => {
    if (earlySignal) process.exit(128 + constants.signals[signal]);
    earlySignal = signal;
  };
  for (const signal of QUIT_SIGNALS) process.on(signal, onEarlySignal);
  const port = portFromEnv(process.env.DESKHAND_PORT);
  const dataDir = defaultDataDir(process.env);
  // The folder's lock first: its settings are not read (nor a damaged file rewritten) under another Deskhand.
  const { lock, settings } = await openDataDir(dataDir, process.env);
  if (earlySignal) {
    lock.release();
    process.exit(128 + constants.signals[earlySignal]);
  }
  const config = settings.config();
  const pageMark = newPageMark();
  const host = createHost({
    dataDir,
    dataDirLock: lock,
    config,
    apiKey: (profile) => settings.apiKey(profile),
    settings: settings.handler(),
    watchConfig: (listener) => settings.onChange(listener),
    // The browser window showing the Deskhand tab carries the mark in its title: the agent keeps off it.
    deviceConfig: { protectTitle: pageMark },
  });
  let server: Awaited<ReturnType<typeof startWebServer>>;
  try {
    server = await startWebServer({
      host,
      rendererDir: rendererDir(),
      token: newToken(),
      // An IPv6 address may be written as in a URL, [::1]: the socket takes it bare.
      bindHost: (process.env.DESKHAND_HOST || '127.0.0.1').replace(/^\[(.*)\]$/, '$1'),
      port,
      allowRemote: process.env.DESKHAND_ALLOW_REMOTE === '1',
      pageMark,
    });
  } catch (error) {
    // A port in use, say: the host (its device client and the data folder's lock) is closed before the exit.
    await host.close().catch((failure: unknown) => console.error(`[deskhand] closing failed: ${(failure as Error).message}`));
    throw error;
  }
  if (!config.models.host) console.warn('[deskhand] no model is configured yet: set OPENAI_API_KEY / OPENAI_BASE_URL');
  const unreadable = unreadableSavedKeys(dataDir, settings);
  if (unreadable.length > 0) {
    console.warn(
      `[deskhand] the API key saved in the desktop app's Settings (${unreadable.join(', ')}) is encrypted with the system keychain, ` +
        'which only the desktop app can read: set OPENAI_API_KEY, or enter the key in Settings here (kept for this run only).',
    );
  }
  if (host.interrupted.length) console.warn(`[deskhand] ${host.interrupted.length} unfinished session(s) marked interrupted`);
  const quit = quitOnSignal({
    close: async () => {
      await Promise.all([server.close(), host.close()]);
    },
    exit: (code) => process.exit(code),
    log: (message) => console.error(message),
  });
  // SIGHUP: the terminal that ran it was closed; close the host too, rather than leave its session running.
  for (const signal of QUIT_SIGNALS) {
    process.off(signal, onEarlySignal);
    process.on(signal, quit);
  }
  if (earlySignal) return quit(earlySignal);
  // Last: whoever acts on the address (a script, a test) finds the signals already handled.
  console.log(`Deskhand UI: ${server.url}`);
}

// Nobody reads the output any more (`node out/main/web.js | head -1`, a closed terminal): the server goes on,
// and a log line that cannot be written is no reason to end it without closing the host.
process.stdout.on('error', () => undefined);
process.stderr.on('error', () => undefined);

main().catch((error: unknown) => {
  console.error(`Deskhand could not start: ${(error as Error).message}`);
  process.exit(1);
});
