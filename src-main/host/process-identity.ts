import { readdirSync, readFileSync } from 'node:fs';

/**
 * What tells one process apart from a later one given the same pid: its start time since boot (from
 * /proc/<pid>/stat, in clock ticks) and the boot it started in. Linux only: where /proc is missing
 * (macOS, Windows) no identity can be read, and callers do nothing rather than trust a bare pid.
 */
export interface ProcessIdentity {
  pid: number;
  startTime: string;
  bootId: string;
}

let bootIdRead: string | null | undefined;

function bootId(): string | null {
  if (bootIdRead === undefined) {
    try {
      bootIdRead = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
    } catch {
      bootIdRead = null;
    }
  }
  return bootIdRead;
}

/** Fields of /proc/<pid>/stat after the command name, which is in parentheses and may hold spaces or ')'. */
function statFields(pid: number): string[] | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

// Indexes into statFields: fields 4 (ppid) and 22 (starttime) of proc(5), counted from field 3 (state).
const PPID = 4 - 3;
const START_TIME = 22 - 3;

/** The identity of the running process `pid`; null when it is not running or /proc cannot tell. */
export function processIdentity(pid: number): ProcessIdentity | null {
  const boot = bootId();
  const startTime = boot === null ? undefined : statFields(pid)?.[START_TIME];
  if (boot === null || !startTime || !/^\d+$/.test(startTime)) return null;
  return { pid, startTime, bootId: boot };
}

/** True only while the very process `identity` names still runs (never another one given its pid later). */
export function stillRunning(identity: ProcessIdentity): boolean {
  const now = processIdentity(identity.pid);
  return now !== null && now.startTime === identity.startTime && now.bootId === identity.bootId;
}

/** Whether process identities can be read here (Linux with /proc). */
export function identitiesReadable(): boolean {
  return processIdentity(process.pid) !== null;
}

/** The processes started by `root` and by those, as they run now (a child whose parent died has left the tree). */
export function descendantsOf(root: ProcessIdentity): ProcessIdentity[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = Number(statFields(Number(entry))?.[PPID]);
    if (!Number.isInteger(ppid)) continue;
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const found: ProcessIdentity[] = [];
  const queue = [root.pid];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    for (const child of children.get(pid) ?? []) {
      const identity = processIdentity(child);
      if (!identity) continue;
      found.push(identity);
      queue.push(child);
    }
  }
  return found;
}
