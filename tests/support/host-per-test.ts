import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, vi } from 'vitest';
import type { HostMessage } from '../../src-main/protocol';
import type { Scenario } from '../fixtures/model-server';
import { startHostHarness, type HarnessOptions, type HostHarness } from './host-harness';

/**
 * For a test file whose tests each start a host harness: the returned function starts one, and the
 * last one started is closed after each test (with `restoreMocks`, the test's spies are restored too).
 */
export function harnessPerTest(options: { restoreMocks?: boolean } = {}): (scenario: Scenario, harnessOptions?: HarnessOptions) => Promise<HostHarness> {
  let harness: HostHarness | null = null;
  afterEach(async () => {
    await harness?.close();
    harness = null;
    if (options.restoreMocks) vi.restoreAllMocks();
  });
  return async (scenario, harnessOptions) => {
    harness = await startHostHarness(scenario, harnessOptions);
    return harness;
  };
}

/** The id `send` gives every command, which its reply carries back. */
export const COMMAND_ID = 'c';

/** Sends a command to the harness's host through its protocol endpoint (what every UI and the CLI use). */
export function send(current: HostHarness, message: Record<string, unknown>): Promise<HostMessage> {
  return current.host.endpoint.handle({ id: COMMAND_ID, ...message });
}

/**
 * Damages a stored session as a faulty older Deskhand would have written it (a mode no Deskhand knows),
 * through another connection to the database file, which is returned open: the caller closes it.
 */
export function damageSession(current: HostHarness, sessionId: string): Database.Database {
  const db = new Database(join(current.dataDir, 'deskhand.sqlite'));
  try {
    db.prepare(`UPDATE sessions SET mode = 'telepathy' WHERE id = ?`).run(sessionId);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}
