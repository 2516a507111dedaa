import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { CommandResults } from '../../src-main/protocol';
import { replies, runRequest } from '../support/host-harness';
import { damageSession, harnessPerTest, send } from '../support/host-per-test';

const { host: hostReply } = replies;

const startHarness = harnessPerTest({ restoreMocks: true });

function count(db: Database.Database, table: string, sessionId: string): number {
  return (db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE session_id = ?`).get(sessionId) as { n: number }).n;
}

describe('a damaged session over the protocol', () => {
  it('is listed as damaged, refuses to open or continue with a clear reason, and is deleted with its steps and screenshots', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const current = await startHarness({
      name: 'two sessions',
      steps: [hostReply({ Status: 'FINISH', Comment: 'kept' }), hostReply({ Status: 'FINISH', Comment: 'damaged later' })],
    });
    const kept = await runRequest(current.host, 'keep this one');
    const damaged = await runRequest(current.host, 'this one gets damaged');
    const folder = join(current.host.screenshots.root, damaged.sessionId);
    expect(readdirSync(folder).length).toBeGreaterThan(0);

    const db = damageSession(current, damaged.sessionId);
    try {
      const list = await send(current, { type: 'session.list' });
      if (list.type !== 'reply' || !list.ok) throw new Error(`session.list refused: ${JSON.stringify(list)}`);
      // What the renderer checks it against.
      const result = CommandResults['session.list'].parse(list.result);
      expect(result.sessions.map((session) => session.id)).toEqual([kept.sessionId]);
      expect(result.damaged).toEqual([
        { id: damaged.sessionId, createdAt: expect.any(Number), request: 'this one gets damaged', problem: expect.stringMatching(/^mode: /) },
      ]);

      for (const type of ['session.open', 'session.continue', 'session.resume', 'session.export']) {
        const refused = await send(current, { type, sessionId: damaged.sessionId, ...(type === 'session.continue' ? { request: 'go on' } : {}) });
        expect(refused, type).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringMatching(/^this session is damaged and cannot be opened or continued, only deleted \(mode: /) } });
      }

      const deleted = await send(current, { type: 'session.delete', sessionId: damaged.sessionId });
      expect(deleted).toMatchObject({ ok: true, result: { sessionId: damaged.sessionId } });
      expect(current.events).toContainEqual({ kind: 'session.deleted', sessionId: damaged.sessionId });
      expect(count(db, 'steps', damaged.sessionId)).toBe(0);
      expect(count(db, 'rounds', damaged.sessionId)).toBe(0);
      expect(db.prepare('SELECT COUNT(*) AS n FROM sessions WHERE id = ?').get(damaged.sessionId)).toEqual({ n: 0 });
      expect(existsSync(folder)).toBe(false);
      expect(await send(current, { type: 'session.delete', sessionId: damaged.sessionId })).toMatchObject({ ok: false, error: { code: 'not_found' } });

      // The other session is as it was.
      expect(await send(current, { type: 'session.list' })).toMatchObject({ ok: true, result: { sessions: [{ id: kept.sessionId }], damaged: [] } });
      const opened = await send(current, { type: 'session.open', sessionId: kept.sessionId });
      expect(opened).toMatchObject({ ok: true, result: { steps: [{ sessionId: kept.sessionId }] } });
      expect(readdirSync(join(current.host.screenshots.root, kept.sessionId)).length).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });

  it('deletes a normal ended session as before: its rows and its screenshot folder', async () => {
    const current = await startHarness({ name: 'one', steps: [hostReply({ Status: 'FINISH', Comment: 'done' })] });
    const ended = await runRequest(current.host, 'one');
    const folder = join(current.host.screenshots.root, ended.sessionId);
    expect(existsSync(folder)).toBe(true);
    expect(await send(current, { type: 'session.delete', sessionId: ended.sessionId })).toMatchObject({ ok: true, result: { sessionId: ended.sessionId } });
    expect(existsSync(folder)).toBe(false);
    expect(current.host.store.listEntries()).toEqual({ sessions: [], damaged: [] });
  });
});
