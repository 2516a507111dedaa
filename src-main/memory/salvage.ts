import { z } from 'zod';
import type { Db } from './database';
import { readsBack, titleFrom } from './session-store';

/**
 * Copies what can still be read of a damaged Deskhand database into a fresh one (at the current schema).
 * SQLite fails a whole query at the first damaged page it meets, so each table is read in order of its
 * rowids, and a read that fails goes on after the damaged stretch: the first rowid a search can reach
 * again is found by probing further and further ahead, then narrowing back (a damaged leaf page hides its
 * own rows only; a damaged inner page, the rows under it). A session whose own row was lost but whose
 * rounds or steps were read is rebuilt from them; what belongs to a session that is gone for good is
 * dropped, except its audit rows, which stay without it as after a delete.
 */

/** The tables Deskhand keeps, parents first. */
const TABLES = ['sessions', 'rounds', 'steps', 'blackboard_items', 'interactions', 'forms', 'audit'] as const;
type Table = (typeof TABLES)[number];

/** SQLite's rowids are signed 64-bit integers. */
const MIN_ROWID = -(2n ** 63n);
const MAX_ROWID = 2n ** 63n - 1n;
/**
 * How many rowids before the first one a probe reached again are searched one by one: a readable page
 * between two damaged ones can lie between two probes, where narrowing back does not look.
 */
const SCAN_ROWIDS = 4096n;

const Count = z.number().int().nonnegative();

/** What a salvage copied; a schema, since a repair cut off while moving files reads it back from its note. */
export const SalvageReport = z.object({
  /** Rows copied per table. */
  copied: z.object(Object.fromEntries(TABLES.map((table) => [table, Count])) as Record<Table, typeof Count>).strict(),
  /** Sessions whose own row was lost, rebuilt from their rounds and steps. */
  rebuiltSessions: Count,
  /** Tables where a damaged stretch was skipped, or that could not be read at all: their rows there are lost. */
  unreadable: z.array(z.enum(TABLES)),
  /** Rows read but not kept: their session is lost, or the row does not fit the schema. */
  dropped: Count,
  /**
   * Tables whose own pages SQLite's check found damaged (not only their indexes'): rows read from them may
   * still be cut short or garbled (a damaged overflow page of a long text reads back without an error).
   */
  damagedTables: z.array(z.enum(TABLES)).default([]),
});
export type SalvageReport = z.infer<typeof SalvageReport>;

type Row = Record<string, unknown>;

/**
 * Copies every readable row of `damaged` into `fresh` (opened at the current schema, empty). Never throws
 * for what it reads; a failure to write `fresh` (a full disk) is thrown. `stepsTaken` tells how many step
 * indexes a session's files (its screenshots) show taken, for a session rebuilt from its steps.
 */
export function salvageInto(damaged: Db, fresh: Db, stepsTaken: (sessionId: string) => number = () => 0): SalvageReport {
  const report: SalvageReport = {
    copied: { sessions: 0, rounds: 0, steps: 0, blackboard_items: 0, interactions: 0, forms: 0, audit: 0 },
    rebuiltSessions: 0,
    unreadable: [],
    dropped: 0,
    damagedTables: damagedTables(damaged),
  };
  // A row whose session is missing is kept for now: the session may be rebuilt from its steps.
  fresh.pragma('foreign_keys = OFF');
  try {
    fresh.transaction(() => {
      for (const table of TABLES) copyTable(damaged, fresh, table, report);
      report.rebuiltSessions = rebuildLostSessions(fresh, stepsTaken);
      report.dropped += dropOrphans(fresh);
    })();
  } finally {
    fresh.pragma('foreign_keys = ON');
  }
  const broken = fresh.pragma('foreign_key_check') as unknown[];
  if (broken.length > 0) throw new Error(`the repaired database still has ${broken.length} rows without their session`);
  return report;
}

/** How many of the check's problems are read to find the tables they are in. */
const CHECK_PROBLEMS = 200;

/**
 * The tables SQLite's check names damaged pages of ("Tree N page M ...": N is the table's or index's root
 * page). Problems of indexes do not count (the new database builds them again); one it ties to neither a
 * tree nor an index, or to a tree it cannot name, counts against every table.
 */
