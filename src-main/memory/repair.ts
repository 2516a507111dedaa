import Database from 'better-sqlite3';
import { z } from 'zod';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { writeJsonAtomic } from '../common/json-file';
import { logError } from '../common/log';
import { cutWithEllipsis } from '../common/text-head';
import { DAMAGED_TEXT_CHARS, type DatabaseRepairView } from '../protocol';
import { isDatabaseDamage, openDatabase, type Db } from './database';
import { SalvageReport, salvageInto } from './salvage';
import type { SessionStore } from './session-store';

/** What start-up did with a damaged database (also the note of a repair whose file moves are under way). */
const DatabaseRepair = z.object({
  /** Where the damaged file now is, kept as it was (with its -wal and -shm files). */
  damagedFile: z.string().min(1),
  /** What SQLite said of it. */
  reason: z.string(),
  /** What was copied into the new database; null when nothing of the damaged file could be read. */
  salvaged: SalvageReport.nullable(),
});
export type DatabaseRepair = z.infer<typeof DatabaseRepair>;

export interface OpenedDatabase {
  db: Db;
  /** Set when the database was damaged and start-up replaced it. */
  repair: DatabaseRepair | null;
}

/** A damaged database's file and its companions, as SQLite names them. */
const COMPANIONS = ['-wal', '-shm'] as const;

/** Beside the database: the repaired one while it is built, then once it is whole; the moves under way. */
const BUILDING = '.repairing';
const REPAIRED = '.repaired';
const MOVING = '.repair-moving';

export interface RepairOptions {
  nativeBinding?: string;
  /** How many step indexes a session's files (its screenshots) show taken: a rebuilt session continues after them. */
  stepsTaken?: (sessionId: string) => number;
}

/**
 * Opens the database; if it is damaged (SQLite finds broken pages, or the file is no database), copies
 * what can be read into a new one, sets the damaged file aside beside it and puts the new one in its
 * place. Nothing is deleted: the damaged file stays for a closer look (SQLite's own `.recover`). The new
 * database is built under another name first, so a repair that fails (a full disk) changes nothing and
 * is tried again at the next start. The files are moved only once the new database is whole, and the
 * moves are written down first: a start after a repair cut off while moving (a crash, a power cut)
 * finishes them before it opens anything. Any other failure (a lock, a newer schema) is thrown as it was.
 */
export function openRepairing(file: string, options: RepairOptions = {}, now = new Date()): OpenedDatabase {
  const finished = finishMoves(file);
  try {
    return { db: openDatabase(file, options), repair: finished };
  } catch (error) {
    if (!isDatabaseDamage(error)) throw error;
    const reason = rootMessage(error);
    const building = file + BUILDING;
    let salvaged: SalvageReport | null;
    try {
      // Left by a repair that failed or was cut off before the moves.
      for (const path of [building, ...COMPANIONS.map((suffix) => building + suffix), file + REPAIRED]) rmSync(path, { force: true });
      salvaged = buildRepaired(file, building, options);
      renameSync(building, file + REPAIRED);
    } catch (failure) {
      throw new Error(`the Deskhand database ${file} is damaged (${reason}), and repairing it failed: ${(failure as Error).message}`, {
        cause: failure,
      });
    }
    const repair: DatabaseRepair = { damagedFile: asideName(file, now), reason, salvaged };
    writeJsonAtomic(file + MOVING, repair);
    moveIntoPlace(file, repair.damagedFile);
    rmSync(file + MOVING, { force: true });
    return { db: openDatabase(file, options), repair };
  }
}

/** Sets the damaged file aside with its companions, and puts the whole repaired one in its place. */
function moveIntoPlace(file: string, damagedFile: string): void {
  // The write-ahead log first: a main file moved without it would lose its last transactions.
  for (const suffix of COMPANIONS) if (existsSync(file + suffix)) renameSync(file + suffix, damagedFile + suffix);
  if (existsSync(file)) renameSync(file, damagedFile);
  renameSync(file + REPAIRED, file);
}

