import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { NO_MODEL_MESSAGE } from '../host/config';
import { createHost } from '../host/create-host';
import { openDataDir, unreadableSavedKeys } from '../host/open-settings';
import { defaultDataDir } from '../host/paths';
import type { SettingsStore } from '../host/settings-store';
import type { SessionStatus } from '../protocol';
import { parseCliArgs, USAGE, type CliCommand } from './args';
import { CliPauses } from './pauses';
import { cliResponder } from './responder';
import { notRunNotice } from './steps';

/** finished 0, failed 1, stopped with Ctrl+C 130 (as a shell reports an interrupted command), else 2. */
const EXIT_CODES: Partial<Record<SessionStatus, number>> = { finished: 0, failed: 1, stopped: 130 };
/** The reader of the output went away (`| head`): 128 + SIGPIPE, as a shell reports a broken pipe. */
const EXIT_OUTPUT_GONE = 141;

/** Set once nothing reads stdout any more: events are no longer written. */
let outputGone = false;

function line(value: unknown): void {
  if (!outputGone) process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** The version in Deskhand's package.json (two folders up from the source file and from the built one). */
function version(): string {
  const file = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof file.version === 'string' ? file.version : 'unknown';
}

/** Why the CLI cannot run with these settings (no model, or a key only the desktop app can read), or null. */
function cannotRun(dataDir: string, settings: SettingsStore): string | null {
  if (!settings.config().models.host) return NO_MODEL_MESSAGE;
  const unreadable = unreadableSavedKeys(dataDir, settings);
  if (unreadable.length === 0) return null;
  return (
    `the API key saved in the desktop app's Settings (${unreadable.join(', ')}) is encrypted with the system ` +
    'keychain, which only the desktop app can read: set OPENAI_API_KEY for the CLI.'
  );
}

async function main(argv: string[]): Promise<number> {
  let command: CliCommand;
  try {
    command = parseCliArgs(argv);
  } catch (error) {
    console.error(`deskhand: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (command.kind === 'help') {
    console.log(USAGE);
    return 0;
  }
  if (command.kind === 'version') {
    console.log(`deskhand ${version()}`);
    return 0;
  }
  const { run } = command;
  /**
   * The signal (Ctrl+C, SIGTERM) that came, if any. From here on, one never ends the process at once:
   * whatever runs is stopped and the host closed (the device client, the servers it started and the
   * data folder's lock with it), at any moment: while the settings are read, before the run is known,
   * once it is over and the host is closing. A second one ends the process at once (the user insists).
   */
  let signalled: NodeJS.Signals | null = null;
  /** The exit status for a signal: 128 + its number, as a shell reports it. */
  const signalCode = (signal: NodeJS.Signals): number => 128 + constants.signals[signal];
  /** Stops the run under way, if any (set once the host is made). */
  let stopRun = (): void => undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) process.exit(signalCode(signalled));
    signalled = signal;
    stopRun();
  };
  // SIGTERM too (kill, timeout, a service manager): the run is marked stopped and its command ended, not left running.
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const dataDir = defaultDataDir(process.env);
  // The folder's lock first: its settings are not read (nor a damaged file rewritten) under another Deskhand.
  const { lock, settings } = await openDataDir(dataDir, process.env);
  if (signalled) {
    lock.release();
    return signalCode(signalled);
  }
  const refusal = cannotRun(dataDir, settings);
  if (refusal) {
    lock.release();
    console.error(`deskhand: ${refusal}`);
    return 2;
  }
  const config = settings.config();
  const host = createHost({
    dataDir,
    config,
    apiKey: (profile) => settings.apiKey(profile),
    autoResponder: cliResponder(run),
    dataDirLock: lock,
  });
  const unsubscribe = host.sessions.subscribe(line);
  let stopping = false;
  stopRun = (): void => {
    const sessionId = host.sessions.runningSessionId;
    if (stopping || !sessionId) return;
    stopping = true;
    host.sessions
      .handle({ type: 'session.stop', id: 'cli-stop', sessionId })
      .catch((error: unknown) => console.error(`deskhand: could not stop the run: ${error instanceof Error ? error.message : String(error)}`));
  };
  const pauses = new CliPauses({
    interactive: Boolean(process.stdin.isTTY),
    input: process.stdin,
    write: (text) => process.stderr.write(text),
    resume: async (sessionId) => {
      const reply = await host.endpoint.handle({ type: 'session.resume', id: 'cli-resume', sessionId });
      if (reply.type === 'reply' && !reply.ok) throw new Error(reply.error.message);
    },
    stop: stopRun,
  });
  const unsubscribePauses = host.sessions.subscribe((event) => pauses.onEvent(event));
  // A step whose action did not run says why on stderr too, besides its step.added line's notRun.
  const unsubscribeNotRun = host.sessions.subscribe((event) => {
    const notice = notRunNotice(event);
    if (notice) process.stderr.write(notice);
  });
  // Nobody reads what the run reports any more: it is stopped, as a pipeline stops at a broken pipe.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (outputGone) return;
    outputGone = true;
    console.error(`deskhand: the output was closed (${error.code ?? error.message}): the run is stopped.`);
    stopRun();
  });
  // The log may share that closed pipe (`2>&1 | head`): an unheard error there must not end the process
  // before the run is stopped and the host closed (the device client and the data folder's lock with it).
  process.stderr.on('error', () => undefined);
  try {
    // Asked to stop before the run began: it is not started.
    if (signalled) return signalCode(signalled);
    const reply = await host.endpoint.handle({ type: 'session.start', id: 'cli', request: run.request, mode: run.mode });
    if (reply.type !== 'reply' || !reply.ok) {
      line(reply);
      return 2;
    }
    // Whatever came while the start was answered stops the run now that it is known.
    if (outputGone || signalled) stopRun();
    const outcome = await host.sessions.running;
    if (outputGone) return EXIT_OUTPUT_GONE;
    if (pauses.stoppedForPause) return 2;
    if (signalled && outcome?.status === 'stopped') return signalCode(signalled);
    return outcome ? (EXIT_CODES[outcome.status] ?? 2) : 2;
  } finally {
    unsubscribeNotRun();
    unsubscribePauses();
    pauses.close();
    unsubscribe();
    await host.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`deskhand: ${(error as Error).message}`);
    process.exit(2);
  },
);
