import { constants } from 'node:os';
import { settledWithin } from '../common/settled-within';
import { stopLiveCommands } from './shell';

/** The signals that end a device client: the host stopping it, Ctrl+C in a terminal, a closed session. */
export const EXIT_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/**
 * Node's default for these signals ends the process without an 'exit' event, so the commands it runs
 * (each in a process group of its own) would live on. These handlers kill them, then exit with
 * 128 + the signal's number, the code a shell reports for a process ended by that signal.
 */
export function exitOnSignals(log: (message: string) => void, beforeExit: () => Promise<void> = async () => undefined): void {
  for (const signal of EXIT_SIGNALS) {
    process.once(signal, () => {
      log(`${signal}: stopping the running commands and exiting`);
      stopLiveCommands();
      void settledWithin(beforeExit(), BEFORE_EXIT_MS).then(() => process.exit(128 + constants.signals[signal]));
    });
  }
}

/** How long an exiting device client gives `beforeExit` (letting go of held input) before it exits anyway. */
export const BEFORE_EXIT_MS = 1_000;
