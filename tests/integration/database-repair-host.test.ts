import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { CommandResults } from '../../src-main/protocol';
import { damagePage, pagesOf } from '../support/damage-db';
import { replies, runRequest } from '../support/host-harness';
import { harnessPerTest } from '../support/host-per-test';

const { host: hostReply } = replies;

const startHarness = harnessPerTest({ restoreMocks: true });

describe('Deskhand started on a damaged database', () => {
  it('starts, says so above the sessions list, keeps the damaged file and every screenshot, and the sessions go on', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const harness = await startHarness({
      name: 'two sessions, then one more round',
      steps: [hostReply({ Status: 'FINISH', Comment: 'first done' }), hostReply({ Status: 'FINISH', Comment: 'second done' }), hostReply({ Status: 'FINISH', Comment: 'again' })],
    });
    const first = await runRequest(harness.host, 'the first request');
    const second = await runRequest(harness.host, 'the second request');
    const file = join(harness.dataDir, 'deskhand.sqlite');
    const screenshots = harness.host.screenshots.root;
    // The folder of a session that only the damaged file might still hold.
    const onlyInDamaged = join(screenshots, randomUUID());

    const host = await harness.restart(() => {
      const db = new Database(file);
      const [sessionsPage] = pagesOf(db, 'sessions');
      db.close();
      damagePage(file, sessionsPage!.pageno);
      mkdirSync(onlyInDamaged);
    });

    expect(host.repair).toMatchObject({ sessions: 2, rebuiltSessions: 2, partsLost: true, damagedFile: expect.stringContaining('deskhand.sqlite.damaged-') });
    expect(existsSync(host.repair!.damagedFile)).toBe(true);
    expect(logged.mock.calls.flat().join('\n')).toMatch(/the database was damaged \(SQLite's integrity check found: .*\); it is kept as .*deskhand\.sqlite\.damaged-.*: 2 sessions \(2 rebuilt from their steps\), \d+ steps; parts of it could not be read/);

    const list = await host.endpoint.handle({ type: 'session.list', id: 'l' });
    if (list.type !== 'reply' || !list.ok) throw new Error(`session.list refused: ${JSON.stringify(list)}`);
    const result = CommandResults['session.list'].parse(list.result);
    expect(result.repair).toEqual(host.repair);
    expect(result.sessions.map((session) => session.request).sort()).toEqual(['the first request', 'the second request']);
    for (const run of [first, second]) {
      expect(host.store.steps(run.sessionId).map((step) => step.id)).toEqual(run.steps.map((step) => step.id));
      expect(readdirSync(join(screenshots, run.sessionId)).length).toBeGreaterThan(0);
    }
    // Not removed as an orphan while the damaged file it may belong to is kept.
    await new Promise((done) => setTimeout(done, 200));
    expect(existsSync(onlyInDamaged)).toBe(true);

    // A rebuilt session takes a follow-up like any other.
    const next = await host.endpoint.handle({ type: 'session.continue', id: 'c', sessionId: first.sessionId, request: 'once more' });
    expect(next).toMatchObject({ ok: true });
    await expect(host.sessions.running).resolves.toMatchObject({ status: 'finished' });
    expect(host.store.rounds(first.sessionId).map((round) => round.request)).toEqual(['the first request', 'once more']);

    // The next start finds nothing to repair.
    const after = await harness.restart();
    expect(after.repair).toBeNull();
    const again = await after.endpoint.handle({ type: 'session.list', id: 'l2' });
    expect(again).toMatchObject({ ok: true, result: { repair: null } });
  });
});
