/**
 * The desktop app's log: `main.log` in Electron's logs folder (Linux ~/.config/Deskhand/logs, macOS
 * ~/Library/Logs/Deskhand, Windows %APPDATA%\Deskhand\logs), one line per message with a time stamp,
 * rotated to `main.old.log` at 5 MB. Console output keeps going to the terminal as well; what goes to
 * the file has the running host's secrets replaced.
 */
import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { format } from 'node:util';
import { scrubLogText } from '../common/log';

export const LOG_FILE = 'main.log';
const MAX_BYTES = 5 * 1024 * 1024;

export interface FileLog {
  readonly path: string;
  write(level: 'info' | 'warn' | 'error', message: string): void;
}

export function createFileLog(dir: string, maxBytes = MAX_BYTES): FileLog {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    // As with a failed write: a logs folder that cannot be made (a file in its place, a parent folder
    // another user owns) must not stop the app. Its writes then fail, and are dropped, one by one.
    console.error(`[deskhand] no log file: cannot make ${dir}: ${(error as Error).message}`);
  }
  const path = join(dir, LOG_FILE);
  let size = (() => {
    try {
      return statSync(path).size;
    } catch {
      return 0;
    }
  })();
  return {
    path,
    write(level, message) {
      const line = `${new Date().toISOString()} ${level.toUpperCase()} ${message.replace(/\n(?!$)/g, '\n    ')}\n`;
      const bytes = Buffer.byteLength(line);
      if (size + bytes > maxBytes) {
        try {
          renameSync(path, join(dir, 'main.old.log'));
        } catch {
          // Windows refuses while another program has main.old.log open: keep appending, and try again
          // after another maxBytes rather than on every line.
        }
        size = 0;
      }
      try {
        appendFileSync(path, line, { mode: 0o600 });
        size += bytes;
      } catch {
        // A full disk or a read-only folder must not stop the app; the terminal still has the line.
      }
    },
  };
}

/**
 * Copies console.log/warn/error into the log file (the host logs through console), with the secrets the
 * running host registered (scrubLogsWith) replaced: not every caller goes through logError.
 */
export function teeConsole(log: FileLog): void {
  const levels = [
    ['log', 'info'],
    ['info', 'info'],
    ['warn', 'warn'],
    ['error', 'error'],
  ] as const;
  for (const [method, level] of levels) {
    const original = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      original(...args);
      log.write(level, scrubLogText(format(...args)));
    };
  }
}
