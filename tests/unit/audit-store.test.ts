import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  auditDecision,
  AuditStore,
  isSecretKey,
  MAX_AUDIT_TEXT,
  redactSecrets,
  UNFINISHED_AT_CRASH,
  type AuditEntry,
} from '../../src-main/commands/audit-store';
import { redactText } from '../../src-main/common/scrub';
import Database from 'better-sqlite3';
import { openDatabase, type Db } from '../../src-main/memory/database';
import { MIGRATIONS } from '../../src-main/memory/migrations';

let dir: string;
let db: Db;
let store: AuditStore;

function addSession(id: string): void {
  db.prepare(
    `INSERT INTO sessions (id, title, request, mode, status, created_at, updated_at) VALUES (?, 't', 'r', 'desktop', 'running', 0, 0)`,
  ).run(id);
}

function entry(overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    callId: 'call-1',
    sessionId: 's1',
    stepIdx: 3,
    agent: 'AppAgent',
    tool: 'click',
    toolType: 'action',
    args: { x: 10, y: 20 },
    decision: 'allowed',
    approvedBy: 'policy',
    reasons: [],
    status: 'success',
    result: 'clicked left at (10, 20)',
    error: null,
    requestedAt: 1_700_000_000_123,
    durationMs: 12.5,
    ...overrides,
  };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'deskhand-audit-'));
  db = openDatabase(join(dir, 'deskhand.db'));
  store = new AuditStore(db);
  addSession('s1');
  addSession('s2');
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('AuditStore', () => {
  it('keeps the completion of a command that ran when the disk is full, shows it, and writes it once there is room', () => {
    const { callId: _callId, status: _status, result: _result, error: _error, durationMs: _durationMs, ...begun } = entry();
    const id = store.begin({ ...begun, callId: 'ran' });
    const pages = db.pragma('page_count', { simple: true }) as number;
    // SQLite's own "database or disk is full": no page may be added, and the result needs overflow pages.
    db.pragma(`max_page_count = ${pages}`);
    const outcome = { status: 'success' as const, result: 'r'.repeat(12_000), error: null, durationMs: 40 };
    expect(() => store.finish(id, outcome)).not.toThrow();
    expect(db.prepare('SELECT status FROM audit WHERE id = ?').get(id)).toEqual({ status: 'running' });
    expect(store.list('s1')).toMatchObject([{ id, callId: 'ran', status: 'success', result: outcome.result, durationMs: 40 }]);

    // The next entry writes it first; while the disk is still full, both fail and it is still kept.
    expect(() => store.record(entry({ callId: 'next' }))).toThrow(expect.objectContaining({ code: 'SQLITE_FULL' }));
    expect(store.list('s1').map((row) => [row.callId, row.status])).toEqual([['ran', 'success']]);

    db.pragma('max_page_count = 1073741823');
    store.record(entry({ callId: 'next' }));
    expect(db.prepare('SELECT call_id, status, length(result) AS kept FROM audit ORDER BY id').all()).toEqual([
      { call_id: 'ran', status: 'success', kept: 12_000 },
      { call_id: 'next', status: 'success', kept: 'clicked left at (10, 20)'.length },
    ]);
  });

  it('still throws what is not a full disk when completing a row', () => {
    db.exec("CREATE TRIGGER refuse BEFORE UPDATE ON audit BEGIN SELECT RAISE(ABORT, 'refused'); END");
    const { callId: _callId, status: _status, result: _result, error: _error, durationMs: _durationMs, ...begun } = entry();
    const id = store.begin({ ...begun, callId: 'ran' });
    expect(() => store.finish(id, { status: 'success', result: 'done', error: null, durationMs: 1 })).toThrow('refused');
  });

  it('records an entry and lists it back with every field', () => {
    const id = store.record(entry());
    expect(id).toBeGreaterThan(0);
    expect(store.list('s1')).toEqual([
      {
        id,
        callId: 'call-1',
        sessionId: 's1',
        stepIdx: 3,
        agent: 'AppAgent',
        tool: 'click',
        toolType: 'action',
        server: 'device',
        args: { x: 10, y: 20 },
        decision: 'allowed',
        approvedBy: 'policy',
        reasons: [],
        status: 'success',
        result: 'clicked left at (10, 20)',
        error: null,
        requestedAt: 1_700_000_000_123,
        durationMs: 12.5,
      },
    ]);
  });

  it('keeps approvals and rejections apart, in order, per session', () => {
    store.record(entry({ callId: 'a', decision: 'approved', approvedBy: 'user', reasons: ['rule: shell command'], tool: 'execute_command', args: { command: 'ls' } }));
    store.record(entry({ callId: 'b', decision: 'rejected', approvedBy: null, reasons: ["rule: control text 'Delete'"], status: 'skipped', result: null }));
    store.record(entry({ callId: 'c', sessionId: 's2' }));
    store.record(entry({ callId: 'd', decision: 'denied', approvedBy: null, reasons: ["denied: matches 'rm -rf /'"], status: 'skipped' }));
    const s1 = store.list('s1');
    expect(s1.map((r) => [r.callId, r.decision, r.approvedBy, r.status])).toEqual([
      ['a', 'approved', 'user', 'success'],
      ['b', 'rejected', null, 'skipped'],
      ['d', 'denied', null, 'skipped'],
    ]);
    expect(s1[1]?.reasons).toEqual(["rule: control text 'Delete'"]);
    expect(store.list('s2').map((r) => r.callId)).toEqual(['c']);
    expect(store.list('s1', { afterId: s1[0]?.id, limit: 1 }).map((r) => r.callId)).toEqual(['b']);
    expect(store.list('nobody')).toEqual([]);
  });

  it('records external servers and commands outside a session', () => {
    store.record(entry({ sessionId: null, tool: 'files.read', server: 'files', toolType: 'data_collection' }));
    const row = db.prepare('SELECT server, session_id, tool_type FROM audit').get();
    expect(row).toEqual({ server: 'files', session_id: null, tool_type: 'data_collection' });
  });

  it('stores arguments with secrets redacted', () => {
    store.record(
      entry({
        tool: 'api.call',
        args: {
          url: 'https://x',
          api_key: 'sk-abcdefghijklmnopqrstuvwxyz',
          headers: { Authorization: 'Bearer abc.def.ghi.jkl', accept: 'json' },
          nested: [{ password: 'hunter2' }, { clientSecret: 's3' }],
          keys: ['ctrl', 's'],
          command: 'curl -H "Authorization: Bearer abcdefghijkl" https://x?token=abc123 && OPENAI_API_KEY=sk-zzzzzzzzzzzzzzzzzzzz run',
        },
      }),
    );
    const raw = (db.prepare('SELECT args_json FROM audit').get() as { args_json: string }).args_json;
    for (const secret of ['sk-abcdef', 'abc.def.ghi', 'hunter2', '"s3"', 'abcdefghijkl', 'abc123', 'sk-zzzz']) {
      expect(raw, secret).not.toContain(secret);
    }
    const args = store.list('s1')[0]?.args as Record<string, unknown>;
    expect(args.api_key).toBe('[redacted]');
    expect(args.headers).toEqual({ Authorization: '[redacted]', accept: 'json' });
    expect(args.nested).toEqual([{ password: '[redacted]' }, { clientSecret: '[redacted]' }]);
    expect(args.keys).toEqual(['ctrl', 's']);
    expect(args.url).toBe('https://x');
    expect(args.command).toBe(
      'curl -H "Authorization: Bearer [redacted]" https://x?token=[redacted] && OPENAI_API_KEY=[redacted] run',
    );
  });

  it('masks secrets in results and errors and caps their size', () => {
    store.record(entry({ result: `token=${'x'.repeat(10)} ${'y'.repeat(MAX_AUDIT_TEXT + 100)}`, error: 'auth failed: Bearer abcdefghijk' }));
    const row = store.list('s1')[0];
    expect(row?.result?.startsWith('token=[redacted] ')).toBe(true);
    expect(row?.result).toMatch(/characters not kept\]$/);
    expect(row?.result?.length).toBeLessThan(MAX_AUDIT_TEXT + 100);
    expect(row?.error).toBe('auth failed: Bearer [redacted]');
  });

  it('refuses decisions and statuses the schema does not know', () => {
    expect(() => store.record(entry({ decision: 'maybe' as never }))).toThrow(/CHECK/);
    expect(() => store.record(entry({ status: 'done' as never }))).toThrow(/CHECK/);
  });
});

