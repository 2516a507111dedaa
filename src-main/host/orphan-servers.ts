import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { logError } from '../common/log';
import { descendantsOf, identitiesReadable, sessionOf, stillRunning, type ProcessIdentity } from '../common/process-identity';
import { SERVER_PROCESSES_DIR, ServerProcessesFile } from './server-process-record';

function kill(identity: ProcessIdentity): void {
  // Checked right before: a pid the process left is never signalled (only the instant between remains).
  if (!stillRunning(identity)) return;
  try {
    process.kill(identity.pid, 'SIGKILL');
  } catch {
    // Ended meanwhile.
  }
}

/**
 * What `server` started: its session (a server leads one: see server-process-transport.ts) holds what
 * it started even once their parent died, and its descendants those that left the session, and all of
 * them for a server recorded by a Deskhand that did not start servers in a session of their own.
 */
function startedBy(server: ProcessIdentity): ProcessIdentity[] {
  const found = new Map<number, ProcessIdentity>();
  for (const identity of [...sessionOf(server), ...descendantsOf(server)]) found.set(identity.pid, identity);
  return [...found.values()];
}

/** Kills the process group `leader` leads at once, so that none of it starts another process meanwhile. */
function killGroup(leader: ProcessIdentity): void {
  // Its pid is still its own: no other process has the group's id (Linux does not reuse it while the group lives).
  if (!stillRunning(leader)) return;
  try {
    process.kill(-leader.pid, 'SIGKILL');
  } catch {
    // Not a group leader (recorded before servers had groups of their own), or ended meanwhile.
  }
}

/**
 * Ends the stdio MCP servers that a host killed with SIGKILL left running (see ServerProcessRecord),
 * with the processes they started (startedBy), then clears their record. Called by a host once it
 * holds the data folder's lock, so no other host's servers are in the records: those of a host still
 * running (one in this process) are left alone. A recorded pid is signalled only while it is still the
 * very process recorded (start time and boot), never another one given that pid since. SIGKILL at
 * once: the host they served is gone and their input closed long ago, and start-up does not wait on
 * them.
 * Where identities cannot be read (no /proc: macOS, Windows) nothing was recorded and nothing is done.
 */
export function endOrphanServers(dataDir: string): void {
  if (!identitiesReadable()) return;
  const dir = join(dataDir, SERVER_PROCESSES_DIR);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    logError(`[deskhand] cannot read ${dir}; MCP servers left running by a crash are not ended: ${(error as Error).message}`);
    return;
  }
  for (const name of names) {
    const file = join(dir, name);
    // Half written by a host killed meanwhile (writeJsonAtomic's temporary file): no other host holds the lock.
    if (name.endsWith('.tmp')) rmSync(file, { force: true });
    if (!name.endsWith('.json')) continue;
    let record: ServerProcessesFile;
    try {
      record = ServerProcessesFile.parse(JSON.parse(readFileSync(file, 'utf8')));
    } catch (error) {
      logError(`[deskhand] ${file} is not a record of MCP server processes; removed, nothing in it is ended: ${(error as Error).message}`);
      rmSync(file, { force: true });
      continue;
    }
    if (stillRunning(record.host)) continue;
    for (const server of record.servers) {
      if (!stillRunning(server)) continue;
      const tree = startedBy(server);
      killGroup(server);
      kill(server);
      tree.forEach(kill);
      logError(
        `[deskhand] ended the MCP server ${server.server} (process ${server.pid}${tree.length ? ` and ${tree.length} it started` : ''}), left running by a Deskhand that was killed`,
      );
    }
    rmSync(file, { force: true });
  }
}
