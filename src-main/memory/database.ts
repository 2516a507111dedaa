import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations';

export type Db = Database.Database;

/**
 * What every store runs its text through before writing it: secrets (the API key a user pasted into a
 * request or an answer, one a command printed) never reach the database, whoever does the writing.
 */
export type Scrub = <T>(value: T) => T;

export const keepAsIs: Scrub = (value) => value;

/**
 * Opens (or creates) the Deskhand database: WAL so readers never block the step writer, foreign keys
 * on, and every pending migration applied in its own transaction.
 */
export function openDatabase(file: string, options: { nativeBinding?: string } = {}): Db {
  let db: Db | null = null;
  try {
    // The Electron shell passes better-sqlite3 built for Electron's ABI; Node uses the installed one.
    db = new Database(file, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
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