describe('redaction helpers', () => {
  it('knows which argument names hold secrets', () => {
    for (const name of ['key', 'api_key', 'apiKey', 'API-KEY', 'token', 'accessToken', 'refresh_token', 'secret', 'clientSecret', 'password', 'db.password', 'passwd', 'Authorization', 'X-Auth', 'cookie', 'privateKey', 'apikey']) {
      expect(isSecretKey(name), name).toBe(true);
    }
    for (const name of ['keys', 'monkey', 'author', 'text', 'x', 'command', 'keyboard', 'tokens_used']) {
      expect(isSecretKey(name), name).toBe(false);
    }
  });

  it('leaves non-secret values alone and copies deeply', () => {
    const input = { a: [1, { b: 'c' }], n: null, t: true };
    const out = redactSecrets(input);
    expect(out).toEqual(input);
    expect(out).not.toBe(input);
    expect(redactSecrets({ token: '' })).toEqual({ token: '' });
  });

  it('masks inline secrets in text', () => {
    expect(redactText('use ghp_abcdefghijklmnopqrstuvwxyz0123 now')).toBe('use [redacted] now');
    expect(redactText('password: "hunter 2" ok')).toBe('password: [redacted] ok');
    expect(redactText('nothing here')).toBe('nothing here');
  });

  it('maps verdicts and answers to audit decisions', () => {
    expect(auditDecision('allow')).toBe('allowed');
    expect(auditDecision('deny', true)).toBe('denied');
    expect(auditDecision('confirm', true)).toBe('approved');
    expect(auditDecision('confirm', false)).toBe('rejected');
  });
});

