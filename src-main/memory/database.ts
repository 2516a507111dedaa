import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations';

export type Db = Database.Database;

/**
 * What every store runs its text through before writing it: secrets (the API key a user pasted into a
 * request or an answer, one a command printed) never reach the database, whoever does the writing.
 */
export type Scrub = <T>(value: T) => T;

export const keepAsIs: Scrub = (value) => value;

/** SQLite's integrity check found damage: the file's pages, or its tables and their indexes, no longer agree. */
export class DatabaseDamagedError extends Error {
  override name = 'DatabaseDamagedError';
}

/** Whether `error` (or an error it wraps) says the database file is damaged, not busy, full or read-only. */
export function isDatabaseDamage(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    if (cause instanceof DatabaseDamagedError) return true;
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB')) return true;
  }
  return false;
}

/** What the user is told when the database turns out damaged while Deskhand runs. */
export function damagedDatabaseMessage(error: unknown): string {
  return (
    `Deskhand's database is damaged (${error instanceof Error ? error.message : String(error)}). ` +
    'Restart Deskhand: it sets the damaged file aside and keeps what can still be read of it.'
  );
}

/**
 * Opens (or creates) the Deskhand database: WAL so readers never block the step writer, foreign keys
 * on, SQLite's integrity check (about 45 ms for 50 megabytes) so damage shows at start-up
 * and not in the middle of a run, and every pending migration applied in its own transaction.
 */
export function openDatabase(file: string, options: { nativeBinding?: string } = {}): Db {
  let db: Db | null = null;
  try {
    // The Electron shell passes better-sqlite3 built for Electron's ABI; Node uses the installed one.
    const binding = options.nativeBinding ? { nativeBinding: options.nativeBinding } : {};
    // Checked before it is opened for writing: a read-write connection, closing, copies the write-ahead
    // log into the file and deletes it, and a damaged file is set aside as it was.
    if (existsSync(file)) checkReadOnly(file, binding);
    db = new Database(file, binding);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db);
    return db;
  } catch (error) {
    db?.close();
    // SQLite's own words ("file is not a database", "database is locked") do not say which file.
    throw new Error(`cannot open the Deskhand database ${file}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * The integrity check on a read-only connection, which never writes the file or its write-ahead log. Only
 * damage is thrown: anything else (a lock) the read-write connection meets and reports itself.
 */
function checkReadOnly(file: string, binding: { nativeBinding?: string }): void {
  let db: Db;
  try {
    db = new Database(file, { ...binding, readonly: true, fileMustExist: true });
  } catch (error) {
    if (isDatabaseDamage(error)) throw error;
    return;
  }
  try {
    db.pragma('busy_timeout = 5000');
    checkPages(db);
  } catch (error) {
    if (isDatabaseDamage(error)) throw error;
  } finally {
    db.close();
  }
}

/**
 * Throws DatabaseDamagedError naming the first problem SQLite's integrity check finds. Not the quick
 * check: it misses a table and its index that disagree, which then fails queries while Deskhand runs.
 */
function checkPages(db: Db): void {
  const rows = (db.pragma('integrity_check(3)') as Array<{ integrity_check: string }>).map((row) => row.integrity_check);
  if (rows.length === 1 && rows[0] === 'ok') return;
  // A row may hold several lines, the first only naming the database ("*** in database main ***").
  const problem = rows.flatMap((row) => row.split('\n')).find((line) => line.trim() && !line.startsWith('***'));
  throw new DatabaseDamagedError(`SQLite's integrity check found: ${problem ?? 'no detail'}`);
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

export function migrate(db: Db): void {
  const current = schemaVersion(db);
  if (current > MIGRATIONS.length) {
    throw new Error(
      `the database is at schema version ${current}, newer than this Deskhand (${MIGRATIONS.length}); update Deskhand`,
    );
  }
  for (let version = current + 1; version <= MIGRATIONS.length; version++) {
    const sql = MIGRATIONS[version - 1];
    db.transaction(() => {
      db.exec(sql as string);
      db.pragma(`user_version = ${version}`);
    })();
  }
}