/**
 * Finishes the moves of a repair that was cut off while making them (its note is still there): the
 * repaired database, whole, is still beside the damaged file, or already in place. Returns that repair.
 */
function finishMoves(file: string): DatabaseRepair | null {
  let text: string;
  try {
    text = readFileSync(file + MOVING, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const note = parseNote(text);
  // It names a file beside the database, as a repair does, and never the database itself.
  if (!note || !basename(note.damagedFile).startsWith(`${basename(file)}.damaged-`)) {
    // Written whole or not at all (renamed into place), so not Deskhand's: no moves are known.
    logError(`[deskhand] ${file + MOVING} is not the note of a repair; it was removed, and nothing moved`);
    rmSync(file + MOVING, { force: true });
    return null;
  }
  // Beside the database wherever its folder is now (it may have been moved since).
  const repair = { ...note, damagedFile: join(dirname(file), basename(note.damagedFile)) };
  if (existsSync(file + REPAIRED)) moveIntoPlace(file, repair.damagedFile);
  rmSync(file + MOVING, { force: true });
  return repair;
}

function parseNote(text: string): DatabaseRepair | null {
  try {
    const parsed = DatabaseRepair.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Builds the repaired database at `building`; returns what was salvaged (null: nothing could be read). */
function buildRepaired(file: string, building: string, options: RepairOptions): SalvageReport | null {
  const fresh = openDatabase(building, options);
  try {
    let salvaged: SalvageReport | null = null;
    let damaged: Db | null = null;
    try {
      // Read-only: closing it must not checkpoint into the damaged file, which is kept as it was.
      damaged = new Database(file, { readonly: true, fileMustExist: true, ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}) });
    } catch {
      // It cannot even be opened: the new database starts empty.
    }
    if (damaged) {
      try {
        salvaged = salvageInto(damaged, fresh, options.stepsTaken);
      } finally {
        damaged.close();
      }
    }
    // One file to move into place, with no write-ahead log beside it.
    fresh.pragma('journal_mode = DELETE');
    return salvaged;
  } finally {
    fresh.close();
  }
}

/** `deskhand.sqlite.damaged-2026-11-22T09-30-00Z`, or with `-2`, `-3` when that is taken. */
function asideName(file: string, now: Date): string {
  const stamp = now.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
  for (let n = 1; ; n++) {
    const name = `${file}.damaged-${stamp}${n > 1 ? `-${n}` : ''}`;
    if (![name, ...COMPANIONS.map((suffix) => name + suffix)].some((path) => existsSync(path))) return name;
  }
}

/** Whether a damaged database was set aside in the data folder (its sessions' screenshots are kept then). */
export function hasDamagedCopies(file: string): boolean {
  const prefix = `${basename(file)}.damaged-`;
  try {
    return readdirSync(dirname(file)).some((name) => name.startsWith(prefix));
  } catch {
    return false;
  }
}

/** The innermost message: SQLite's words, without the wrappers that name the file. */
function rootMessage(error: unknown): string {
  let cause = error;
  while (cause instanceof Error && cause.cause instanceof Error) cause = cause.cause;
  return cause instanceof Error ? cause.message : String(cause);
}

/** The repair as the sessions list shows it: what the new database holds now, and whether parts were lost. */
export function repairView(repair: DatabaseRepair, store: SessionStore): DatabaseRepairView {
  const { sessions, steps } = store.counts();
  const salvaged = repair.salvaged;
  return {
    damagedFile: repair.damagedFile,
    reason: cutWithEllipsis(repair.reason, DAMAGED_TEXT_CHARS),
    sessions,
    steps,
    rebuiltSessions: salvaged?.rebuiltSessions ?? 0,
    partsLost: !salvaged || salvaged.unreadable.length > 0 || salvaged.dropped > 0 || salvaged.damagedTables.length > 0,
  };
}
