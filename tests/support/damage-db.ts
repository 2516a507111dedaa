import { closeSync, openSync, readSync, writeSync } from 'node:fs';
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

export interface LeafRows {
  pageno: number;
  /** The rowids of the rows on the page, in order. */
  rowids: number[];
}

/** A healthy table's leaf pages in the order of their keys, with the rowids each holds. */
export function leavesOf(db: Database.Database, table: string): LeafRows[] {
  db.pragma('wal_checkpoint(TRUNCATE)');
  const leaves = db
    .prepare("SELECT pageno, ncell FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY path")
    .all(table) as Array<{ pageno: number; ncell: number }>;
  const rowids = db.prepare(`SELECT rowid FROM ${table} ORDER BY rowid`).pluck().all() as number[];
  let at = 0;
  return leaves.map(({ pageno, ncell }) => {
    const rows = { pageno, rowids: rowids.slice(at, at + ncell) };
    at += ncell;
    return rows;
  });
}

/**
 * Rewrites the key of the row with rowid `from` on table leaf `pageno` to `to`, in as many bytes as the
 * old key took (a flipped bit in a key: the page still reads, its keys are out of order).
 */
export function rewriteRowid(file: string, pageno: number, from: number, to: number, pageSize = 4096): void {
  const page = Buffer.alloc(pageSize);
  const fd = openSync(file, 'r+');
  try {
    readSync(fd, page, 0, pageSize, (pageno - 1) * pageSize);
    const varint = (at: number): { value: number; length: number } => {
      let value = 0;
      let length = 0;
      while (length < 8) {
        const byte = page[at + length++] as number;
        value = value * 128 + (byte & 0x7f);
        if (!(byte & 0x80)) break;
      }
      return { value, length };
    };
    const cells = page.readUInt16BE(3);
    for (let cell = 0; cell < cells; cell++) {
      const start = page.readUInt16BE(8 + 2 * cell);
      const at = start + varint(start).length;
      const key = varint(at);
      if (key.value !== from) continue;
      if (to >= 2 ** (7 * key.length)) throw new Error(`${to} does not fit in ${key.length} bytes`);
      for (let i = key.length - 1, rest = to; i >= 0; i--, rest = Math.floor(rest / 128)) {
        page[at + i] = (rest % 128) | (i < key.length - 1 ? 0x80 : 0);
      }
      writeSync(fd, page, 0, pageSize, (pageno - 1) * pageSize);
      return;
    }
    throw new Error(`no row ${from} on page ${pageno}`);
  } finally {
    closeSync(fd);
  }
}
