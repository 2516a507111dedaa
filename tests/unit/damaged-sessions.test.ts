import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabase, type Db } from '../../src-main/memory/database';
import { InteractionStore } from '../../src-main/memory/interaction-store';
import { ScreenshotFiles } from '../../src-main/memory/screenshot-files';
import { SessionStore } from '../../src-main/memory/session-store';
import { newStep } from '../support/store-fixtures';

/**
 * A session whose own row is damaged (a faulty older Deskhand, a bad disk page) is listed as damaged,
 * with what can still be read of it, and can be deleted with everything it left: not hidden for ever.
 */

afterEach(() => {
  vi.restoreAllMocks();
});

const png = { bytes: Buffer.from('not really a png'), mimeType: 'image/png', width: 4, height: 3 };

async function withScreenshot(store: SessionStore, screenshots: ScreenshotFiles, sessionId: string, name: string): Promise<void> {
  const { stored, written } = screenshots.write(sessionId, name, png);
  await written;
  store.appendStep(sessionId, newStep({ screenshot: stored }));
}

function rig(): { dataDir: string; db: Db; store: SessionStore; interactions: InteractionStore; screenshots: ScreenshotFiles } {
  const dataDir = mkdtempSync(join(tmpdir(), 'deskhand-damaged-session-'));
  const db = openDatabase(join(dataDir, 'deskhand.sqlite'));
  return { dataDir, db, store: new SessionStore(db), interactions: new InteractionStore(db), screenshots: new ScreenshotFiles(dataDir) };
}

function count(db: Db, table: string, sessionId: string): number {
  return (db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE session_id = ?`).get(sessionId) as { n: number }).n;
}

describe('a session whose row is damaged', () => {
  it('is listed as damaged with its id, start time, request and why, and is deleted with its steps, interactions and screenshots', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { db, store, interactions, screenshots } = rig();
    const good = store.createSession('sort the photos', 'desktop');
    await withScreenshot(store, screenshots, good.id, 'step-00000');
    const bad = store.createSession('rename the invoices by date', 'desktop');
    await withScreenshot(store, screenshots, bad.id, 'step-00000');
    await withScreenshot(store, screenshots, bad.id, 'step-00001');
    interactions.save({ kind: 'questions', id: 'q-1', sessionId: bad.id, agent: 'HostAgent', questions: ['Which folder?'] });
    // What a faulty older Deskhand could have written: a status this one does not know.
    db.prepare(`UPDATE sessions SET status = 'exploded' WHERE id = ?`).run(bad.id);

    const listed = store.listEntries();
    expect(listed.sessions.map((session) => session.id)).toEqual([good.id]);
    expect(listed.damaged).toEqual([{ id: bad.id, createdAt: bad.createdAt, request: 'rename the invoices by date', problem: expect.stringMatching(/^status: /) }]);
    expect(listed.damaged[0]?.problem.length).toBeLessThanOrEqual(300);
    // A search finds it by its request like any session.
    expect(store.listEntries(200, 'invoices').damaged.map((entry) => entry.id)).toEqual([bad.id]);
    expect(store.listEntries(200, 'photos').damaged).toEqual([]);

    expect(store.deleteSession(bad.id)).toBe(true);
    await screenshots.removeFolder(bad.id);
    expect(store.hasSession(bad.id)).toBe(false);
    expect(count(db, 'steps', bad.id)).toBe(0);
    expect(count(db, 'interactions', bad.id)).toBe(0);
    expect(existsSync(join(screenshots.root, bad.id))).toBe(false);
    expect(store.listEntries()).toEqual({ sessions: [store.requireSession(good.id)], damaged: [] });
    // The other session is untouched: its steps and its screenshot.
    expect(store.steps(good.id)).toHaveLength(1);
    expect(readdirSync(join(screenshots.root, good.id))).toEqual(['step-00000.png']);
  });

  it('shows null for a start time or request it cannot read, and is left out only when its id cannot be read', () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { db, store } = rig();
    const blob = store.createSession('blob request', 'desktop');
    const noId = store.createSession('no id', 'desktop');
    db.prepare(`UPDATE sessions SET created_at = 'yesterday', request = x'00ff' WHERE id = ?`).run(blob.id);
    // SQLite lets a TEXT PRIMARY KEY be NULL: nothing can name that row to delete it.
    db.prepare(`UPDATE sessions SET id = NULL, status = 'exploded' WHERE id = ?`).run(noId.id);

    const listed = store.listEntries();
    expect(listed.sessions).toEqual([]);
    expect(listed.damaged).toEqual([{ id: blob.id, createdAt: null, request: null, problem: expect.any(String) }]);
    expect(errors.mock.calls.flat().join('\n')).toMatch(/left out of the session list: session null is damaged/);
  });

  it('removes no folder for an id that is not a plain name', async () => {
    const { dataDir, screenshots } = rig();
    await screenshots.removeFolder('..');
    await screenshots.removeFolder('.');
    expect(existsSync(join(dataDir, 'deskhand.sqlite'))).toBe(true);
  });
});
