// Figure 4: steps persisted per second through SessionStore.appendStep (one transaction per step: the
// step, the session's counters, the view the UI gets) against raw better-sqlite3 inserts of the same
// rows, one transaction each, on the same schema and pragmas; and the time to reopen a 10,000-step
// session (a fresh openDatabase, then store.steps(id)), of which SQLite's integrity check at start-up;
// and the time to repair that database with one of its steps' pages damaged.
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase } from '../../src-main/memory/database';
import { openRepairing } from '../../src-main/memory/repair';
import { INSERT_STEP_SQL, SessionStore, stepRow, type NewStep } from '../../src-main/memory/session-store';
import { emit, goal, info, median, note, runBench } from '../support/bench-stats';
import { damagePage, pagesOf } from '../support/damage-db';

const STEPS = 3_000;
/** Rounds of both, in turn, the order swapped each round: the disk's speed drifts, and each ratio compares neighbours. */
const ROUNDS = 5;
const REOPEN_STEPS = 10_000;

/** A step as a real run makes it: a prompt of about 4,000 characters (see the prompt-size figure), a reply, a screenshot. */
function newStep(i: number): NewStep {
  const words = `step ${i} the editor shows the report draft with ${i} lines and a toolbar `;
  return {
    round: 0,
    agent: 'AppAgent',
    target: 'report.txt - Mousepad',
    subtask: 'write the report',
    status: 'CONTINUE',
    observation: `The editor shows ${i} lines of the report.`,
    thought: `Type paragraph ${i + 1}.`,
    plan: ['type the paragraph', 'save'],
    comment: '',
    action: { function: 'type_text', args: { text: `paragraph ${i + 1}`, x: 200, y: 300 } },
    actionText: `Type 'paragraph ${i + 1}' at (200, 300)`,
    result: 'type_text done',
    error: null,
    modelReply: JSON.stringify({ Observation: words, Thought: words, Function: 'type_text', Args: { text: `paragraph ${i + 1}` }, Status: 'CONTINUE', Plan: [] }),
    promptText: words.repeat(Math.ceil(4_000 / words.length)).slice(0, 4_000),
    screenshot: { file: `step-${String(i).padStart(5, '0')}.jpg`, width: 1280, height: 800, bytes: 180_000, sha256: 'a'.repeat(64) },
    annotated: null,
    startedAt: 1_700_000_000_000 + i * 1_000,
    durationMs: 850.5,
    phaseMs: { DATA_COLLECTION: 40.1, LLM_INTERACTION: 700.2, ACTION_EXECUTION: 110.3, MEMORY_UPDATE: 0.4 },
    tokens: { prompt: 1_200, completion: 80 },
    costUsd: 0.0021,
    approvedBy: 'policy',
    notRun: null,
  };
}

function storeRate(dir: string, steps: NewStep[]): number {
  const db = openDatabase(join(dir, `store-${randomUUID()}.sqlite`));
  const store = new SessionStore(db, 1_000);
  const sessionId = store.createSession('write the report', 'desktop').id;
  const started = performance.now();
  for (const step of steps) store.appendStep(sessionId, step);
  const seconds = (performance.now() - started) / 1000;
  db.close();
  return steps.length / seconds;
}

function rawRate(dir: string, steps: NewStep[]): number {
  const db = openDatabase(join(dir, `raw-${randomUUID()}.sqlite`));
  const sessionId = new SessionStore(db).createSession('write the report', 'desktop').id;
  // The store's own INSERT, with each row already serialised: only the database's work is left.
  const rows = steps.map((step, idx) => stepRow(randomUUID(), sessionId, idx, step));
  const insert = db.prepare(INSERT_STEP_SQL);
  const one = db.transaction((row: Record<string, unknown>) => insert.run(row));
  const started = performance.now();
  for (const row of rows) one(row);
  const seconds = (performance.now() - started) / 1000;
  db.close();
  return steps.length / seconds;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'deskhand-bench-store-'));
  try {
    const steps = Array.from({ length: STEPS }, (_, i) => newStep(i));
    const store: number[] = [];
    const raw: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      note(`round ${round + 1} of ${ROUNDS}: ${STEPS} steps through the store and raw ...`);
      if (round % 2 === 0) {
        store.push(storeRate(dir, steps));
        raw.push(rawRate(dir, steps));
      } else {
        raw.push(rawRate(dir, steps));
        store.push(storeRate(dir, steps));
      }
    }
    const ratios = store.map((rate, round) => rate / (raw[round] as number));

    note(`a session of ${REOPEN_STEPS} steps, reopened ...`);
    const file = join(dir, 'reopen.sqlite');
    let db = openDatabase(file);
    let sessions = new SessionStore(db, 1_000);
    const sessionId = sessions.createSession('a very long run', 'desktop').id;
    sessions.transaction(() => {
      for (let i = 0; i < REOPEN_STEPS; i++) sessions.appendStep(sessionId, newStep(i));
    });
    db.close();
    const reopen: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const started = performance.now();
      db = openDatabase(file);
      sessions = new SessionStore(db, 1_000);
      const loaded = sessions.steps(sessionId);
      reopen.push(performance.now() - started);
      if (loaded.length !== REOPEN_STEPS) throw new Error(`reopened ${loaded.length} steps`);
      db.close();
    }
    // The start-up check alone, on a connection of its own (openDatabase runs it before anything is read).
    const check: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const raw = new Database(file);
      const started = performance.now();
      raw.pragma('integrity_check(3)');
      check.push(performance.now() - started);
      raw.close();
    }

    note('the same database with one page of steps damaged, repaired ...');
    const damaged = join(dir, 'damaged.sqlite');
    copyFileSync(file, damaged);
    const inspect = new Database(damaged);
    const leaves = pagesOf(inspect, 'steps').filter((page) => page.pagetype === 'leaf');
    inspect.close();
    const hit = leaves[Math.floor(leaves.length / 2)];
    if (!hit) throw new Error('the steps table has no leaf page');
    damagePage(damaged, hit.pageno);
    const repairStarted = performance.now();
    const repaired = openRepairing(damaged);
    const repairMs = performance.now() - repairStarted;
    const readBack = repaired.repair?.salvaged?.copied.steps ?? 0;
    repaired.db.close();
    if (readBack !== REOPEN_STEPS - hit.ncell) throw new Error(`the repair read back ${readBack} steps, not ${REOPEN_STEPS - hit.ncell}`);

    const storeMedian = median(store);
    const rawMedian = median(raw);
    emit([
      info('Steps persisted through SessionStore.appendStep', storeMedian, 'steps/s'),
      info('Raw better-sqlite3 inserts of the same rows (a transaction each)', rawMedian, 'steps/s'),
      goal('Store / raw inserts (median of the rounds\' ratios)', median(ratios), 'ratio', '>=', 0.5),
      info(`Database with the ${REOPEN_STEPS}-step session`, statSync(file).size / 1024 / 1024, 'MB'),
      goal(`Reopen a ${REOPEN_STEPS}-step session (openDatabase + store.steps)`, median(reopen), 'ms', '<=', 1_000),
      info(`  of which SQLite's integrity check at the start`, median(check), 'ms'),
      info(`Repair of that database with one page of steps damaged (${hit.ncell} steps on it lost, ${readBack} read back)`, repairMs, 'ms'),
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench(main);
