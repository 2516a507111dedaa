/**
 * The device client inside an Electron utility process (child side): the same MCP server as
 * `src-main/device/main.ts`, over the utility process's parent port instead of stdio. Started by
 * main.ts when it finds DEVICE_MARKER in its arguments.
 */
import { parseDeviceArgs, type DeviceConfig } from '../device/config';
import { exitOnSignals } from '../device/exit-signals';
import { checkEnvironment } from '../device/health';
import { DEVICE_MARKER } from './device-process';
import { PortTransport } from './mcp-port-transport';

const EXIT_BAD_ARGS = 2;

/** What we use of `process.parentPort` (Electron's ParentPort). */
export interface ParentPortLike {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (event: { data: unknown }) => void): unknown;
  off(event: 'message', listener: (event: { data: unknown }) => void): unknown;
}

function log(message: string): void {
  process.stderr.write(`[deskhand-device] ${message}\n`);
}

/** The flags after DEVICE_MARKER (wherever Electron puts the module path in argv). */
export function deviceFlags(argv: readonly string[]): string[] {
  const at = argv.indexOf(DEVICE_MARKER);
  return at >= 0 ? argv.slice(at + 1) : [];
}

export function parentPortEndpoint(parentPort: ParentPortLike) {
  return {
    post: (message: unknown) => parentPort.postMessage(message),
    listen: (onMessage: (data: unknown) => void) => {
      const listener = (event: { data: unknown }) => onMessage(event.data);
      parentPort.on('message', listener);
      return () => {
        parentPort.off('message', listener);
      };
    },
  };
}

export async function runDeviceUtility(parentPort: ParentPortLike, argv: readonly string[] = process.argv): Promise<void> {
  process.on('uncaughtException', (error) => {
    log(`uncaught: ${error.stack ?? error.message}`);
    process.exit(1);
  });
  process.on('unhandledRejection', (reason) => {
    log(`unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`);
  });
  exitOnSignals(log);

  let config: DeviceConfig;
  try {
    config = parseDeviceArgs(deviceFlags(argv));
  } catch (error) {
    log((error as Error).message);
    process.exit(EXIT_BAD_ARGS);
  }
  // Without a display the device still runs shell commands, and offers no tool that needs the screen.
  const health = await checkEnvironment();
  const noDisplay = health.ok ? undefined : health.message;
  if (noDisplay) log(`${noDisplay} Only execute_command is offered.`);
  const { createDeviceServer } = await import('../device/server');
  const debug = Boolean(process.env.DESKHAND_DEVICE_DEBUG);
  const server = createDeviceServer({
    config,
    ...(noDisplay ? { noDisplay } : {}),
    log: (level, message) => {
      if (level === 'error' || debug) log(message);
    },
  });
  const transport = new PortTransport(parentPortEndpoint(parentPort));
  // The host closed the connection: nobody is left to serve.
  transport.onclose = () => process.exit(0);
  await server.connect(transport);
  log(`ready (utility process ${process.pid}, display ${noDisplay ? 'none' : (process.env.DISPLAY ?? 'native')})`);
}