function damagedTables(damaged: Db): Table[] {
  try {
    // The quick check first: on some damage the integrity check fails outright where it reports.
    const problems = (check: 'quick_check' | 'integrity_check'): string[] =>
      (damaged.pragma(`${check}(${CHECK_PROBLEMS})`) as Array<Record<string, string>>)
        .flatMap((row) => String(row[check]).split('\n'))
        .filter((line) => line.trim() && line !== 'ok' && !line.startsWith('***'));
    const quick = problems('quick_check');
    const lines = quick.length > 0 ? quick : problems('integrity_check');
    const roots = new Map(
      (damaged.prepare(`SELECT rootpage, name FROM sqlite_schema WHERE type = 'table'`).all() as Array<{ rootpage: number; name: string }>).map(
        (row) => [row.rootpage, row.name],
      ),
    );
    const indexes = damaged.prepare(`SELECT rootpage, name FROM sqlite_schema WHERE type = 'index'`).all() as Array<{ rootpage: number; name: string }>;
    const indexRoots = new Set(indexes.map((index) => index.rootpage));
    const indexNames = new Set(indexes.map((index) => index.name));
    const found = new Set<Table>();
    for (const line of lines) {
      const tree = /\bTree (\d+)\b/.exec(line)?.[1];
      if (tree === undefined) {
        // "wrong # of entries in index X", "row N missing from index X": the index is built anew.
        const index = /\bindex (\S+)$/.exec(line)?.[1];
        if (index !== undefined && indexNames.has(index)) continue;
        return [...TABLES];
      }
      const root = Number(tree);
      if (indexRoots.has(root)) continue;
      const table = roots.get(root);
      if (table === undefined) return [...TABLES];
      if ((TABLES as readonly string[]).includes(table)) found.add(table as Table);
    }
    return TABLES.filter((table) => found.has(table));
  } catch {
    return [...TABLES];
  }
}

