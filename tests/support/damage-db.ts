import { closeSync, openSync, writeSync } from 'node:fs';
import type Database from 'better-sqlite3';

export interface StoredPage {
  pageno: number;
  pagetype: 'leaf' | 'internal' | 'overflow';
  /** Rows (cells) on the page. */
  ncell: number;
}

/** The pages holding a table or index, from SQLite's dbstat (with everything checkpointed into the file). */
export function pagesOf(db: Database.Database, name: string): StoredPage[] {
  db.pragma('wal_checkpoint(TRUNCATE)');
  return db.prepare('SELECT pageno, pagetype, ncell FROM dbstat WHERE name = ? ORDER BY pageno').all(name) as StoredPage[];
}

/** Overwrites the start of a page (its header and cell pointers) as a failing disk might: SQLite can no longer read it. */
export function damagePage(file: string, pageno: number, pageSize = 4096): void {
  const fd = openSync(file, 'r+');
  try {
    // Page 1 starts with the 100-byte file header; the page's own header follows it.
    const start = (pageno - 1) * pageSize + (pageno === 1 ? 100 : 0);
    writeSync(fd, Buffer.alloc(64, 0xab), 0, 64, start);
  } finally {
    closeSync(fd);
  }
}
