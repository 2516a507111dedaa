import type { Database } from 'better-sqlite3';
import type { SafetyDecision } from './safety-policy';
import { isDiskFull } from '../common/storage-errors';
import { logError } from '../common/log';
import { REDACTED_SECRET, redactText } from '../common/scrub';

/**
 * The audit trail: every command sent to the device client or an
 * external MCP server, with its arguments, the policy's decision and who approved it, the result and
 * timings, in the `audit` table (schema migrations 2 and 3). One row per command: written as 'running'
 * before it runs and completed after, so a crash in between leaves it (marked 'unknown' at the next
 * start); written once for a command rejected, denied or skipped.
 *
 * Secrets never reach the table: argument keys named like a secret (key, api_key, token, secret,
 * password, credential, cookie, authorization, ...; not "keys", the hotkey argument) are stored as
 * "[redacted]", and strings anywhere (arguments, result, error) have inline secrets masked
 * (`Bearer ...`, `sk-...` keys, `password=...`). Results and errors are kept up to 16 KiB each.
 */

/** How the command came to run (or not): the policy allowed it, the user approved or rejected it, or
 * the deny list stopped it. */
export type AuditDecision = 'allowed' | 'approved' | 'rejected' | 'denied';
/** 'running': written before the command ran and not completed yet; 'unknown': Deskhand stopped while it ran. */
export type AuditStatus = 'success' | 'failure' | 'skipped' | 'running' | 'unknown';

/** What a command came to, written to its 'running' row once it is done. */
export interface AuditOutcome {
  status: Exclude<AuditStatus, 'running' | 'unknown'>;
  result: string | null;
  error: string | null;
  durationMs: number;
}

/** What a command that was running when Deskhand stopped is completed with at the next start. */
export const UNFINISHED_AT_CRASH = 'Deskhand stopped (closed or crashed) while this ran: it may or may not have finished';

export interface AuditEntry {
  /** The Command's callId. */
  callId: string;
  /** null for commands outside a session (e.g. a health check). */
  sessionId: string | null;
  stepIdx?: number | null;
  /** Agent that asked, e.g. "AppAgent/mousepad" or "ShellAgent". */
  agent: string;
  /** Tool name as dispatched: "click", or "<server>.<tool>" for external servers. */
  tool: string;
  toolType: 'data_collection' | 'action';
  /** "device" (default) or the external server's name. */
  server?: string;
  args: Record<string, unknown>;
  decision: AuditDecision;
  /** Who approved: "user", "cli", "policy" (allowed without asking); null for rejected or denied. */
  approvedBy?: string | null;
  /** The policy's reasons (SafetyVerdict.reasons). */
  reasons?: readonly string[];
  status: AuditStatus;
  result?: string | null;
  error?: string | null;
  /** When the command was requested, ms since the epoch. */
  requestedAt: number;
  durationMs?: number;
}

export interface AuditRecord extends Required<Omit<AuditEntry, 'reasons'>> {
  id: number;
  reasons: string[];
}

export const REDACTED = REDACTED_SECRET;
/** Longest result or error text kept per row. */
export const MAX_AUDIT_TEXT = 16 * 1024;

const SECRET_WORDS = new Set([
  'key',
  'token',
  'secret',
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'credential',
  'credentials',
  'cookie',
  'authorization',
  'auth',
  'bearer',
  'apikey',
  'privatekey',
]);

/**
 * Whether an argument name says its value is a secret: any of its words (split at _, -, . and camel
 * case) is one of SECRET_WORDS. "apiKey", "access_token", "clientSecret", "X-Auth" are; "keys",
 * "monkey", "author" are not.
 */
export function isSecretKey(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  return words.some((word) => SECRET_WORDS.has(word)) || SECRET_WORDS.has(words.join(''));
}

/** A deep copy of `value` with secret-named keys replaced by "[redacted]" and inline secrets masked. */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 20) return REDACTED;
  if (typeof value === 'string') return redactText(value);
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = isSecretKey(key) && item !== null && item !== undefined && item !== '' ? REDACTED : redactSecrets(item, depth + 1);
    }
    return out;
  }
  return value;
}

function capText(text: string | null | undefined): string | null {
  if (text === null || text === undefined) return null;
  const clean = redactText(text);
  return clean.length > MAX_AUDIT_TEXT ? `${clean.slice(0, MAX_AUDIT_TEXT)}\n[... ${clean.length - MAX_AUDIT_TEXT} characters not kept]` : clean;
}

/** The audit decision for a policy verdict and, for a held command, the user's answer. */
export function auditDecision(decision: SafetyDecision, approved?: boolean): AuditDecision {
  if (decision === 'allow') return 'allowed';
  if (decision === 'deny') return 'denied';
  return approved ? 'approved' : 'rejected';
}

interface Row {
  id: number;
  call_id: string;
  session_id: string | null;
  step_idx: number | null;
  agent: string;
  tool: string;
  tool_type: string;
  server: string;
  args_json: string;
  decision: AuditDecision;
  approved_by: string | null;
  reasons_json: string;
  status: AuditStatus;
  result: string | null;
  error: string | null;
  requested_at: number;
  duration_ms: number;
}

