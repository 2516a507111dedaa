import { procPids, procStatField, procStatFields } from '../common/proc-stat';

/** One process as /proc shows it now: what tells it apart, and which group and session it is in. */
export interface ProcessEntry {
  pid: number;
  /** Start time since boot in clock ticks (proc(5) field 22). */
  startTime: string;
  group: number;
  session: number;
  /** Dead, waiting for its parent to read its exit status: nothing left to end. */
  zombie: boolean;
}

const STATE = procStatField(3);
const GROUP = procStatField(5);
const SESSION = procStatField(6);
const START_TIME = procStatField(22);

function entry(pid: number): ProcessEntry | null {
  const fields = procStatFields(pid);
  const startTime = fields?.[START_TIME];
  if (!fields || !startTime || !/^\d+$/.test(startTime)) return null;
  return { pid, startTime, group: Number(fields[GROUP]), session: Number(fields[SESSION]), zombie: fields[STATE] === 'Z' };
}

/** Every process running now (Linux); [] where there is no /proc. */
export function processTable(): ProcessEntry[] {
  return procPids()
    .map(entry)
    .filter((found): found is ProcessEntry => found !== null);
}
