import { readFileSync } from 'node:fs';
import { sessionMembers } from './process-group';
import { procPids, procStatField, procStatFields } from './proc-stat';

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

const PPID = procStatField(4);
const START_TIME = procStatField(22);

/** The identity of the running process `pid`; null when it is not running or /proc cannot tell. */
export function processIdentity(pid: number): ProcessIdentity | null {
  const boot = bootId();
  const startTime = boot === null ? undefined : procStatFields(pid)?.[START_TIME];
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
  for (const pid of procPids()) {
    const ppid = Number(procStatFields(pid)?.[PPID]);
    if (!Number.isInteger(ppid)) continue;
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
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

/**
 * The processes of the session `leader` leads, but itself, as they run now: a child whose parent died
 * stays in it. Call it only while `leader` is still running (stillRunning): the session's id is its pid.
 */
export function sessionOf(leader: ProcessIdentity): ProcessIdentity[] {
  return sessionMembers(leader.pid)
    .filter((pid) => pid !== leader.pid)
    .map(processIdentity)
    .filter((identity): identity is ProcessIdentity => identity !== null);
}
