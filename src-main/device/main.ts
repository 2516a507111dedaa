/**
 * Device client entry: an MCP server on stdio that sees and drives this desktop. stdout is the MCP
 * channel, so everything else goes to stderr. Run as `node out/main/device.js [--max-edge=1280]
 * [--format=auto|png|jpeg|webp] [--quality=70]` (dev: `node --import tsx src-main/device/main.ts`).
 */
import { settledWithin } from '../common/settled-within';
import { parseDeviceArgs, type DeviceConfig } from './config';
import { BEFORE_EXIT_MS, exitOnSignals } from './exit-signals';
import { checkEnvironment } from './health';

const EXIT_BAD_ARGS = 2;

function log(message: string): void {
  process.stderr.write(`[deskhand-device] ${message}\n`);
}

function configOrExit(): DeviceConfig {
  try {
    return parseDeviceArgs(process.argv.slice(2));
  } catch (error) {
    log(error instanceof Error ? error.message : String(error));
    process.exit(EXIT_BAD_ARGS);
  }
}

/** Lets go of input held down (a drag's button) before an exit; set once the input module is loaded. */
let releaseInput = async (): Promise<void> => undefined;

function exitAfterRelease(code: number): void {
  void settledWithin(releaseInput(), BEFORE_EXIT_MS).then(() => process.exit(code));
}

async function main(): Promise<void> {
  exitOnSignals(log, () => releaseInput());
  const config = configOrExit();

  // Without a display the device still runs shell commands (shell mode needs nothing else).
  const health = await checkEnvironment();
  const noDisplay = health.ok ? undefined : health.message;
  if (noDisplay) log(`${noDisplay} Only execute_command is offered.`);

  // Loaded after the health check; without a display no tool that calls into native screen code is offered.
  const [{ createDeviceServer }, { releaseHeld }, { StdioServerTransport }, { default: sharp }] = await Promise.all([
    import('./server'),
    import('./input'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('sharp'),
  ]);
  releaseInput = releaseHeld;
  // Every screenshot is a new image: libvips' operation cache would only hold on to old frames.
  sharp.cache(false);
  const debug = Boolean(process.env.DESKHAND_DEVICE_DEBUG);
  const server = createDeviceServer({
    config,
    ...(noDisplay ? { noDisplay } : {}),
    log: (level, message) => {
      if (level === 'error' || debug) log(message);
    },
  });
  const transport = new StdioServerTransport();
  transport.onclose = () => exitAfterRelease(0);
  // The host closing our stdin means it is gone; there is no one left to serve.
  process.stdin.once('end', () => exitAfterRelease(0));
  await server.connect(transport);
  log(`ready (pid ${process.pid}, display ${noDisplay ? 'none' : (process.env.DISPLAY ?? 'native')})`);
}

// A host that died leaves nobody reading the log: a failed write to it would be an uncaught error,
// whose handler logs again, round and round, so that the exit it schedules never comes.
process.stderr.on('error', () => undefined);
process.on('uncaughtException', (error) => {
  log(`uncaught: ${error.stack ?? error.message}`);
  exitAfterRelease(1);
});
process.on('unhandledRejection', (reason) => {
  log(`unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`);
});

void main();