function fromRow(row: Row): AuditRecord {
  return {
    id: row.id,
    callId: row.call_id,
    sessionId: row.session_id,
    stepIdx: row.step_idx,
    agent: row.agent,
    tool: row.tool,
    toolType: row.tool_type === 'action' ? 'action' : 'data_collection',
    server: row.server,
    args: JSON.parse(row.args_json) as Record<string, unknown>,
    decision: row.decision,
    approvedBy: row.approved_by,
    reasons: JSON.parse(row.reasons_json) as string[],
    status: row.status,
    result: row.result,
    error: row.error,
    requestedAt: row.requested_at,
    durationMs: row.duration_ms,
  };
}

export class AuditStore {
  private readonly insert;
  private readonly complete;
  private readonly markUnfinished;
  private readonly bySession;
  private readonly bySessionAfter;
  /** Completions a full disk refused, by row id: written before the next entry, or on flush. */
  private readonly unwritten = new Map<number, AuditOutcome>();

  constructor(private readonly db: Database) {
    this.insert = db.prepare(
      `INSERT INTO audit (call_id, session_id, step_idx, agent, tool, tool_type, server, args_json, decision,
         approved_by, reasons_json, status, result, error, requested_at, duration_ms)
       VALUES (@call_id, @session_id, @step_idx, @agent, @tool, @tool_type, @server, @args_json, @decision,
         @approved_by, @reasons_json, @status, @result, @error, @requested_at, @duration_ms)`,
    );
    this.complete = db.prepare(
      `UPDATE audit SET status = @status, result = @result, error = @error, duration_ms = @duration_ms WHERE id = @id AND status = 'running'`,
    );
    this.markUnfinished = db.prepare(`UPDATE audit SET status = 'unknown', error = @error WHERE status = 'running'`);
    this.bySession = db.prepare('SELECT * FROM audit WHERE session_id = ? ORDER BY id LIMIT ?');
    this.bySessionAfter = db.prepare('SELECT * FROM audit WHERE session_id = ? AND id > ? ORDER BY id LIMIT ?');
  }

  /** Writes one entry (secrets redacted) and returns its row id. Runs inside an open transaction if any. */
  record(entry: AuditEntry): number {
    this.flush();
    const info = this.insert.run({
      call_id: entry.callId,
      session_id: entry.sessionId,
      step_idx: entry.stepIdx ?? null,
      agent: entry.agent,
      tool: entry.tool,
      tool_type: entry.toolType,
      server: entry.server ?? 'device',
      args_json: JSON.stringify(redactSecrets(entry.args ?? {})),
      decision: entry.decision,
      approved_by: entry.approvedBy ?? null,
      reasons_json: JSON.stringify((entry.reasons ?? []).map(redactText)),
      status: entry.status,
      result: capText(entry.result),
      error: capText(entry.error),
      requested_at: Math.round(entry.requestedAt),
      duration_ms: entry.durationMs ?? 0,
    });
    return Number(info.lastInsertRowid);
  }

  /** Writes a command's row before it runs, as 'running'; `finish` completes it. Returns the row id. */
  begin(entry: Omit<AuditEntry, 'status' | 'result' | 'error' | 'durationMs'>): number {
    return this.record({ ...entry, status: 'running', result: null, error: null, durationMs: 0 });
  }

  /**
   * Completes a row `begin` wrote with what the command came to. On a full disk the completion waits in
   * memory for the next entry (or `flush`) instead of failing the step: the command has run, and its
   * step, saved once there is space, must say what it did. Deskhand closed before then leaves the row
   * 'running', marked 'unknown' at the next start as after a crash.
   */
  finish(id: number, outcome: AuditOutcome): void {
    try {
      this.completeRow(id, outcome);
    } catch (error) {
      if (!isDiskFull(error)) throw error;
      logError(`[deskhand] the audit row of a command that ran could not be completed yet: ${(error as Error).message}`);
      this.unwritten.set(id, outcome);
    }
  }

  /** Writes the completions a full disk refused; throws (keeping them) while it still does. */
  flush(): void {
    for (const [id, outcome] of this.unwritten) {
      this.completeRow(id, outcome);
      this.unwritten.delete(id);
    }
  }

  private completeRow(id: number, outcome: AuditOutcome): void {
    this.complete.run({
      id,
      status: outcome.status,
      result: capText(outcome.result),
      error: capText(outcome.error),
      duration_ms: outcome.durationMs,
    });
  }

  /** At start-up: rows still 'running' belong to commands a crash cut off. Returns how many. */
  markUnfinishedUnknown(): number {
    return this.markUnfinished.run({ error: UNFINISHED_AT_CRASH }).changes;
  }

  /** A session's entries in the order they were recorded; page with `afterId`. */
  list(sessionId: string, options: { afterId?: number; limit?: number } = {}): AuditRecord[] {
    const limit = options.limit ?? 10_000;
    const rows = (
      options.afterId !== undefined
        ? this.bySessionAfter.all(sessionId, options.afterId, limit)
        : this.bySession.all(sessionId, limit)
    ) as Row[];
    // A completion still waiting for disk space is what the command came to: the row says so meanwhile.
    return rows.map((row) => {
      const record = fromRow(row);
      const outcome = this.unwritten.get(record.id);
      return outcome ? { ...record, ...outcome, result: capText(outcome.result), error: capText(outcome.error) } : record;
    });
  }
}