function copyTable(damaged: Db, fresh: Db, table: Table, report: SalvageReport): void {
  const columns = sharedColumns(damaged, fresh, table);
  if (!columns) {
    report.unreadable.push(table);
    return;
  }
  const insert = fresh.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`);
  let reader: RowReader;
  try {
    reader = new RowReader(damaged, table, columns);
  } catch {
    report.unreadable.push(table);
    return;
  }
  // A row kept must read back as the store reads it (with the new schema's defaults), or the session
  // it belongs to would not open; a session dropped so is rebuilt from its steps.
  const checked = table === 'sessions' || table === 'rounds' || table === 'steps' ? table : null;
  const stored = checked ? fresh.prepare(`SELECT * FROM ${table} WHERE rowid = ?`) : null;
  const remove = checked ? fresh.prepare(`DELETE FROM ${table} WHERE rowid = ?`) : null;
  for (const row of reader.rows()) {
    try {
      const { lastInsertRowid } = insert.run(row);
      if (checked && !readsBack(checked, stored?.get(lastInsertRowid) as Record<string, unknown>)) {
        remove?.run(lastInsertRowid);
        report.dropped++;
        continue;
      }
      report.copied[table]++;
    } catch {
      // A NOT NULL or CHECK the damaged row breaks, or a duplicate key: the row is not Deskhand's to keep.
      report.dropped++;
    }
  }
  if (reader.skipped) report.unreadable.push(table);
}

/** The columns both databases have for `table`; null when the damaged one's schema cannot be read. */
function sharedColumns(damaged: Db, fresh: Db, table: Table): string[] | null {
  const namesOf = (db: Db): string[] => (db.pragma(`table_info(${table})`) as Array<{ name: string }>).map((column) => column.name);
  try {
    const old = new Set(namesOf(damaged));
    const shared = namesOf(fresh).filter((name) => old.has(name));
    return shared.length > 0 ? shared : null;
  } catch {
    return null;
  }
}

/** Reads a table's rows in rowid order, stepping over damaged stretches. */
class RowReader {
  /** Whether a damaged stretch (or the whole table) could not be read. */
  skipped = false;
  private readonly read;
  private readonly firstFrom;

  constructor(db: Db, table: Table, columns: string[]) {
    const list = columns.join(', ');
    // `rowid >= after + 1`, not `rowid > after`: SQLite seeks to `after` first, on the damaged page if it is there.
    this.read = db.prepare(`SELECT rowid AS rowid_, ${list} FROM ${table} WHERE rowid >= ? ORDER BY rowid`).safeIntegers();
    this.firstFrom = db.prepare(`SELECT rowid FROM ${table} WHERE rowid >= ? ORDER BY rowid LIMIT 1`).pluck().safeIntegers();
  }

  /**
   * One read to the end of the table, and after a read that fails, another from past the damaged stretch.
   * Rowids are only used where a read failed: a damaged page's key out of order (a large one) elsewhere
   * does not end the table early, and a small one just before a damaged page does not send the reader
   * back (each read also starts past where the one before it started, so it cannot loop).
   */
  *rows(): Generator<Row> {
    let from = MIN_ROWID;
    for (;;) {
      // The rowids of the last two rows read: of a key out of order just before a damaged page, the larger.
      let last = from - 1n;
      let previous = last;
      let failed = false;
      const rows = this.read.iterate(from) as IterableIterator<Row>;
      try {
        for (;;) {
          let next: IteratorResult<Row>;
          try {
            next = rows.next();
          } catch {
            failed = true;
            break;
          }
          if (next.done) break;
          const { rowid_: rowid, ...values } = next.value;
          previous = last;
          last = rowid as bigint;
          yield normalised(values);
        }
      } finally {
        if (!failed) rows.return?.();
      }
      if (!failed) return;
      this.skipped = true;
      const after = this.resumeAfter(last > previous ? last : previous);
      if (after === null || after >= MAX_ROWID) return;
      from = after + 1n > from ? after + 1n : from + 1n;
    }
  }

  /**
   * A read of the rows after `after` failed. If a search still finds the next row, that row's own content
   * is damaged: reading goes on past it. Otherwise the search itself meets the damage: the probe goes
   * `after + 1, + 2, + 4, ...` (up to the largest rowid) until a search succeeds, then narrows back between
   * the last failed probe and it, and looks one by one through the rowids just before the point found
   * (a readable page between two damaged ones). Reading goes on just before the first row found. Null:
   * nothing further can be reached.
   */
  private resumeAfter(after: bigint): bigint | null {
    const next = this.searchFrom(after + 1n);
    if (next !== 'damaged') return next;
    let failedAt = after + 1n;
    let at = failedAt;
    let found: bigint | null | 'damaged' = 'damaged';
    for (let step = 2n; found === 'damaged'; step *= 2n) {
      // No search from there to the largest rowid succeeds.
      if (at === MAX_ROWID) return null;
      failedAt = at;
      at = after + step < MAX_ROWID ? after + step : MAX_ROWID;
      found = this.searchFrom(at);
    }
    let low = failedAt;
    let high = at;
    while (high - low > 1n) {
      const middle = low + (high - low) / 2n;
      const hit = this.searchFrom(middle);
      if (hit === 'damaged') low = middle;
      else {
        high = middle;
        found = hit;
      }
    }
    const scanFrom = high - SCAN_ROWIDS > after + 1n ? high - SCAN_ROWIDS : after + 2n;
    for (let point = scanFrom; point < high; point++) {
      const hit = this.searchFrom(point);
      if (hit !== 'damaged' && hit !== null) {
        found = hit;
        break;
      }
    }
    return found === null ? null : found - 1n;
  }

  /** The first rowid from `from` on; null when there is none; 'damaged' when the search fails. */
  private searchFrom(from: bigint): bigint | null | 'damaged' {
    if (from > MAX_ROWID) return null;
    try {
      const rowid = this.firstFrom.get(from) as bigint | undefined;
      return rowid ?? null;
    } catch {
      return 'damaged';
    }
  }
}

/** Integers come back as bigint (safeIntegers, for rowids); the stores write and read numbers. */
function normalised(row: Row): Row {
  for (const [key, value] of Object.entries(row)) {
    if (typeof value === 'bigint') row[key] = Number(value);
  }
  return row;
}

/** What a rebuilt session says of its first request when none of its rounds could be read. */
export const LOST_REQUEST = '(the request was lost when the database was repaired)';

interface LostSession {
  id: string;
  request: string | null;
  status: string | null;
  result: string | null;
  round_start: number | null;
  step_start: number | null;
  round_end: number | null;
  step_end: number | null;
  next_step: number | null;
  steps_named: number;
  next_round: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost: number | null;
}

/**
 * Sessions referred to by rounds or steps but with no row of their own get one back, from what those
 * rows say: the first request, the last round's status and result, the usage summed over the steps. Its
 * step and round counts continue after the highest index read, so the next step or round never takes an
 * index that is in use. Steps lost with the session's row may have had higher indexes: the step count
 * also continues after those its blackboard and audit rows name, and its screenshots (`stepsTaken`).
 */
function rebuildLostSessions(fresh: Db, stepsTaken: (sessionId: string) => number): number {
  const lost = fresh
    .prepare(
      `WITH ids AS (
         SELECT session_id AS id FROM rounds UNION SELECT session_id FROM steps
       ), missing AS (
         SELECT id FROM ids WHERE id NOT IN (SELECT id FROM sessions)
       )
       SELECT m.id,
         (SELECT request FROM rounds WHERE session_id = m.id ORDER BY idx LIMIT 1) AS request,
         (SELECT status FROM rounds WHERE session_id = m.id ORDER BY idx DESC LIMIT 1) AS status,
         (SELECT result FROM rounds WHERE session_id = m.id ORDER BY idx DESC LIMIT 1) AS result,
         (SELECT MIN(started_at) FROM rounds WHERE session_id = m.id) AS round_start,
         (SELECT MIN(started_at) FROM steps WHERE session_id = m.id) AS step_start,
         (SELECT MAX(COALESCE(ended_at, started_at)) FROM rounds WHERE session_id = m.id) AS round_end,
         (SELECT MAX(started_at) FROM steps WHERE session_id = m.id) AS step_end,
         (SELECT MAX(idx) + 1 FROM steps WHERE session_id = m.id) AS next_step,
         MAX(COALESCE((SELECT MAX(step_idx) + 1 FROM blackboard_items WHERE session_id = m.id), 0),
             COALESCE((SELECT MAX(step_idx) + 1 FROM audit WHERE session_id = m.id), 0)) AS steps_named,
         -- Several arguments: MAX is NULL when one of them is, hence the COALESCEs.
         MAX(COALESCE((SELECT MAX(idx) + 1 FROM rounds WHERE session_id = m.id), 0),
             COALESCE((SELECT MAX(round) + 1 FROM steps WHERE session_id = m.id), 0)) AS next_round,
         (SELECT COALESCE(SUM(prompt_tokens), 0) FROM steps WHERE session_id = m.id) AS prompt_tokens,
         (SELECT COALESCE(SUM(completion_tokens), 0) FROM steps WHERE session_id = m.id) AS completion_tokens,
         (SELECT SUM(cost_usd) FROM steps WHERE session_id = m.id) AS cost
       FROM missing m`,
    )
    .all() as LostSession[];
  const insert = fresh.prepare(
    `INSERT INTO sessions (id, title, request, mode, status, result, created_at, updated_at, step_count, round_count,
       prompt_tokens, completion_tokens, cost_usd)
     VALUES (@id, @title, @request, @mode, @status, @result, @created, @updated, @steps, @rounds, @prompt, @completion, @cost)`,
  );
  const modeOf = fresh.prepare(`SELECT COUNT(*) FROM steps WHERE session_id = ? AND agent <> 'ShellAgent'`).pluck();
  for (const session of lost) {
    const request = session.request ?? LOST_REQUEST;
    // Only the ShellAgent's steps: a shell session; anything else had the HostAgent (desktop).
    const onlyShell = session.next_step !== null && (modeOf.get(session.id) as number) === 0;
    const times = (...values: Array<number | null>): number[] => values.filter((value): value is number => value !== null);
    const starts = times(session.round_start, session.step_start);
    const ends = times(session.round_end, session.step_end);
    const created = starts.length ? Math.min(...starts) : Date.now();
    insert.run({
      id: session.id,
      title: titleFrom(request),
      request,
      mode: onlyShell ? 'shell' : 'desktop',
      // Left as it was; start-up recovery then marks an unfinished one interrupted (resumable).
      status: session.status ?? 'interrupted',
      result: session.result,
      created,
      updated: ends.length ? Math.max(...ends) : created,
      steps: Math.max(session.next_step ?? 0, session.steps_named, stepsTaken(session.id)),
      rounds: session.next_round,
      prompt: session.prompt_tokens,
      completion: session.completion_tokens,
      cost: session.cost,
    });
  }
  return lost.length;
}

/** Rows of sessions that are gone for good; audit rows lose their session instead. Returns how many went. */
function dropOrphans(fresh: Db): number {
  let dropped = 0;
  for (const table of ['rounds', 'steps', 'blackboard_items', 'interactions', 'forms'] as const) {
    dropped += fresh.prepare(`DELETE FROM ${table} WHERE session_id NOT IN (SELECT id FROM sessions)`).run().changes;
  }
  fresh.prepare('UPDATE audit SET session_id = NULL WHERE session_id IS NOT NULL AND session_id NOT IN (SELECT id FROM sessions)').run();
  return dropped;
}
