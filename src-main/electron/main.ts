/**
 * The desktop app's entry (out/main/electron.js). It plays two parts:
 *  - in Electron's main process, the shell (window, tray, IPC, the host core): ./shell;
 *  - in a utility process started with DEVICE_MARKER, the device client (MCP over the parent port):
 *    ./device-utility. One entry for both keeps the packaged layout simple: the shell forks the very
 *    file it was started from, inside app.asar, and no build configuration has to know about it.
 * Each part is imported only where it runs, so the utility process never loads the shell's modules.
 */
import { fileURLToPath } from 'node:url';
import { DEVICE_MARKER } from './device-process';

const entry = fileURLToPath(import.meta.url);

function die(error: unknown): never {
  console.error(`Deskhand could not start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
}

if (process.type === 'utility' && process.argv.includes(DEVICE_MARKER)) {
  const { runDeviceUtility } = await import('./device-utility');
  runDeviceUtility(process.parentPort).catch(die);
} else {
  const { startShell } = await import('./shell');
  // Not awaited: Electron emits `ready` only once this module has finished evaluating, and startShell
  // waits for `ready`. Its synchronous start (privileged scheme, userData path, sandbox, single-instance
  // lock) runs right here, before `ready`, as Electron requires.
  startShell({ entry }).catch(die);
}
