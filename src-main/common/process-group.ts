import { procPids, procStatField, procStatFields } from './proc-stat';

/**
 * The process group, and on Linux the session, of a child started with `detached: true` (POSIX): it
 * called setsid(), so it leads a session and a group whose id is its pid, which its descendants keep
 * unless they call setsid() or setpgid() themselves. Linux does not give that pid to another process
 * while any process still has it as its group or session id, so signalling them by that id reaches
 * only what the child started.
 */

const STATE = procStatField(3);
const GROUP = procStatField(5);
const SESSION = procStatField(6);

/** The processes of session `sid` (Linux: read from /proc); [] where there is no /proc. */
export function sessionMembers(sid: number): number[] {
  return procPids().filter((pid) => Number(procStatFields(pid)?.[SESSION]) === sid);
}

/**
 * Signals the process group `leader` leads and, on Linux, every other process of its session: coreutils
 * `timeout` and shells with job control (`set -m`) put what they run in process groups of their own,
 * which a signal to the group does not reach. POSIX only; never throws.
 */
export function signalGroup(leader: number, signal: NodeJS.Signals, platform: NodeJS.Platform = process.platform): void {
  for (const target of [-leader, ...(platform === 'linux' ? sessionMembers(leader) : [])]) {
    try {
      process.kill(target, signal);
    } catch {
      // Already gone.
    }
  }
}

/**
 * Whether a process of the group `leader` leads (on Linux: or of its session) still runs. On Linux a
 * zombie does not count: it is dead, waiting for its parent to read its exit status.
 */
export function groupRunning(leader: number, platform: NodeJS.Platform = process.platform): boolean {
  const pids = platform === 'linux' ? procPids() : [];
  if (pids.length > 0) {
    return pids.some((pid) => {
      const fields = procStatFields(pid);
      return fields !== null && fields[STATE] !== 'Z' && (Number(fields[GROUP]) === leader || Number(fields[SESSION]) === leader);
    });
  }
  try {
    process.kill(-leader, 0);
    return true;
  } catch {
    return false;
  }
}
