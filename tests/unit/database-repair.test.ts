import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs, { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isDatabaseDamage, openDatabase, type Db } from '../../src-main/memory/database';
import { hasDamagedCopies, openRepairing, repairView } from '../../src-main/memory/repair';
import { LOST_REQUEST } from '../../src-main/memory/salvage';
import { ScreenshotFiles } from '../../src-main/memory/screenshot-files';
import { SessionStore } from '../../src-main/memory/session-store';
import { damagePage, leavesOf, pagesOf, rewriteRowid } from '../support/damage-db';
import { newStep } from '../support/store-fixtures';

const SESSIONS = 12;
const STEPS_EACH = 150;
const NOW = new Date('2026-11-22T10:00:00.000Z');
const ASIDE = 'deskhand.sqlite.damaged-2026-11-22T10-00-00Z';

let dir: string;
let file: string;
const opened: Db[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'deskhand-repair-'));
  file = join(dir, 'deskhand.sqlite');
});

afterEach(() => {
  vi.restoreAllMocks();
  syncBuiltinESMExports();
  for (const db of opened.splice(0)) if (db.open) db.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Made {
  ids: string[];
  /** Each session's request, by id. */
  requests: Map<string, string>;
}

/** A database of finished sessions, one round each, the last a shell session, with blackboard and audit rows. */
function makeDatabase(): Made {
  const db = openDatabase(file);
  const store = new SessionStore(db, 1_000);
  const made: Made = { ids: [], requests: new Map() };
  for (let s = 0; s < SESSIONS; s++) {
    const shell = s === SESSIONS - 1;
    const request = `request number ${s}: tidy the folder ${'and more '.repeat(10)}`;
    const id = store.createSession(request, shell ? 'shell' : 'desktop').id;
    const round = store.startRound(id, request);
    store.transaction(() => {
      for (let i = 0; i < STEPS_EACH; i++) {
        store.appendStep(
          id,
          newStep({ agent: shell ? 'ShellAgent' : i % 3 === 0 ? 'HostAgent' : 'AppAgent', observation: `seen ${i} `.repeat(40), startedAt: 1_000 + i, tokens: { prompt: 10, completion: 2 } }),
        );
      }
    });
    store.endRound(id, round, 'finished', `done ${s}`);
    store.setStatus(id, 'finished', `done ${s}`);
    db.prepare(`INSERT INTO blackboard_items (session_id, memory, step_idx, content_json, created_at) VALUES (?, 'requests', 0, '"x"', 1)`).run(id);
    db.prepare(
      `INSERT INTO audit (call_id, session_id, agent, tool, tool_type, args_json, decision, status, requested_at)
       VALUES (?, ?, 'AppAgent', 'click', 'action', '{}', 'allowed', 'success', 1)`,
    ).run(`call-${s}`, id);
    made.ids.push(id);
    made.requests.set(id, request);
  }
  db.close();
  return made;
}

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function reopen(): { db: Db; repair: ReturnType<typeof openRepairing>['repair']; store: SessionStore } {
  const { db, repair } = openRepairing(file, {}, NOW);
  opened.push(db);
  return { db, repair, store: new SessionStore(db, 1_000) };
}

/** The pages of a table, read from a copy of the database as it is now. */
function pages(name: string) {
  const db = new Database(file);
  try {
    return pagesOf(db, name);
  } finally {
    db.close();
  }
}

describe('opening a damaged database', () => {
  it('leaves a healthy database as it is', () => {
    makeDatabase();
    const { repair, store } = reopen();
    expect(repair).toBeNull();
    expect(store.counts()).toEqual({ sessions: SESSIONS, steps: SESSIONS * STEPS_EACH });
    expect(readdirSync(dir).some((name) => name.includes('damaged'))).toBe(false);
    expect(hasDamagedCopies(file)).toBe(false);
  });

  it('rebuilds every session whose own row was on a damaged page from its round and steps, and keeps the damaged file as it was', () => {
    const made = makeDatabase();
    const [sessionsPage] = pages('sessions');
    expect(sessionsPage?.pagetype).toBe('leaf');
    damagePage(file, sessionsPage!.pageno);
    const damagedHash = sha256(file);
    expect(() => openDatabase(file)).toThrow(/cannot open the Deskhand database .*SQLite's integrity check found: /);

    const { db, repair, store } = reopen();
    expect(repair).toMatchObject({ damagedFile: join(dir, ASIDE), reason: expect.stringMatching(/^SQLite's integrity check found: /) });
    expect(repair?.salvaged).toMatchObject({ rebuiltSessions: SESSIONS, unreadable: ['sessions'], dropped: 0 });
    expect(repair?.salvaged?.copied).toMatchObject({ sessions: 0, rounds: SESSIONS, steps: SESSIONS * STEPS_EACH, blackboard_items: SESSIONS, audit: SESSIONS });
    // The damaged file is set aside untouched: nothing is lost that a closer look could still get back.
    expect(sha256(join(dir, ASIDE))).toBe(damagedHash);
    expect(hasDamagedCopies(file)).toBe(true);
    expect(db.pragma('quick_check', { simple: true })).toBe('ok');
    expect(db.pragma('foreign_key_check')).toEqual([]);

    const sessions = store.listEntries();
    expect(sessions.damaged).toEqual([]);
    expect(sessions.sessions.map((session) => session.id).sort()).toEqual([...made.ids].sort());
    for (const session of sessions.sessions) {
      const request = made.requests.get(session.id) as string;
      expect(session).toMatchObject({ request, status: 'finished', result: expect.stringMatching(/^done \d+$/), stepCount: STEPS_EACH, roundCount: 1 });
      expect(session.title).toBe(request.replace(/\s+/g, ' ').trim().slice(0, 79) + '…');
      expect(session.tokens).toEqual({ prompt: 10 * STEPS_EACH, completion: 2 * STEPS_EACH });
      expect(session.mode).toBe(session.id === made.ids.at(-1) ? 'shell' : 'desktop');
      expect(store.steps(session.id)).toHaveLength(STEPS_EACH);
    }
    // A rebuilt session goes on where it was: its next round and step take the next indexes.
    const first = made.ids[0] as string;
    expect(store.startRound(first, 'one more thing')).toBe(1);
    expect(store.appendStep(first, newStep({ round: 1 })).index).toBe(STEPS_EACH);
  });

  it('rebuilds a session from its steps alone when its rounds are lost too, and says its request was lost', () => {
    makeDatabase();
    damagePage(file, pages('sessions')[0]!.pageno);
    damagePage(file, pages('rounds')[0]!.pageno);
    const { repair, store } = reopen();
    expect(repair?.salvaged).toMatchObject({ rebuiltSessions: SESSIONS, unreadable: ['sessions', 'rounds'] });
    const sessions = store.listSessions();
    expect(sessions).toHaveLength(SESSIONS);
    for (const session of sessions) {
      // Resumable: whether its last round had ended is not known.
      expect(session).toMatchObject({ request: LOST_REQUEST, title: LOST_REQUEST, status: 'interrupted', stepCount: STEPS_EACH, roundCount: 1 });
    }
    expect(sessions.filter((session) => session.mode === 'shell')).toHaveLength(1);
  });

  it('loses only the steps on a damaged page, and reads on past it', () => {
    makeDatabase();
    const leaves = pages('steps').filter((page) => page.pagetype === 'leaf');
    const hit = leaves[Math.floor(leaves.length / 2)]!;
    expect(hit.ncell).toBeGreaterThan(0);
    damagePage(file, hit.pageno);

    const { repair, store } = reopen();
    // SQLite's check itself fails on this page, so it cannot say which table it is in: every one counts as damaged.
    expect(repair?.salvaged).toMatchObject({ rebuiltSessions: 0, unreadable: ['steps'], dropped: 0, damagedTables: expect.arrayContaining(['steps']) });
    expect(store.counts()).toEqual({ sessions: SESSIONS, steps: SESSIONS * STEPS_EACH - hit.ncell });
    // The sessions keep their step counts, so new steps never take an index still held by a lost one.
    const session = store.listSessions()[0]!;
    expect(session.stepCount).toBe(STEPS_EACH);
  });

  it('repairs a table and its index that disagree, which only the integrity check (not the quick check) finds', () => {
    makeDatabase();
    // The index as it was before a session changed: its pages read fine, but it holds the old time.
    const [index] = pages('sessions_by_update');
    expect(pages('sessions_by_update')).toHaveLength(1);
    const before = Buffer.alloc(4096);
    const fd = fs.openSync(file, 'r+');
    fs.readSync(fd, before, 0, 4096, (index!.pageno - 1) * 4096);
    const db = openDatabase(file);
    const changed = new SessionStore(db).listSessions()[0]!;
    db.prepare('UPDATE sessions SET updated_at = ? WHERE id = ?').run(changed.updatedAt - 10_000_000, changed.id);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    expect(pages('sessions_by_update')[0]!.pageno).toBe(index!.pageno);
    fs.writeSync(fd, before, 0, 4096, (index!.pageno - 1) * 4096);
    fs.closeSync(fd);
    const raw = new Database(file, { readonly: true });
    expect(raw.pragma('quick_check', { simple: true })).toBe('ok');
    raw.close();

    const { db: repaired, repair, store } = reopen();
    expect(repair?.reason).toMatch(/^SQLite's integrity check found: .*sessions_by_update/);
    expect(repair?.salvaged).toMatchObject({ unreadable: [], dropped: 0, damagedTables: [], copied: { sessions: SESSIONS } });
    expect(repaired.pragma('integrity_check', { simple: true })).toBe('ok');
    // The list is ordered through that index: the changed session is back in its place, last.
    expect(store.listSessions().at(-1)?.id).toBe(changed.id);
  });

  it('loses nothing when only an index is damaged: the new database builds its indexes again', () => {
    makeDatabase();
    const index = pages('sqlite_autoindex_steps_2').find((page) => page.pagetype === 'leaf')!;
    damagePage(file, index.pageno);
    const { db, repair, store } = reopen();
    expect(repair?.salvaged).toMatchObject({ unreadable: [], dropped: 0, damagedTables: [], copied: { steps: SESSIONS * STEPS_EACH } });
    expect(store.counts()).toEqual({ sessions: SESSIONS, steps: SESSIONS * STEPS_EACH });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  it('says parts may be missing when the overflow page of a long text is damaged, though its row still reads', () => {
    makeDatabase();
    const db = new Database(file);
    const id = db.prepare('SELECT id FROM steps ORDER BY rowid LIMIT 1').pluck().get() as string;
    // A prompt of 9,000 characters spills onto overflow pages; the start of its last one is overwritten.
    db.prepare('UPDATE steps SET prompt_text = ? WHERE id = ?').run('p'.repeat(9_000), id);
    const overflow = pagesOf(db, 'steps').filter((page) => page.pagetype === 'overflow');
    db.close();
    expect(overflow.length).toBeGreaterThan(0);
    damagePage(file, overflow.at(-1)!.pageno);

    const { repair, store } = reopen();
    // The row reads back (SQLite reads no further than the text's length), garbled: the notice must not say nothing was lost.
    expect(repair?.salvaged).toMatchObject({ unreadable: [], dropped: 0, damagedTables: ['steps'], copied: { steps: SESSIONS * STEPS_EACH } });
    const text = store.step(store.listSessions().at(-1)!.id, id)?.promptText;
    expect(text).toHaveLength(9_000);
    expect(text).not.toBe('p'.repeat(9_000));
    expect(repairView(repair!, store).partsLost).toBe(true);
  });

  it('steps over damaged pages one after another', () => {
    makeDatabase();
    const leaves = pages('steps').filter((page) => page.pagetype === 'leaf');
    const twoInARow = leaves.slice(5, 7);
    for (const page of twoInARow) damagePage(file, page.pageno);
    const { store } = reopen();
    expect(store.counts().steps).toBe(SESSIONS * STEPS_EACH - twoInARow.reduce((sum, page) => sum + page.ncell, 0));
  });

  it('keeps every other table when an inner page puts all the steps out of reach', () => {
    makeDatabase();
    const inner = pages('steps').filter((page) => page.pagetype === 'internal');
    // At this size the table's root is its only inner page: every step is under it.
    expect(inner).toHaveLength(1);
    damagePage(file, inner[0]!.pageno);
    const { repair, store } = reopen();
    expect(repair?.salvaged).toMatchObject({ unreadable: ['steps'], copied: { sessions: SESSIONS, rounds: SESSIONS, steps: 0, blackboard_items: SESSIONS, audit: SESSIONS } });
    expect(store.counts()).toEqual({ sessions: SESSIONS, steps: 0 });
  });

  it('sets aside a file that is no database at all and starts an empty one', () => {
    writeFileSync(file, 'these are not the pages of a database '.repeat(200));
    const { repair, store } = reopen();
    expect(repair).toMatchObject({ damagedFile: join(dir, ASIDE), reason: 'file is not a database' });
    expect(repair?.salvaged?.unreadable).toEqual(['sessions', 'rounds', 'steps', 'blackboard_items', 'interactions', 'forms', 'audit']);
    expect(store.counts()).toEqual({ sessions: 0, steps: 0 });
    expect(readFileSync(join(dir, ASIDE), 'utf8')).toMatch(/^these are not the pages/);
  });

  it('changes nothing when the repair cannot be written, and tries again at the next start', () => {
    makeDatabase();
    damagePage(file, pages('sessions')[0]!.pageno);
    const damagedHash = sha256(file);
    // Where the repaired database is built, something that cannot be replaced.
    mkdirSync(`${file}.repairing`);
    writeFileSync(join(`${file}.repairing`, 'keep'), '');
    expect(() => openRepairing(file, {}, NOW)).toThrow(/^the Deskhand database .* is damaged \(SQLite's integrity check .*\), and repairing it failed: /);
    expect(sha256(file)).toBe(damagedHash);
    expect(existsSync(join(dir, ASIDE))).toBe(false);

    rmSync(`${file}.repairing`, { recursive: true });
    const { repair, store } = reopen();
    expect(repair?.salvaged?.rebuiltSessions).toBe(SESSIONS);
    expect(store.counts().sessions).toBe(SESSIONS);
  });

  it('does not take a database from a newer Deskhand, or one another program locks, for a damaged one', () => {
    makeDatabase();
    const db = new Database(file);
    db.pragma('user_version = 99');
    db.close();
    expect(() => openRepairing(file, {}, NOW)).toThrow(/schema version 99, newer than this Deskhand/);
    expect(readdirSync(dir).some((name) => name.includes('damaged'))).toBe(false);
    expect(isDatabaseDamage(new Error('database is locked'))).toBe(false);
  });

  it('names a second repair in the same second apart from the first', () => {
    writeFileSync(file, 'not a database '.repeat(100));
    reopen().db.close();
    writeFileSync(file, 'still not a database '.repeat(100));
    rmSync(`${file}-wal`, { force: true });
    rmSync(`${file}-shm`, { force: true });
    const { repair } = reopen();
    expect(repair?.damagedFile).toBe(join(dir, `${ASIDE}-2`));
    expect(readFileSync(join(dir, ASIDE), 'utf8')).toMatch(/^not a database/);
  });
});

/** The leaves of a table, read from a copy of the database as it is now. */
function leaves(table: string) {
  const db = new Database(file);
  try {
    return leavesOf(db, table);
  } finally {
    db.close();
  }
}

/** A database with `count` audit rows (ids 1..count) and nothing else. */
function auditRows(count: number): void {
  const db = openDatabase(file);
  const insert = db.prepare(
    `INSERT INTO audit (call_id, agent, tool, tool_type, args_json, decision, status, requested_at)
     VALUES (?, 'AppAgent', 'click', 'action', '{}', 'allowed', 'success', 1)`,
  );
  db.transaction(() => {
    for (let i = 1; i <= count; i++) insert.run(`call-${i}`);
  })();
  db.close();
}

describe('reading the rows of a damaged table', () => {
  it('reads on past a damaged first page', () => {
    makeDatabase();
    const [first] = leaves('steps');
    expect(first!.rowids[0]).toBe(1);
    damagePage(file, first!.pageno);
    const { repair, store } = reopen();
    expect(repair?.salvaged).toMatchObject({ unreadable: ['steps'], copied: { steps: SESSIONS * STEPS_EACH - first!.rowids.length } });
    expect(store.counts().steps).toBe(SESSIONS * STEPS_EACH - first!.rowids.length);
  });

  it('reads a page between damaged ones that the probe for the next readable row steps over', () => {
    makeDatabase();
    const all = leaves('steps');
    // The probe goes 1, 2, 4, 8, 16, 32 rows past the last row read: damage the pages those land on.
    const start = 10;
    const after = all[start - 1]!.rowids.at(-1)!;
    const holding = (rowid: number) => all.findIndex((leaf) => leaf.rowids.includes(rowid));
    const damaged = new Set([1, 2, 4, 8, 16, 32].map((ahead) => holding(after + ahead)));
    const between = all.slice(start, holding(after + 32)).filter((_, i) => !damaged.has(start + i));
    // At least one page between them is readable (a probe never lands on it).
    expect(between.length).toBeGreaterThan(0);
    for (const index of damaged) damagePage(file, all[index]!.pageno);
    const lost = [...damaged].reduce((sum, index) => sum + all[index]!.rowids.length, 0);
    const { store } = reopen();
    expect(store.counts().steps).toBe(SESSIONS * STEPS_EACH - lost);
  });

  it('reads on past a key out of order in the middle of a table', () => {
    auditRows(1_200);
    const leaf = leaves('audit').find((page) => page.rowids.includes(500))!;
    // Row 500, the last of the first 500 read, now says it is row 16000.
    rewriteRowid(file, leaf.pageno, 500, 16_000);
    const { repair } = reopen();
    expect(repair?.reason).toMatch(/out of order/);
    expect(repair?.salvaged?.copied.audit).toBe(1_200);
  });

  it('does not go back for ever to a key out of order just before a damaged page', () => {
    auditRows(1_200);
    const all = leaves('audit');
    const index = all.findIndex((page) => page.rowids.includes(600));
    const leaf = all[index]!;
    rewriteRowid(file, leaf.pageno, leaf.rowids.at(-1)!, 5);
    damagePage(file, all[index + 1]!.pageno);
    // In a process of its own: a reader that loops never returns.
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `const { openRepairing } = await import(${JSON.stringify(join(process.cwd(), 'src-main/memory/repair.ts'))});
         const { repair, db } = openRepairing(${JSON.stringify(file)});
         db.close();
         console.log(JSON.stringify(repair.salvaged));`,
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(child.signal).toBeNull();
    expect(child.status).toBe(0);
    const salvaged = JSON.parse(child.stdout);
    // Every row but the damaged page's; the one with the key out of order says it is row 5, which is taken.
    expect(salvaged).toMatchObject({ unreadable: ['audit'], dropped: 1 });
    expect(salvaged.copied.audit).toBe(1_200 - all[index + 1]!.rowids.length - 1);
  });
});

/** Runs TypeScript in a process of its own (one that dies, or one that may never return). */
function runApart(code: string, timeout = 30_000) {
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { encoding: 'utf8', timeout, cwd: process.cwd() });
}

describe('setting a damaged database aside', () => {
  it('keeps its write-ahead log and the file as they were, and salvages what only the log holds', () => {
    makeDatabase();
    const [, middle] = leaves('steps').slice(5);
    // Deskhand killed with a transaction in the log, not yet copied into the file.
    const killed = runApart(
      `const { openDatabase } = await import(${JSON.stringify(join(process.cwd(), 'src-main/memory/database.ts'))});
       const db = openDatabase(${JSON.stringify(file)});
       db.pragma('wal_autocheckpoint = 0');
       db.prepare("INSERT INTO sessions (id, title, request, mode, status, created_at, updated_at) VALUES ('late', 'late', 'late', 'desktop', 'finished', 1, 1)").run();
       process.kill(process.pid, 'SIGKILL');`,
    );
    expect(killed.signal).toBe('SIGKILL');
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(0);
    damagePage(file, middle!.pageno);
    const before = { file: sha256(file), wal: sha256(`${file}-wal`) };

    const { repair, store } = reopen();
    expect(repair?.salvaged?.copied.sessions).toBe(SESSIONS + 1);
    expect(store.hasSession('late')).toBe(true);
    expect({ file: sha256(join(dir, ASIDE)), wal: sha256(join(dir, `${ASIDE}-wal`)) }).toEqual(before);
  });

  for (const crashAt of [1, 2, 3, 4, 5, 6]) {
    it(`finishes a repair cut off before its move number ${crashAt} at the next start, losing nothing`, () => {
      makeDatabase();
      damagePage(file, pages('sessions')[0]!.pageno);
      const damagedHash = sha256(file);
      const rename = fs.renameSync;
      let renames = 0;
      vi.spyOn(fs, 'renameSync').mockImplementation((from, to) => {
        if (++renames === crashAt) throw new Error('killed');
        rename(from, to);
      });
      syncBuiltinESMExports();
      expect(() => openRepairing(file, {}, NOW)).toThrow();
      vi.restoreAllMocks();
      syncBuiltinESMExports();

      const { repair, store } = reopen();
      expect(repair?.salvaged?.rebuiltSessions).toBe(SESSIONS);
      expect(store.counts()).toEqual({ sessions: SESSIONS, steps: SESSIONS * STEPS_EACH });
      expect(sha256(repair!.damagedFile)).toBe(damagedHash);
      expect(readdirSync(dir).filter((name) => !name.includes('damaged')).sort()).toEqual(['deskhand.sqlite', 'deskhand.sqlite-shm', 'deskhand.sqlite-wal']);
    });
  }
});

describe('the note of a repair under way', () => {
  it('is checked when read back: one that is not a repair note is removed with a log line, and nothing is moved', () => {
    makeDatabase();
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const notes = [
      '{"damagedFile": 42}',
      'not json',
      JSON.stringify({ damagedFile: 'x', reason: 'r', salvaged: { copied: {}, rebuiltSessions: -1, unreadable: [], dropped: 0 } }),
      // A note naming the database itself as the file to set aside: the database would be replaced.
      JSON.stringify({ damagedFile: file, reason: 'r', salvaged: null }),
    ];
    writeFileSync(`${file}.repaired`, 'not the database');
    for (const text of notes) {
      writeFileSync(`${file}.repair-moving`, text);
      const { repair, store } = reopen();
      expect(repair, text).toBeNull();
      expect(store.counts().sessions).toBe(SESSIONS);
      expect(existsSync(`${file}.repair-moving`)).toBe(false);
      for (const db of opened.splice(0)) db.close();
    }
    expect(logged.mock.calls.flat().join('\n')).toMatch(/deskhand\.sqlite\.repair-moving is not the note of a repair; it was removed, and nothing moved/);
    expect(readdirSync(dir).some((name) => name.includes('damaged'))).toBe(false);
    expect(readFileSync(`${file}.repaired`, 'utf8')).toBe('not the database');
  });
});

describe('a session rebuilt after its last steps were lost too', () => {
  /** Damages the sessions' page and the last page of steps; returns the last session and the indexes of its steps lost. */
  function loseTheLastSteps(before?: (db: Db, id: string) => void): { id: string; lost: number[] } {
    const made = makeDatabase();
    const id = made.ids.at(-1)!;
    const db = new Database(file);
    before?.(db, id);
    const last = leavesOf(db, 'steps').at(-1)!;
    const lost = db.prepare(`SELECT idx FROM steps WHERE rowid >= ? AND session_id = ? ORDER BY idx`).pluck().all(last.rowids[0], id) as number[];
    db.close();
    expect(lost.at(-1)).toBe(STEPS_EACH - 1);
    damagePage(file, pages('sessions')[0]!.pageno);
    damagePage(file, last.pageno);
    return { id, lost };
  }

  it('takes no step index its screenshots show taken', () => {
    const { id, lost } = loseTheLastSteps();
    const screenshots = new ScreenshotFiles(dir);
    mkdirSync(join(screenshots.root, id), { recursive: true });
    for (const index of lost) {
      const name = `step-${String(index).padStart(5, '0')}`;
      writeFileSync(join(screenshots.root, id, `${name}.png`), 'lost step');
      writeFileSync(join(screenshots.root, id, `${name}-annotated.png`), 'lost step');
    }
    expect(screenshots.stepsTaken(id)).toBe(STEPS_EACH);
    const { db, repair } = openRepairing(file, { stepsTaken: (session) => screenshots.stepsTaken(session) }, NOW);
    opened.push(db);
    const store = new SessionStore(db, 1_000);
    expect(repair?.salvaged?.rebuiltSessions).toBe(SESSIONS);
    expect(store.listSessions().find((session) => session.id === id)?.stepCount).toBe(STEPS_EACH);
    store.startRound(id, 'one more thing');
    expect(store.appendStep(id, newStep({ round: 1 })).index).toBe(STEPS_EACH);
  });

  it('takes no step index its audit rows name', () => {
    const { id } = loseTheLastSteps((db, session) =>
      db
        .prepare(
          `INSERT INTO audit (call_id, session_id, step_idx, agent, tool, tool_type, args_json, decision, status, requested_at)
           VALUES ('call-last', ?, ?, 'AppAgent', 'click', 'action', '{}', 'allowed', 'success', 1)`,
        )
        .run(session, STEPS_EACH - 1),
    );
    const { store } = reopen();
    expect(store.listSessions().find((session) => session.id === id)?.stepCount).toBe(STEPS_EACH);
  });
});
