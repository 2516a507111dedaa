import { readFile } from 'node:fs/promises';

/**
 * Whether a process belongs to a program launch_app started, read from /proc (Linux). The started
 * program is its own session leader (spawned detached, so setsid made its pid the session id), and
 * everything it starts keeps that session unless it starts one of its own. So a process belongs to the
 * launch when it is the started one, shares its session or process group, or has it among its
 * ancestors (the parent chain, which breaks where a middle process exited, hence the session first).
 */

export interface ProcStat {
  pid: number;
  /** The process name as /proc/<pid>/stat has it (at most 15 characters), without the parentheses. */
  comm: string;
  ppid: number;
  pgrp: number;
  session: number;
}

/**
 * /proc/<pid>/stat -> its first fields; null when it does not read as one. The name is in parentheses
 * and may hold spaces and parentheses itself, so the fields after it are counted from the last ')'.
 */
export function parseProcStat(text: string): ProcStat | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open <= 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  const [, ppid, pgrp, session] = text
    .slice(close + 1)
    .trim()
    .split(/\s+/)
    .map(Number);
  const numbers = [pid, ppid, pgrp, session];
  if (!numbers.every((n) => n !== undefined && Number.isSafeInteger(n) && n >= 0)) return null;
  return { pid, comm: text.slice(open + 1, close), ppid: ppid as number, pgrp: pgrp as number, session: session as number };
}

export type StatReader = (pid: number) => Promise<ProcStat | null>;

/** /proc/<pid>/stat, or null when the process is gone (or was never visible here). */
export const readProcStat: StatReader = async (pid) => {
  try {
    return parseProcStat(await readFile(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
};

/** How many parents are followed before giving up (process trees are shallow; this only ends loops). */
const MAX_DEPTH = 64;

/**
 * Whether `pid` is `root` or runs in its process tree. `root` must have been started as a session
 * leader (a detached spawn) for the session and group tests to mean anything.
 */
export async function inProcessTree(pid: number, root: number, read: StatReader = readProcStat): Promise<boolean> {
  if (pid === root) return true;
  let current = pid;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const stat = await read(current);
    if (!stat) return false;
    if (stat.session === root || stat.pgrp === root || stat.ppid === root) return true;
    if (stat.ppid <= 1 || stat.ppid === current) return false;
    current = stat.ppid;
  }
  return false;
}
