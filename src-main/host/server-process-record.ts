import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { writeJsonAtomic } from '../common/json-file';
import { logError } from '../common/log';
import { processIdentity, type ProcessIdentity } from '../common/process-identity';

/**
 * The stdio MCP server processes a host started and that still run, kept in a file of the data folder
 * while it runs: a host killed with SIGKILL cannot end a server that ignores its closed input, so the
 * next host ends it (endOrphanServers). One file per host (several hosts in one process share a data
 * folder, in tests), removed when the host closes.
 */

export const SERVER_PROCESSES_DIR = 'server-processes';

const IdentitySchema = z.object({
  pid: z.number().int().positive(),
  startTime: z.string().regex(/^\d+$/),
  bootId: z.string().min(1),
});

export const ServerProcessesFile = z.object({
  /** The host that started them: while it runs, they are its own. */
  host: IdentitySchema,
  servers: z.array(IdentitySchema.extend({ server: z.string() })),
});
export type ServerProcessesFile = z.infer<typeof ServerProcessesFile>;

export class ServerProcessRecord {
  private readonly file: string;
  private readonly servers = new Map<number, ProcessIdentity & { server: string }>();
  /** Null where process identities cannot be read (no /proc: macOS, Windows): nothing is recorded. */
  private readonly host: ProcessIdentity | null = processIdentity(process.pid);

  constructor(dataDir: string) {
    this.file = join(dataDir, SERVER_PROCESSES_DIR, `${process.pid}-${randomUUID()}.json`);
  }

  started(pid: number, server: string): void {
    // Read at once: the identity of a process that already ended is not there to read.
    const identity = this.host && processIdentity(pid);
    if (!identity) return;
    this.servers.set(pid, { ...identity, server });
    this.write();
  }

  ended(pid: number): void {
    if (this.servers.delete(pid)) this.write();
  }

  /** The host closed: the record goes, unless a server outlived the wait for it (the next start ends it). */
  close(): void {
    if (this.servers.size === 0) rmSync(this.file, { force: true });
  }

  private write(): void {
    if (!this.host) return;
    const content: ServerProcessesFile = { host: this.host, servers: [...this.servers.values()] };
    try {
      writeJsonAtomic(this.file, content);
    } catch (error) {
      logError(`[deskhand] the MCP server processes could not be recorded in ${this.file} (a server left by a crash will not be ended at the next start): ${(error as Error).message}`);
    }
  }
}
