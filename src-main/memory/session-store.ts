import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  ActionView,
  AgentStatus,
  DAMAGED_TEXT_CHARS,
  DamagedSessionView,
  type NotRun,
  SessionMode,
  SessionStatus,
  SessionView,
  StepView,
  type ScreenshotRef,
} from '../protocol';
import { logError } from '../common/log';
import { cutWithEllipsis, oneLineHead } from '../common/text-head';
import { issuesText } from '../common/zod-issues';
import { keepAsIs, type Db, type Scrub } from './database';

export interface StoredScreenshot {
  file: string;
  width: number;
  height: number;
  bytes: number;
  sha256: string;
}

export interface NewStep {
  round: number;
  agent: string;
  target: string | null;
  subtask: string | null;
  status: AgentStatus;
  observation: string;
  thought: string;
  plan: string[];
  comment: string;
  action: ActionView | null;
  actionText: string;
  result: string | null;
  error: string | null;
  modelReply: string | null;
  promptText: string | null;
  screenshot: StoredScreenshot | null;
  annotated: StoredScreenshot | null;
  startedAt: number;
  durationMs: number;
  phaseMs: Record<string, number>;
  tokens: { prompt: number; completion: number };
  costUsd: number | null;
  approvedBy: 'user' | 'policy' | null;
  /** Why its action did not run, when it was held back rather than tried (see NotRun); null otherwise. */
  notRun: NotRun | null;
}

interface SessionRow {
  id: string;
  title: string;
  request: string;
  mode: string;
  status: string;
  result: string | null;
  created_at: number;
  updated_at: number;
  step_count: number;
  round_count: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number | null;
}

interface StepRow {
  id: string;
  session_id: string;
  idx: number;
  round: number;
  agent: string;
  target: string | null;
  subtask: string | null;
  status: string;
  observation: string;
  thought: string;
  plan_json: string;
  comment: string;
  action_json: string | null;
  action_text: string;
  result: string | null;
  error: string | null;
  screenshot_file: string | null;
  screenshot_width: number | null;
  screenshot_height: number | null;
  annotated_file: string | null;
  started_at: number;
  duration_ms: number;
  phase_ms_json: string;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number | null;
  approved_by: string | null;
  not_run: string | null;
}

/**
 * The columns of a step as views show it (StepRow): not its prompt and model reply, the bulk of a step,
 * which step.detail and an export read.
 */
const STEP_VIEW_COLUMNS = `id, session_id, idx, round, agent, target, subtask, status, observation, thought, plan_json, comment,
  action_json, action_text, result, error, screenshot_file, screenshot_width, screenshot_height, annotated_file, started_at,
  duration_ms, phase_ms_json, prompt_tokens, completion_tokens, cost_usd, approved_by, not_run`;

/** A round as stored; checked when read back like a session or a step. */
const RoundRow = z.object({ idx: z.number().int().nonnegative(), request: z.string(), status: SessionStatus, result: z.string().nullable() });
export type RoundRow = z.infer<typeof RoundRow>;

const TITLE_CHARS = 80;

/** A session's title: its request on one line, cut to TITLE_CHARS. */
export function titleFrom(request: string): string {
  return oneLineHead(request, TITLE_CHARS);
}

/** A session's row exists but does not read as a session; `problem` says why, in short. */
export class DamagedSessionError extends Error {
  constructor(
    readonly sessionId: string,
    readonly problem: string,
  ) {
    super(`session ${sessionId} is damaged: ${problem}`);
  }
}

/** What `listEntries` finds: the sessions, and the rows that are sessions no longer (see DamagedSessionView). */
export interface SessionEntries {
  sessions: SessionView[];
  damaged: DamagedSessionView[];
}

function cut(text: string): string {
  return cutWithEllipsis(text, DAMAGED_TEXT_CHARS);
}

/**
 * What can be read of a damaged row: its id (without one it cannot even be deleted: null), and its start
 * time and request where those columns still hold a number and a text.
 */
function toDamagedView(row: Record<string, unknown>, problem: string): DamagedSessionView | null {
  const createdAt = row.created_at;
  const parsed = DamagedSessionView.safeParse({
    id: row.id,
    createdAt: typeof createdAt === 'number' && Number.isFinite(createdAt) ? createdAt : null,
    request: typeof row.request === 'string' ? cut(row.request) : null,
    problem: cut(problem),
  });
  return parsed.success ? parsed.data : null;
}

/** Rows read back are checked like any other input: a damaged row is a clear error, not a crash later. */
/**
 * Whether a stored row of sessions, rounds or steps reads back as this store reads it. A repair keeps only
 * those, so that every session it keeps opens (a lost session is rebuilt from its steps instead).
 */
