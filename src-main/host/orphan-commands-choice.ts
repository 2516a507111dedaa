import type { DeviceCommandsFile, RecordedCommand } from '../common/device-commands-file';
import type { ProcessEntry } from './process-table';

/** A recorded command still running after its device client died: its first process and everything in its group or session. */
export interface OrphanCommand {
  command: RecordedCommand;
  /** Its processes now, the first one included: a later check ends the group only while one of them still runs. */
  members: ProcessEntry[];
}

function sameProcess(entry: ProcessEntry, pid: number, startTime: string): boolean {
  return entry.pid === pid && entry.startTime === startTime && !entry.zombie;
}

/** Whether the device client that wrote `record` still runs (the very process, not a later one with its pid, nor one of another boot). */
export function recordOwnerRunning(record: DeviceCommandsFile, processes: readonly ProcessEntry[], bootId: string): boolean {
  return record.device.bootId === bootId && processes.some((entry) => sameProcess(entry, record.device.pid, record.device.startTime));
}

/**
 * Which of a device client's recorded commands to end, given the processes running now (`processes`,
 * in the boot `bootId`):
 * - none while the device client that recorded them still runs: they are its own, and it ends them;
 * - none recorded in an earlier boot: they all ended with it;
 * - a command only while its first process is still the very one recorded (same pid and start time).
 *   One that exited is left alone with whatever it left in the background, as a device client that
 *   exits normally leaves it; a pid given to another process since is never touched.
 * What a command ends with it is only its process group and session: a program started in a session of
 * its own (launch_app's programs, anything the command detached with setsid on purpose) is not in them.
 */
export function chooseOrphanCommands(record: DeviceCommandsFile, processes: readonly ProcessEntry[], bootId: string): OrphanCommand[] {
  if (record.device.bootId !== bootId) return [];
  if (recordOwnerRunning(record, processes, bootId)) return [];
  const chosen: OrphanCommand[] = [];
  for (const command of record.commands) {
    if (!processes.some((entry) => sameProcess(entry, command.pid, command.startTime))) continue;
    const members = processes.filter((entry) => !entry.zombie && (entry.group === command.pid || entry.session === command.pid));
    chosen.push({ command, members });
  }
  return chosen;
}

/**
 * Whether the group or session `orphan` names is still the command's: one of the processes seen in it
 * still runs (same start time) and is still in it. While any process holds the id as its group or
 * session, Linux gives that pid to no other process, so signalling the id reaches only the command's.
 */
export function stillOrphaned(orphan: OrphanCommand, processes: readonly ProcessEntry[]): boolean {
  const leader = orphan.command.pid;
  return orphan.members.some((member) =>
    processes.some((entry) => sameProcess(entry, member.pid, member.startTime) && (entry.group === leader || entry.session === leader)),
  );
}
