import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { signalGroup } from '../common/process-group';
import { logError } from '../common/log';
import { DEVICE_COMMANDS_DIR, DeviceCommandsFile } from '../common/device-commands-file';
import { chooseOrphanCommands, recordOwnerRunning, stillOrphaned, type OrphanCommand } from './orphan-commands-choice';
import { processIdentity } from '../common/process-identity';
import { processTable } from './process-table';

/**
 * Ends the shell commands a device client was running when it was killed (SIGKILL, a hard crash: it had
 * no chance to end them itself), from the records it kept (see DeviceCommandsFile). The host calls it
 * when it sees its device client gone, and at start-up for the clients of a host that was killed.
 * Each command's process group and session get SIGTERM, and SIGKILL after `graceMs` if still there.
 * Only commands chooseOrphanCommands picks: never those of a device client still running, never a pid
 * that is no longer the recorded process, never a program started in a session of its own (launch_app).
 *
 * Linux only, where /proc tells processes apart (the device client records nothing elsewhere). macOS:
 * no /proc, so no start time to check a pid against, and a killed client's commands run on until their
 * own end. Windows: commands have no process group to end as one; nothing is recorded or done.
 */

/** How long a command gets to end after SIGTERM before SIGKILL. */
export const ORPHAN_COMMAND_GRACE_MS = 2_000;

/** The folder the host's device clients record their commands in. */
export function deviceCommandsDir(dataDir: string): string {
  return join(dataDir, DEVICE_COMMANDS_DIR);
}

export interface EndOrphanCommandsOptions {
  graceMs?: number;
  log?: (message: string) => void;
}

interface FoundRecord {
  file: string;
  record: DeviceCommandsFile;
}

/** A record's temporary file (`<name>.json.<pid>.tmp`) whose writer is gone: killed between write and rename. */
function staleTemp(name: string): boolean {
  const writer = /\.(\d+)\.tmp$/.exec(name)?.[1];
  return writer !== undefined && processIdentity(Number(writer)) === null;
}

/** The records in `dir`, checked; a damaged one is reported and removed (nothing in it is ended). */
export function readCommandRecords(dir: string, log: (message: string) => void = logError): FoundRecord[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      log(`[deskhand] cannot read ${dir}; commands left running by a killed device client are not ended: ${(error as Error).message}`);
    }
    return [];
  }
  const found: FoundRecord[] = [];
  for (const name of names) {
    const file = join(dir, name);
    if (staleTemp(name)) rmSync(file, { force: true });
    if (!name.endsWith('.json')) continue;
    try {
      const parsed = DeviceCommandsFile.safeParse(JSON.parse(readFileSync(file, 'utf8')));
      if (parsed.success) {
        found.push({ file, record: parsed.data });
        continue;
      }
      log(`[deskhand] ${file} is not a record of a device client's commands (${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`).join('; ')}); removed, nothing in it is ended`);
    } catch (error) {
      // Removed meanwhile by the device client that wrote it (it exited), or not JSON at all.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      log(`[deskhand] ${file} is not a record of a device client's commands (${(error as Error).message}); removed, nothing in it is ended`);
    }
    rmSync(file, { force: true });
  }
  return found;
}

function describe(orphan: OrphanCommand): string {
  const others = orphan.members.length - 1;
  return `"${orphan.command.command}" (process group ${orphan.command.pid}${others > 0 ? `, with ${others} other process${others === 1 ? '' : 'es'}` : ''})`;
}

/** Ends what the dead device clients recorded in `dataDir` left running; resolves with how many commands it ended. */
export async function endOrphanCommands(dataDir: string, options: EndOrphanCommandsOptions = {}): Promise<number> {
  // Windows: nothing is recorded (see above). macOS: no identity to check a pid against.
  if (process.platform !== 'linux') return 0;
  const bootId = processIdentity(process.pid)?.bootId;
  if (!bootId) return 0;
  const log = options.log ?? logError;
  const graceMs = options.graceMs ?? ORPHAN_COMMAND_GRACE_MS;

  const processes = processTable();
  const ended: { file: string; orphans: OrphanCommand[] }[] = [];
  for (const { file, record } of readCommandRecords(deviceCommandsDir(dataDir), log)) {
    // Its client still runs: they are its commands, and it ends them when it exits.
    if (recordOwnerRunning(record, processes, bootId)) continue;
    const orphans = chooseOrphanCommands(record, processes, bootId);
    for (const orphan of orphans) signalGroup(orphan.command.pid, 'SIGTERM');
    ended.push({ file, orphans });
  }
  const all = ended.flatMap(({ orphans }) => orphans);
  if (all.length > 0) await new Promise((done) => setTimeout(done, graceMs));

  const now = all.length > 0 ? processTable() : [];
  for (const orphan of all) {
    const stubborn = stillOrphaned(orphan, now);
    if (stubborn) signalGroup(orphan.command.pid, 'SIGKILL');
    log(`[deskhand] ended the command ${describe(orphan)} left running by a device client that was killed (${stubborn ? 'SIGKILL: SIGTERM did not end it' : 'SIGTERM'})`);
  }
  for (const { file } of ended) rmSync(file, { force: true });
  return all.length;
}