export function readsBack(table: 'sessions' | 'rounds' | 'steps', row: Record<string, unknown>): boolean {
  try {
    if (table === 'sessions') toSessionView(row as unknown as SessionRow, null);
    else if (table === 'steps') toStepView(row as unknown as StepRow);
    else return RoundRow.safeParse(row).success;
    return true;
  } catch {
    return false;
  }
}

function toSessionView(row: SessionRow, maxSteps: number | null): SessionView {
  const parsed = SessionView.safeParse({
    id: row.id,
    title: row.title,
    request: row.request,
    mode: row.mode,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    stepCount: row.step_count,
    roundCount: row.round_count,
    result: row.result,
    tokens: { prompt: row.prompt_tokens, completion: row.completion_tokens },
    costUsd: row.cost_usd,
    maxSteps,
  });
  if (!parsed.success) throw new DamagedSessionError(String(row.id), issuesText(parsed.error, { root: 'row', max: 2 }));
  return parsed.data;
}

function screenshotRef(sessionId: string, file: string | null, width: number | null, height: number | null): ScreenshotRef | null {
  return file && width && height ? { sessionId, file, width, height } : null;
}

/** A step's JSON column read back; a damaged one is an error naming the step and the column. */
function jsonColumn(row: StepRow, column: 'plan_json' | 'action_json' | 'phase_ms_json'): unknown {
  const text = row[column];
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`step ${row.idx + 1} of session ${row.session_id} is damaged: ${column}: ${(error as Error).message}`);
  }
}

function toStepView(row: StepRow): StepView {
  const parsed = StepView.safeParse({
    id: row.id,
    sessionId: row.session_id,
    index: row.idx,
    round: row.round,
    agent: row.agent,
    target: row.target,
    subtask: row.subtask,
    status: row.status,
    observation: row.observation,
    thought: row.thought,
    plan: jsonColumn(row, 'plan_json'),
    comment: row.comment,
    action: jsonColumn(row, 'action_json'),
    actionText: row.action_text,
    result: row.result,
    error: row.error,
    screenshot: screenshotRef(row.session_id, row.screenshot_file, row.screenshot_width, row.screenshot_height),
    annotated: screenshotRef(row.session_id, row.annotated_file, row.screenshot_width, row.screenshot_height),
    startedAt: row.started_at,
    durationMs: row.duration_ms,
    phaseMs: jsonColumn(row, 'phase_ms_json'),
    tokens: { prompt: row.prompt_tokens, completion: row.completion_tokens },
    costUsd: row.cost_usd,
    approvedBy: row.approved_by,
    notRun: row.not_run,
  });
  if (!parsed.success) throw new Error(`step ${row.idx + 1} of session ${row.session_id} is damaged: ${parsed.error.message}`);
  return parsed.data;
}

/** The INSERT of one step; its parameters come from stepRow. */
export const INSERT_STEP_SQL = `INSERT INTO steps (id, session_id, idx, round, agent, target, subtask, status, observation,
  thought, plan_json, comment, action_json, action_text, result, error, model_reply, prompt_text, screenshot_file,
  screenshot_width, screenshot_height, screenshot_bytes, screenshot_sha256, annotated_file, started_at, duration_ms,
  phase_ms_json, prompt_tokens, completion_tokens, cost_usd, approved_by, not_run)
VALUES (@id, @sessionId, @idx, @round, @agent, @target, @subtask, @status, @observation, @thought, @planJson, @comment,
  @actionJson, @actionText, @result, @error, @modelReply, @promptText, @screenshotFile, @screenshotWidth,
  @screenshotHeight, @screenshotBytes, @screenshotSha256, @annotatedFile, @startedAt, @durationMs, @phaseMsJson,
  @promptTokens, @completionTokens, @costUsd, @approvedBy, @notRun)`;

