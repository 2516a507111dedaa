import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, vi } from 'vitest';
import type { HostMessage } from '../../src-main/protocol';
import type { Scenario } from '../fixtures/model-server';
import { startHostHarness, type HarnessOptions, type HostHarness } from './host-harness';

/**
 * For a test file whose tests each start one host (a harness, a reliability host): the returned
 * function starts one with `start`, and the last one started is closed after each test (with
 * `restoreMocks`, the test's spies are restored too).
 */
export function closedAfterEach<Args extends unknown[], Started extends { close(): Promise<void> }>(
  start: (...args: Args) => Promise<Started>,
  options: { restoreMocks?: boolean } = {},
): (...args: Args) => Promise<Started> {
  let started: Started | null = null;
  afterEach(async () => {
    await started?.close();
    started = null;
    if (options.restoreMocks) vi.restoreAllMocks();
  });
  return async (...args) => {
    started = await start(...args);
    return started;
  };
}

/** A host harness per test (see closedAfterEach). */
export function harnessPerTest(options: { restoreMocks?: boolean } = {}): (scenario: Scenario, harnessOptions?: HarnessOptions) => Promise<HostHarness> {
  return closedAfterEach(startHostHarness, options);
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
