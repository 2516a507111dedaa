import { readdirSync, readFileSync } from 'node:fs';

/**
 * Processes on this Linux machine, read from /proc: for tests that kill a particular child (the device
 * client) by its pid, never by name.
 */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** The command line, arguments joined with spaces. */
  command: string;
}

function info(pid: number): ProcessInfo | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || fields[0] === 'X') return null;
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    return { pid, ppid: Number(fields[1]), command };
  } catch {
    return null;
  }
}

/** Whether `pid` runs: a zombie, dead and not yet reaped by its parent, does not. */
export function processRunning(pid: number): boolean {
  return info(pid) !== null;
}

/** Live children of `parent` whose command line contains `match`. */
export function childProcesses(parent: number, match: string): ProcessInfo[] {
  const out: ProcessInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const proc = info(Number(name));
    if (proc && proc.ppid === parent && proc.command.includes(match)) out.push(proc);
  }
  return out;
}

/** Descendants of `root` (children, their children, ...) whose command line contains `match`. */
export function descendantProcesses(root: number, match: string): ProcessInfo[] {
  const all: ProcessInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const proc = info(Number(name));
    if (proc) all.push(proc);
  }
  const below = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const proc of all) {
      if (below.has(proc.ppid) && !below.has(proc.pid)) {
        below.add(proc.pid);
        grew = true;
      }
    }
  }
  return all.filter((proc) => proc.pid !== root && below.has(proc.pid) && proc.command.includes(match));
}

export function alive(pid: number): boolean {
  return info(pid) !== null;
}
