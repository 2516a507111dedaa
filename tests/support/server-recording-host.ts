import { ExternalServers } from '../../src-main/commands/external-servers';
import { claimDataDir } from '../../src-main/host/data-dir-lock';
import { endOrphanServers } from '../../src-main/host/orphan-servers';
import { ServerProcessRecord } from '../../src-main/host/server-process-record';

/**
 * What a host does with its stdio MCP servers, as a process a test can kill with SIGKILL: locks the
 * data folder (argv[2]), ends what a killed host left, records its own servers, and starts one
 * server: `node <argv[3]> <argv[4]>` (tests/support/stdin-ignoring-server.mjs and its pid file).
 */
const [dataDir, script, pidFile] = process.argv.slice(2);
if (!dataDir || !script || !pidFile) throw new Error('usage: server-recording-host.ts <data dir> <server script> <pid file>');
claimDataDir(dataDir);
endOrphanServers(dataDir);
const servers = new ExternalServers({
  servers: [{ name: 'stubborn', transport: 'stdio', command: process.execPath, args: [script, pidFile], trusted: false }],
  connectTimeoutMs: 120_000,
  processes: new ServerProcessRecord(dataDir),
});
void servers.start();