describe('AuditStore: a row before the command runs', () => {
  it('begin writes it as running, finish completes it, and a start-up after a crash marks what is left unknown', () => {
    const done = store.begin(entry({ callId: 'done', args: { command: 'ls', token: 'abc' } }));
    const cut = store.begin(entry({ callId: 'cut' }));
    expect(store.list('s1').map((row) => row.status)).toEqual(['running', 'running']);
    store.finish(done, { status: 'success', result: 'a b', error: null, durationMs: 7 });
    // Finishing twice (or a row recovery already settled) changes nothing.
    store.finish(done, { status: 'failure', result: null, error: 'late', durationMs: 9 });
    expect(store.markUnfinishedUnknown()).toBe(1);
    expect(store.list('s1')).toMatchObject([
      { id: done, callId: 'done', status: 'success', result: 'a b', error: null, durationMs: 7, args: { command: 'ls', token: '[redacted]' } },
      { id: cut, callId: 'cut', status: 'unknown', error: UNFINISHED_AT_CRASH },
    ]);
    store.finish(cut, { status: 'success', result: 'too late', error: null, durationMs: 1 });
    expect(store.list('s1')[1]).toMatchObject({ status: 'unknown' });
  });

  it('a database from before this keeps its audit rows when migrated', () => {
    const file = join(dir, 'old.db');
    const old = new Database(file);
    for (const [index, migration] of MIGRATIONS.slice(0, 2).entries()) {
      old.exec(migration);
      old.pragma(`user_version = ${index + 1}`);
    }
    old.prepare(`INSERT INTO sessions (id, title, request, mode, status, created_at, updated_at) VALUES ('s1', 't', 'r', 'desktop', 'finished', 0, 0)`).run();
    new AuditStore(old).record(entry());
    expect(() => new AuditStore(old).begin(entry())).toThrow(/CHECK/);
    old.close();

    const migrated = openDatabase(file);
    const audit = new AuditStore(migrated);
    expect(audit.list('s1')).toMatchObject([{ callId: 'call-1', status: 'success', args: { x: 10, y: 20 } }]);
    expect(audit.begin(entry({ callId: 'new' }))).toBeGreaterThan(1);
    migrated.close();
  });
});