/** A step as INSERT_STEP_SQL's parameters: JSON columns serialised, absent screenshots as nulls. */
export function stepRow(id: string, sessionId: string, idx: number, step: NewStep): Record<string, unknown> {
  return {
    id,
    sessionId,
    idx,
    round: step.round,
    agent: step.agent,
    target: step.target,
    subtask: step.subtask,
    status: step.status,
    observation: step.observation,
    thought: step.thought,
    planJson: JSON.stringify(step.plan),
    comment: step.comment,
    actionJson: step.action === null ? null : JSON.stringify(step.action),
    actionText: step.actionText,
    result: step.result,
    error: step.error,
    modelReply: step.modelReply,
    promptText: step.promptText,
    screenshotFile: step.screenshot?.file ?? null,
    screenshotWidth: step.screenshot?.width ?? null,
    screenshotHeight: step.screenshot?.height ?? null,
    screenshotBytes: step.screenshot?.bytes ?? null,
    screenshotSha256: step.screenshot?.sha256 ?? null,
    annotatedFile: step.annotated?.file ?? null,
    startedAt: step.startedAt,
    durationMs: step.durationMs,
    phaseMsJson: JSON.stringify(step.phaseMs),
    promptTokens: step.tokens.prompt,
    completionTokens: step.tokens.completion,
    costUsd: step.costUsd,
    approvedBy: step.approvedBy,
    notRun: step.notRun,
  };
}

function stepViewOf(id: string, sessionId: string, index: number, step: NewStep): StepView {
  return StepView.parse({
    id,
    sessionId,
    index,
    round: step.round,
    agent: step.agent,
    target: step.target,
    subtask: step.subtask,
    status: step.status,
    observation: step.observation,
    thought: step.thought,
    plan: step.plan,
    comment: step.comment,
    action: step.action,
    actionText: step.actionText,
    result: step.result,
    error: step.error,
    screenshot: step.screenshot ? { sessionId, file: step.screenshot.file, width: step.screenshot.width, height: step.screenshot.height } : null,
    annotated:
      step.annotated && step.screenshot
        ? { sessionId, file: step.annotated.file, width: step.annotated.width, height: step.annotated.height }
        : null,
    startedAt: step.startedAt,
    durationMs: step.durationMs,
    phaseMs: step.phaseMs,
    tokens: step.tokens,
    costUsd: step.costUsd,
    approvedBy: step.approvedBy,
    notRun: step.notRun,
  });
}

/** Sessions, rounds and steps in SQLite; every write is one transaction, so a kill loses no committed step. */
export class SessionStore {
  private readonly statements;
  private readonly maxSteps: () => number | null;

  constructor(
    private readonly db: Db,
    /** The per-round step limit, reported with every session for "step n of max": a function for the limit Settings has now. */
    maxSteps: number | null | (() => number | null) = null,
    private readonly scrub: Scrub = keepAsIs,
  ) {
    this.maxSteps = typeof maxSteps === 'function' ? maxSteps : () => maxSteps;
    this.statements = {
      insertSession: db.prepare(
        `INSERT INTO sessions (id, title, request, mode, status, result, created_at, updated_at, step_count, round_count)
         VALUES (@id, @title, @request, @mode, 'running', NULL, @now, @now, 0, 0)`,
      ),
      getSession: db.prepare('SELECT * FROM sessions WHERE id = ?'),
      hasSession: db.prepare('SELECT 1 FROM sessions WHERE id = ?').pluck(),
      listSessions: db.prepare('SELECT * FROM sessions ORDER BY updated_at DESC, rowid DESC LIMIT ?'),
      searchSessions: db.prepare(
        `SELECT * FROM sessions WHERE title LIKE @pattern ESCAPE '\\' OR request LIKE @pattern ESCAPE '\\'
           OR id IN (SELECT session_id FROM rounds WHERE request LIKE @pattern ESCAPE '\\')
         ORDER BY updated_at DESC, rowid DESC LIMIT @limit`,
      ),
      setStatus: db.prepare('UPDATE sessions SET status = ?, result = ?, updated_at = ? WHERE id = ?'),
      // Not updated_at: a new name is not activity, and must not move the session in the list or change its time.
      setTitle: db.prepare('UPDATE sessions SET title = ? WHERE id = ?'),
      deleteSession: db.prepare('DELETE FROM sessions WHERE id = ?'),
      insertRound: db.prepare(
        `INSERT INTO rounds (session_id, idx, request, status, started_at)
         SELECT @sessionId, round_count, @request, 'running', @now FROM sessions WHERE id = @sessionId RETURNING idx`,
      ),
      bumpRounds: db.prepare('UPDATE sessions SET round_count = round_count + 1, updated_at = ? WHERE id = ?'),
      endRound: db.prepare('UPDATE rounds SET status = ?, result = ?, ended_at = ? WHERE session_id = ? AND idx = ?'),
      rounds: db.prepare('SELECT idx, request, status, result FROM rounds WHERE session_id = ? ORDER BY idx'),
      insertStep: db.prepare(INSERT_STEP_SQL),
      bumpSession: db.prepare(
        `UPDATE sessions SET step_count = step_count + 1, updated_at = @now,
           prompt_tokens = prompt_tokens + @prompt, completion_tokens = completion_tokens + @completion,
           cost_usd = CASE WHEN @cost IS NULL THEN cost_usd ELSE COALESCE(cost_usd, 0) + @cost END
         WHERE id = @sessionId RETURNING step_count`,
      ),
      addUsage: db.prepare(
        `UPDATE sessions SET updated_at = @now,
           prompt_tokens = prompt_tokens + @prompt, completion_tokens = completion_tokens + @completion,
           cost_usd = CASE WHEN @cost IS NULL THEN cost_usd ELSE COALESCE(cost_usd, 0) + @cost END
         WHERE id = @sessionId`,
      ),
      steps: db.prepare(`SELECT ${STEP_VIEW_COLUMNS} FROM steps WHERE session_id = ? ORDER BY idx`),
      stepsOf: db.prepare(`SELECT ${STEP_VIEW_COLUMNS} FROM steps WHERE session_id = ? AND agent = ? ORDER BY idx`),
      stepsWithReplies: db.prepare(`SELECT ${STEP_VIEW_COLUMNS}, model_reply FROM steps WHERE session_id = ? ORDER BY idx`),
      firstStepFrom: db.prepare('SELECT MIN(idx) AS idx FROM steps WHERE session_id = ? AND round >= ?'),
      step: db.prepare('SELECT * FROM steps WHERE session_id = ? AND id = ?'),
      markInterrupted: db.prepare(
        `UPDATE sessions SET status = 'interrupted', updated_at = ?
         WHERE status IN ('running', 'stopping', 'waiting', 'paused') RETURNING id`,
      ),
      counts: db.prepare('SELECT (SELECT COUNT(*) FROM sessions) AS sessions, (SELECT COUNT(*) FROM steps) AS steps'),
      markRoundsInterrupted: db.prepare(`UPDATE rounds SET status = 'interrupted', ended_at = ? WHERE ended_at IS NULL`),
    };
  }

