import { readdirSync, readFileSync } from 'node:fs';

/**
 * Linux's /proc/<pid>/stat, read past the command name (which is in parentheses and may hold spaces or
 * ')'): index 0 is field 3 of proc(5), the state. Null when the process is gone or there is no /proc.
 */
export function procStatFields(pid: number): string[] | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** The index in procStatFields of field `n` of proc(5) (4: ppid, 6: session, 22: start time). */
export function procStatField(n: number): number {
  return n - 3;
}

/** The pids listed in /proc now; [] where there is none (macOS, Windows). */
export function procPids(): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries.filter((entry) => /^\d+$/.test(entry)).map(Number);
}
