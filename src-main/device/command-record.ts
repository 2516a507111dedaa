import { randomUUID } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { RECORDED_COMMAND_CHARS, type DeviceCommandsFile, type RecordedCommand } from '../common/device-commands-file';
import { processIdentity, type ProcessIdentity } from '../common/process-identity';

/** What runShellCommand tells about the commands it runs. */
export interface CommandRecorder {
  /** Called right after the command's first process started (it leads the command's session). */
  started(pid: number, command: string): void;
  /** Called once that process exited: what it left running in the background is the user's. */
  ended(pid: number): void;
}

/**
 * Keeps the running shell commands in a file of the folder the host named (see DeviceCommandsFile), so
 * the host can end them if this device client is killed with SIGKILL. Written at once at each start and
 * end (atomically: a whole file or the one before), so the file is right whenever the client dies; the
 * only commands it can miss are those started in the instant between their spawn and the write.
 * Removed when the client exits (its exit handler has just ended the commands itself).
 *
 * Where process identities cannot be read (no /proc: macOS, Windows) nothing is recorded: a bare pid
 * could name another process by the time the host reads it.
 */
export class CommandRecord implements CommandRecorder {
  private readonly file: string;
  /** `<file>.<pid>.tmp`: the host removes one whose writer is gone (killed between write and rename). */
  private readonly temp: string;
  private readonly device: ProcessIdentity | null = processIdentity(process.pid);
  private readonly commands = new Map<number, RecordedCommand>();
  private failed = false;

  constructor(
    dir: string,
    private readonly log: (message: string) => void = () => undefined,
  ) {
    this.file = join(dir, `${process.pid}-${randomUUID()}.json`);
    this.temp = `${this.file}.${process.pid}.tmp`;
    process.once('exit', () => {
      try {
        rmSync(this.file, { force: true });
        rmSync(this.temp, { force: true });
      } catch {
        // Left for the host, which finds this client gone and its commands ended.
      }
    });
  }

  get path(): string {
    return this.file;
  }

  started(pid: number, command: string): void {
    // Read at once: the start time of a process that already ended is not there to read.
    const identity = this.device && processIdentity(pid);
    if (!identity) return;
    this.commands.set(pid, { pid, startTime: identity.startTime, command: command.slice(0, RECORDED_COMMAND_CHARS) });
    this.write();
  }

  ended(pid: number): void {
    if (this.commands.delete(pid)) this.write();
  }

  private write(): void {
    if (!this.device) return;
    try {
      if (this.commands.size === 0) {
        rmSync(this.file, { force: true });
        return;
      }
      const content: DeviceCommandsFile = { device: this.device, commands: [...this.commands.values()] };
      // Whole or not at all (a rename), but not flushed to disk: that would only slow every command's
      // start, and a power cut that loses the file ends the commands too.
      mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
      writeFileSync(this.temp, JSON.stringify(content), { mode: 0o600 });
      renameSync(this.temp, this.file);
      this.failed = false;
    } catch (error) {
      // Said once per run of failures: the commands still run, only a crash would leave them behind.
      if (!this.failed) this.log(`the running commands could not be recorded in ${this.file} (if this client is killed, the host cannot end them): ${(error as Error).message}`);
      this.failed = true;
    }
  }
}
