import { z } from 'zod';

/**
 * The shell commands a device client is running, kept by it in a file of a folder the host names
 * (DeviceConfig.commandRecordDir) while they run: a device client killed with SIGKILL cannot end them,
 * so the host does (host/orphan-commands.ts) once it sees that client gone, or at its next start. One
 * file per device client process; only execute_command's commands are in it, never a program
 * launch_app started (those are meant to outlive the client).
 */

/** The folder of the data folder the host gives its device clients for these files. */
export const DEVICE_COMMANDS_DIR = 'device-commands';

/** Longest command text kept (for the host's log only). */
export const RECORDED_COMMAND_CHARS = 200;

const Pid = z.number().int().positive();
/** Start time since boot in clock ticks (/proc/<pid>/stat field 22): tells a process from a later one given its pid. */
const StartTime = z.string().regex(/^\d+$/);

export const RecordedCommand = z.object({
  /** The command's first process: it leads the command's session and process group (the same id). */
  pid: Pid,
  startTime: StartTime,
  command: z.string().max(RECORDED_COMMAND_CHARS),
});
export type RecordedCommand = z.infer<typeof RecordedCommand>;

export const DeviceCommandsFile = z.object({
  /** The device client that runs them: while it runs, they are its own to end. */
  device: z.object({ pid: Pid, startTime: StartTime, bootId: z.string().min(1) }),
  /** All started in the device client's boot (bootId). */
  commands: z.array(RecordedCommand),
});
export type DeviceCommandsFile = z.infer<typeof DeviceCommandsFile>;