  /** Runs `work` in one transaction (nested calls join the outer one). */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work)();
  }

  createSession(request: string, mode: SessionMode): SessionView {
    const id = randomUUID();
    const clean = this.scrub(request);
    this.statements.insertSession.run({ id, title: titleFrom(clean), request: clean, mode, now: Date.now() });
    return this.requireSession(id);
  }

  getSession(id: string): SessionView | null {
    const row = this.statements.getSession.get(id) as SessionRow | undefined;
    return row ? toSessionView(row, this.maxSteps()) : null;
  }

  /** Whether a session of that id exists, its row unread (it may be damaged). */
  hasSession(id: string): boolean {
    return this.statements.hasSession.get(id) !== undefined;
  }

  requireSession(id: string): SessionView {
    const session = this.getSession(id);
    if (!session) throw new Error(`no session with id ${id}`);
    return session;
  }

  listSessions(limit = 200, query?: string): SessionView[] {
    return this.listEntries(limit, query).sessions;
  }

  /**
   * The sessions, newest first, and apart from them the damaged ones: one damaged session must not hide
   * all the others, nor be hidden itself (the user could then never delete it). A row without a readable
   * id cannot be deleted through the protocol: that one is left out, and named in the log.
   */
  listEntries(limit = 200, query?: string): SessionEntries {
    const rows = query?.trim()
      ? this.statements.searchSessions.all({ pattern: `%${query.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`, limit })
      : this.statements.listSessions.all(limit);
    const entries: SessionEntries = { sessions: [], damaged: [] };
    for (const row of rows as SessionRow[]) {
      try {
        entries.sessions.push(toSessionView(row, this.maxSteps()));
      } catch (error) {
        const problem = error instanceof DamagedSessionError ? error.problem : (error as Error).message;
        const damaged = toDamagedView(row as unknown as Record<string, unknown>, problem);
        logError(`[deskhand] ${damaged ? 'listed as damaged' : 'left out of the session list'}: ${(error as Error).message}`);
        if (damaged) entries.damaged.push(damaged);
      }
    }
    return entries;
  }

  setStatus(id: string, status: SessionStatus, result: string | null = null): SessionView {
    const changes = this.statements.setStatus.run(status, this.scrub(result), Date.now(), id).changes;
    if (changes === 0) throw new Error(`no session with id ${id}`);
    return this.requireSession(id);
  }

  /**
   * Gives a session the title the user chose (checked by the protocol's SessionTitle), scrubbed like its
   * request; its request and rounds keep what was asked.
   */
  renameSession(id: string, title: string): SessionView {
    const changes = this.statements.setTitle.run(this.scrub(title), id).changes;
    if (changes === 0) throw new Error(`no session with id ${id}`);
    return this.requireSession(id);
  }

  deleteSession(id: string): boolean {
    return this.statements.deleteSession.run(id).changes > 0;
  }

  /** Opens the next round of a session and returns its index. */
  startRound(sessionId: string, request: string): number {
    return this.transaction(() => {
      const row = this.statements.insertRound.get({ sessionId, request: this.scrub(request), now: Date.now() }) as { idx: number } | undefined;
      if (!row) throw new Error(`no session with id ${sessionId}`);
      this.statements.bumpRounds.run(Date.now(), sessionId);
      return row.idx;
    });
  }

  endRound(sessionId: string, round: number, status: SessionStatus, result: string | null): void {
    this.statements.endRound.run(status, this.scrub(result), Date.now(), sessionId, round);
  }

  /** The index of the first step of round `round` or a later one; null when there is none. */
  firstStepIndexFrom(sessionId: string, round: number): number | null {
    return (this.statements.firstStepFrom.get(sessionId, round) as { idx: number | null }).idx;
  }

  rounds(sessionId: string): RoundRow[] {
    return (this.statements.rounds.all(sessionId) as Array<{ idx: number }>).map((row, position) => {
      const parsed = RoundRow.safeParse(row);
      if (!parsed.success) throw new Error(`round ${position + 1} of session ${sessionId} is damaged: ${parsed.error.message}`);
      return parsed.data;
    });
  }

  /**
   * Appends a step (scrubbed), adds its usage to the session, and runs `alsoWrite` (blackboard records)
   * in the same transaction; returns the step as the UI sees it.
   */
  appendStep(sessionId: string, rawStep: NewStep, alsoWrite?: (index: number) => void): StepView {
    const step = this.scrub(rawStep);
    const id = randomUUID();
    const index = this.transaction(() => {
      const bumped = this.statements.bumpSession.get({
        sessionId,
        now: Date.now(),
        prompt: step.tokens.prompt,
        completion: step.tokens.completion,
        cost: step.costUsd,
      }) as { step_count: number } | undefined;
      if (!bumped) throw new Error(`no session with id ${sessionId}`);
      const idx = bumped.step_count - 1;
      this.statements.insertStep.run(stepRow(id, sessionId, idx, step));
      alsoWrite?.(idx);
      return idx;
    });
    return stepViewOf(id, sessionId, index, step);
  }

  /**
   * Adds to the session the usage of model replies no step records (a step Stop cut short): the
   * tokens were spent, and the session's totals say what it cost.
   */
  addUsage(sessionId: string, tokens: { prompt: number; completion: number }, costUsd: number | null): void {
    const changed = this.statements.addUsage.run({ sessionId, now: Date.now(), prompt: tokens.prompt, completion: tokens.completion, cost: costUsd }).changes;
    if (changed === 0) throw new Error(`no session with id ${sessionId}`);
  }

  steps(sessionId: string): StepView[] {
    return (this.statements.steps.all(sessionId) as StepRow[]).map(toStepView);
  }

  /** The steps one agent made in a session, oldest first. */
  stepsOf(sessionId: string, agent: string): StepView[] {
    return (this.statements.stepsOf.all(sessionId, agent) as StepRow[]).map(toStepView);
  }

  /** Every step with its model reply, in one query (an export). */
  stepsWithReplies(sessionId: string): Array<StepView & { modelReply: string | null }> {
    const rows = this.statements.stepsWithReplies.all(sessionId) as Array<StepRow & { model_reply: string | null }>;
    return rows.map((row) => ({ ...toStepView(row), modelReply: row.model_reply }));
  }

  step(sessionId: string, stepId: string): { step: StepView; modelReply: string | null; promptText: string | null } | null {
    const row = this.statements.step.get(sessionId, stepId) as (StepRow & { model_reply: string | null; prompt_text: string | null }) | undefined;
    return row ? { step: toStepView(row), modelReply: row.model_reply, promptText: row.prompt_text } : null;
  }

  /** How many sessions and steps the database holds. */
  counts(): { sessions: number; steps: number } {
    return this.statements.counts.get() as { sessions: number; steps: number };
  }

  /** At start-up: a session still marked active was cut off by a crash or kill. */
  markUnfinishedInterrupted(): string[] {
    return this.transaction(() => {
      const now = Date.now();
      this.statements.markRoundsInterrupted.run(now);
      return (this.statements.markInterrupted.all(now) as { id: string }[]).map((row) => row.id);
    });
  }
}
