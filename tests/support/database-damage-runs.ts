// Damages copies of a Deskhand database at random (random pages, offsets and bytes) and opens each with
// openRepairing, as the host does at start-up; prints one JSON line per run for the reliability test,
// which runs it in a process of its own so that a repair that never returns fails by its deadline.
//
//   node --import tsx tests/support/database-damage-runs.ts <seed> <runs> <work dir>
import { createHash } from 'node:crypto';
import { closeSync, copyFileSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase } from '../../src-main/memory/database';
import { openRepairing } from '../../src-main/memory/repair';
import { INSERT_STEP_SQL, SessionStore, stepRow, titleFrom } from '../../src-main/memory/session-store';
import type { StepView } from '../../src-main/protocol';
import { seeded, type Random } from './reliability-random';
import { newStep } from './store-fixtures';

export const BASE_SESSIONS = 12;
export const BASE_STEPS_EACH = 150;

/** What one run found; `problems` empty when the repaired database holds together and every session opens. */
export interface DamageRun {
  run: number;
  /** Where the damage went: page, offset in it, and how many bytes. */
  damage: Array<{ page: number; offset: number; bytes: number }>;
  repaired: boolean;
  sessions: number;
  steps: number;
  problems: string[];
}

/** The same id for session `s`, step `i` every time (randomUUID would move rows between pages from run to run). */
const idOf = (s: number, i = 0): string => `00000000-0000-4000-8000-${String(s).padStart(4, '0')}${String(i).padStart(8, '0')}`;

/**
 * Finished sessions with rounds, steps (some with prompts long enough to spill onto overflow pages),
 * blackboard and audit rows. Written with fixed ids and times, so the same seed damages the same rows.
 */
function makeBase(file: string): void {
  const db = openDatabase(file);
  const insertStep = db.prepare(INSERT_STEP_SQL);
  db.transaction(() => {
    for (let s = 0; s < BASE_SESSIONS; s++) {
      const request = `request ${s}: ${'tidy the reports folder '.repeat(4)}`;
      const id = idOf(s);
      const at = 1_700_000_000_000 + s * 60_000;
      db.prepare(
        `INSERT INTO sessions (id, title, request, mode, status, result, created_at, updated_at, step_count, round_count, prompt_tokens, completion_tokens)
         VALUES (?, ?, ?, ?, 'finished', ?, ?, ?, ?, 1, 0, 0)`,
      ).run(id, titleFrom(request), request, s % 4 === 3 ? 'shell' : 'desktop', `done ${s}`, at, at + 30_000, BASE_STEPS_EACH);
      db.prepare(`INSERT INTO rounds (session_id, idx, request, status, result, started_at, ended_at) VALUES (?, 0, ?, 'finished', ?, ?, ?)`).run(
        id,
        request,
        `done ${s}`,
        at,
        at + 30_000,
      );
      for (let i = 0; i < BASE_STEPS_EACH; i++) {
        const step = newStep({ observation: `seen ${i} `.repeat(30), promptText: i % 25 === 0 ? `prompt ${i} `.repeat(900) : null, startedAt: at + i * 100 });
        insertStep.run(stepRow(idOf(s, i + 1), id, i, step));
      }
      db.prepare(`INSERT INTO blackboard_items (session_id, memory, step_idx, content_json, created_at) VALUES (?, 'requests', 0, '"x"', ?)`).run(id, at);
      db.prepare(
        `INSERT INTO audit (call_id, session_id, step_idx, agent, tool, tool_type, args_json, decision, status, requested_at)
         VALUES (?, ?, 3, 'AppAgent', 'click', 'action', '{}', 'allowed', 'success', ?)`,
      ).run(`call-${s}`, id, at);
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function damageAtRandom(file: string, random: Random): DamageRun['damage'] {
  const pages = statSync(file).size / 4096;
  const damage: DamageRun['damage'] = [];
  const fd = openSync(file, 'r+');
  try {
    for (let n = random.int(1, 4); n > 0; n--) {
      const spot = { page: random.int(1, pages), offset: random.int(0, 4095), bytes: random.int(1, 200) };
      const bytes = Buffer.from(Array.from({ length: Math.min(spot.bytes, 4096 - spot.offset) }, () => random.int(0, 255)));
      writeSync(fd, bytes, 0, bytes.length, (spot.page - 1) * 4096 + spot.offset);
      damage.push(spot);
    }
  } finally {
    closeSync(fd);
  }
  return damage;
}

/** Opens a damaged copy as the host does, and checks what it finds: never a throw, a database that holds together, sessions that open. */
function runOnce(work: string, base: string, random: Random, run: number): DamageRun {
  const dir = join(work, `run-${run}`);
  mkdirSync(dir);
  const file = join(dir, 'deskhand.sqlite');
  copyFileSync(base, file);
  const damage = damageAtRandom(file, random);
  const damagedHash = sha256(file);
  const result: DamageRun = { run, damage, repaired: false, sessions: 0, steps: 0, problems: [] };
  let db: Database.Database | null = null;
  try {
    const opened = openRepairing(file);
    db = opened.db;
    result.repaired = opened.repair !== null;
    if (opened.repair && sha256(opened.repair.damagedFile) !== damagedHash) result.problems.push('the damaged file was not kept as it was');
    const store = new SessionStore(db, 1_000);
    const listed = store.listEntries(1_000);
    result.sessions = listed.sessions.length;
    if (result.repaired) {
      // What a repair built holds together, and every session in it opens.
      const integrity = db.pragma('integrity_check', { simple: true });
      if (integrity !== 'ok') result.problems.push(`integrity_check: ${String(integrity)}`);
      const orphans = (db.pragma('foreign_key_check') as unknown[]).length;
      if (orphans > 0) result.problems.push(`${orphans} rows without their session`);
      if (listed.damaged.length > 0) result.problems.push(`${listed.damaged.length} sessions listed as damaged`);
    }
    for (const session of listed.sessions) {
      let steps: StepView[];
      try {
        steps = store.steps(session.id);
      } catch (error) {
        // Bytes of a row changed where SQLite checks nothing: the session says which step is damaged, as
        // for any damaged row. A repaired database keeps no such row.
        const message = (error as Error).message;
        if (result.repaired || !/^step \d+ of session \S+ is damaged: /.test(message)) result.problems.push(`session ${session.id}: ${message}`);
        continue;
      }
      result.steps += steps.length;
      const highest = Math.max(-1, ...steps.map((step) => step.index));
      if (session.stepCount <= highest) result.problems.push(`session ${session.id} counts ${session.stepCount} steps but holds step ${highest}`);
    }
    // Damage SQLite does not notice (free space, bytes of a row) loses no session.
    if (!result.repaired && result.sessions + listed.damaged.length !== BASE_SESSIONS) {
      result.problems.push(`not repaired, yet ${result.sessions} sessions and ${listed.damaged.length} damaged ones listed`);
    }
  } catch (error) {
    result.problems.push(`threw: ${(error as Error).message}`);
  } finally {
    db?.close();
  }
  return result;
}

function main(): void {
  const [seedText, runsText, work] = process.argv.slice(2);
  const random = seeded(Number(seedText));
  const base = join(work as string, 'base.sqlite');
  makeBase(base);
  for (let run = 1; run <= Number(runsText); run++) console.log(JSON.stringify(runOnce(work as string, base, random, run)));
}

if (process.argv[1]?.endsWith('database-damage-runs.ts')) main();
