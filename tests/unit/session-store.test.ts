import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase, schemaVersion } from '../../src-main/memory/database';
import { MIGRATIONS } from '../../src-main/memory/migrations';
import { ScreenshotFiles } from '../../src-main/memory/screenshot-files';
import { SessionStore, type NewStep } from '../../src-main/memory/session-store';

function tempDb(): string {
  return join(mkdtempSync(join(tmpdir(), 'deskhand-store-')), 'deskhand.sqlite');
}

const step = (overrides: Partial<NewStep> = {}): NewStep => ({
  round: 0,
  agent: 'AppAgent',
  target: 'Terminal',
  subtask: 'type',
  plan: [],
  comment: '',
  promptText: null,
  annotated: null,
  phaseMs: { DATA_COLLECTION: 1 },
  costUsd: null,
  approvedBy: 'policy',
  status: 'CONTINUE',
  observation: 'o',
  thought: 't',
  action: { function: 'click', args: { x: 1, y: 2 } },
  actionText: 'Click at (1, 2)',
  result: 'done',
  error: null,
  modelReply: '{}',
  screenshot: null,
  startedAt: 1,
  durationMs: 2,
  tokens: { prompt: 3, completion: 4 },
  ...overrides,
});

describe('SessionStore', () => {
  it('migrates a new database to the latest version in WAL mode', () => {
    const db = openDatabase(tempDb());
    expect(schemaVersion(db)).toBe(MIGRATIONS.length);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
  });

  it('refuses a database from a newer Deskhand', () => {
    const file = tempDb();
    const raw = new Database(file);
    raw.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    raw.close();
    expect(() => openDatabase(file)).toThrow(/newer than this Deskhand/);
  });

  it('appends steps in order and reads them back as the UI sees them', () => {
    const store = new SessionStore(openDatabase(tempDb()));
    const session = store.createSession('  do   the thing  ', 'desktop');
    expect(session).toMatchObject({ title: 'do the thing', status: 'running', stepCount: 0 });
    const first = store.appendStep(session.id, step());
    const second = store.appendStep(session.id, step({ status: 'FINISH', action: null, actionText: 'No action' }));
    expect([first.index, second.index]).toEqual([0, 1]);
    expect(store.steps(session.id)).toEqual([first, second]);
    expect(store.getSession(session.id)?.stepCount).toBe(2);
  });

  it('marks sessions left running by a killed process as interrupted, keeping their steps', () => {
    const file = tempDb();
    const before = new SessionStore(openDatabase(file));
    const running = before.createSession('long job', 'desktop');
    before.appendStep(running.id, step());
    const done = before.createSession('short job', 'desktop');
    before.setStatus(done.id, 'finished', 'ok');
    const after = new SessionStore(openDatabase(file));
    expect(after.markUnfinishedInterrupted()).toEqual([running.id]);
    expect(after.getSession(running.id)?.status).toBe('interrupted');
    expect(after.getSession(done.id)?.status).toBe('finished');
    expect(after.steps(running.id)).toHaveLength(1);
  });

  it('fails a step for an unknown session without writing anything', () => {
    const store = new SessionStore(openDatabase(tempDb()));
    expect(() => store.appendStep('missing', step())).toThrow(/no session/);
  });
});

describe('ScreenshotFiles', () => {
  it('stores files under the session folder and never resolves a path outside it', async () => {
    const files = new ScreenshotFiles(mkdtempSync(join(tmpdir(), 'deskhand-shots-')));
    const { stored, written } = files.write('s1', 'step-00000', { bytes: Buffer.from('img'), mimeType: 'image/jpeg', width: 2, height: 3 });
    expect(stored).toMatchObject({ file: 'step-00000.jpg', bytes: 3, width: 2, height: 3 });
    expect(stored.sha256).toBe(createHash('sha256').update('img').digest('hex'));
    await written;
    expect(readFileSync(join(files.root, 's1', 'step-00000.jpg'), 'utf8')).toBe('img');
    expect(files.pathOf('s1', 'step-00000.jpg')).toBe(join(files.root, 's1', 'step-00000.jpg'));
    for (const [session, file] of [['s1', '../x.jpg'], ['..', 'x.jpg'], ['s1', 'a/b.jpg'], ['s1', '.hidden'], ['s1', '']]) {
      expect(files.pathOf(session as string, file as string)).toBeNull();
    }
  });

  it('does not bring back the folder of a deleted session, and makes it again only when told', async () => {
    const files = new ScreenshotFiles(mkdtempSync(join(tmpdir(), 'deskhand-shots-')));
    const image = { bytes: Buffer.from('one'), mimeType: 'image/png', width: 1, height: 1 };
    await files.write('s1', 'step-00000', image).written;
    rmSync(join(files.root, 's1'), { recursive: true });
    await expect(files.write('s1', 'step-00001', image).written).rejects.toThrow(/ENOENT/);
    expect(existsSync(join(files.root, 's1'))).toBe(false);
    files.forget('s1');
    await files.write('s1', 'step-00002', { ...image, bytes: Buffer.from('two') }).written;
    expect(readFileSync(join(files.root, 's1', 'step-00002.png'), 'utf8')).toBe('two');
  });

  it('refuses an unknown image type at once, and reports a write that fails', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'deskhand-shots-'));
    const files = new ScreenshotFiles(dataDir);
    expect(() => files.write('s1', 'step-00000', { bytes: Buffer.from('x'), mimeType: 'image/gif', width: 1, height: 1 })).toThrow(
      'unsupported screenshot type image/gif',
    );
    // A file where the screenshots folder should be: no folder can be made under it.
    writeFileSync(join(dataDir, 'screenshots'), 'not a folder');
    const { written } = files.write('s1', 'step-00000', { bytes: Buffer.from('x'), mimeType: 'image/png', width: 1, height: 1 });
    await expect(written).rejects.toThrow(/ENOTDIR|EEXIST/);
  });
});
