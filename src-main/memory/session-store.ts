import { randomUUID } from 'node:crypto';
import {
  ActionView,
  AgentStatus,
  SessionMode,
  SessionStatus,
  SessionView,
  StepView,
  TERMINAL_SESSION_STATUSES,
} from '../protocol';
import type { Db } from './database';

export interface NewStep {
  agent: string;
  status: AgentStatus;
  observation: string;
  thought: string;
  action: ActionView | null;
  actionText: string;
  result: string | null;
  error: string | null;
  modelReply: string | null;
  screenshot: StoredScreenshot | null;
  startedAt: number;
  durationMs: number;
  tokens: { prompt: number; completion: number };
}

export interface StoredScreenshot {
  file: string;
  width: number;
  height: number;
  bytes: number;
  sha256: string;
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
}

interface StepRow {
  id: string;
  session_id: string;
  idx: number;
  agent: string;
  status: string;
  observation: string;
  thought: string;
  action_json: string | null;
  action_text: string;
  result: string | null;
  error: string | null;
  screenshot_file: string | null;
  screenshot_width: number | null;
  screenshot_height: number | null;
  started_at: number;
  duration_ms: number;
  prompt_tokens: number;
  completion_tokens: number;
}

const TITLE_CHARS = 80;

function titleFrom(request: string): string {
  const line = request.replace(/\s+/g, ' ').trim();
  return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line;
}

/** Rows read back are checked like any other input: a damaged row is a clear error, not a crash later. */
function toSessionView(row: SessionRow): SessionView {
  return SessionView.parse({
    id: row.id,
    title: row.title,
    request: row.request,
    mode: row.mode,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    stepCount: row.step_count,
    result: row.result,
  });
}

function toStepView(row: StepRow): StepView {
  return StepView.parse({
    id: row.id,
    sessionId: row.session_id,
    index: row.idx,
    agent: row.agent,
    status: row.status,
    observation: row.observation,
    thought: row.thought,
    action: row.action_json === null ? null : JSON.parse(row.action_json),
    actionText: row.action_text,
    result: row.result,
    error: row.error,
    screenshot:
      row.screenshot_file && row.screenshot_width && row.screenshot_height
        ? { sessionId: row.session_id, file: row.screenshot_file, width: row.screenshot_width, height: row.screenshot_height }
        : null,
    startedAt: row.started_at,
    durationMs: row.duration_ms,
    tokens: { prompt: row.prompt_tokens, completion: row.completion_tokens },
  });
}

/** Sessions and their steps in SQLite; every write is one transaction, so a kill loses no committed step. */
export class SessionStore {
  private readonly statements;

  constructor(private readonly db: Db) {
    this.statements = {
      insertSession: db.prepare(
        `INSERT INTO sessions (id, title, request, mode, status, result, created_at, updated_at, step_count)
         VALUES (@id, @title, @request, @mode, @status, NULL, @now, @now, 0)`,
      ),
      getSession: db.prepare('SELECT * FROM sessions WHERE id = ?'),
      listSessions: db.prepare('SELECT * FROM sessions ORDER BY updated_at DESC, rowid DESC LIMIT ?'),
      setStatus: db.prepare('UPDATE sessions SET status = ?, result = ?, updated_at = ? WHERE id = ?'),
      insertStep: db.prepare(
        `INSERT INTO steps (id, session_id, idx, agent, status, observation, thought, action_json, action_text,
           result, error, model_reply, screenshot_file, screenshot_width, screenshot_height, screenshot_bytes,
           screenshot_sha256, started_at, duration_ms, prompt_tokens, completion_tokens)
         VALUES (@id, @sessionId, @idx, @agent, @status, @observation, @thought, @actionJson, @actionText,
           @result, @error, @modelReply, @screenshotFile, @screenshotWidth, @screenshotHeight, @screenshotBytes,
           @screenshotSha256, @startedAt, @durationMs, @promptTokens, @completionTokens)`,
      ),
      bumpSession: db.prepare(
        'UPDATE sessions SET step_count = step_count + 1, updated_at = ? WHERE id = ? RETURNING step_count',
      ),
      steps: db.prepare('SELECT * FROM steps WHERE session_id = ? ORDER BY idx'),
      markInterrupted: db.prepare(
        `UPDATE sessions SET status = 'interrupted', updated_at = ? WHERE status IN ('running', 'stopping')
         RETURNING id`,
      ),
    };
  }

  createSession(request: string, mode: SessionMode): SessionView {
    const id = randomUUID();
    this.statements.insertSession.run({
      id,
      title: titleFrom(request),
      request,
      mode,
      status: 'running',
      now: Date.now(),
    });
    return this.requireSession(id);
  }

  getSession(id: string): SessionView | null {
    const row = this.statements.getSession.get(id) as SessionRow | undefined;
    return row ? toSessionView(row) : null;
  }

  requireSession(id: string): SessionView {
    const session = this.getSession(id);
    if (!session) throw new Error(`no session with id ${id}`);
    return session;
  }

  listSessions(limit = 200): SessionView[] {
    return (this.statements.listSessions.all(limit) as SessionRow[]).map(toSessionView);
  }

  setStatus(id: string, status: SessionStatus, result: string | null = null): SessionView {
    const changes = this.statements.setStatus.run(status, result, Date.now(), id).changes;
    if (changes === 0) throw new Error(`no session with id ${id}`);
    return this.requireSession(id);
  }

  /** Appends a step and bumps the session in one transaction; returns the step as the UI sees it. */
  appendStep(sessionId: string, step: NewStep): StepView {
    const id = randomUUID();
    const write = this.db.transaction(() => {
      const bumped = this.statements.bumpSession.get(Date.now(), sessionId) as { step_count: number } | undefined;
      if (!bumped) throw new Error(`no session with id ${sessionId}`);
      const idx = bumped.step_count - 1;
      this.statements.insertStep.run({
        id,
        sessionId,
        idx,
        agent: step.agent,
        status: step.status,
        observation: step.observation,
        thought: step.thought,
        actionJson: step.action === null ? null : JSON.stringify(step.action),
        actionText: step.actionText,
        result: step.result,
        error: step.error,
        modelReply: step.modelReply,
        screenshotFile: step.screenshot?.file ?? null,
        screenshotWidth: step.screenshot?.width ?? null,
        screenshotHeight: step.screenshot?.height ?? null,
        screenshotBytes: step.screenshot?.bytes ?? null,
        screenshotSha256: step.screenshot?.sha256 ?? null,
        startedAt: step.startedAt,
        durationMs: step.durationMs,
        promptTokens: step.tokens.prompt,
        completionTokens: step.tokens.completion,
      });
      return idx;
    });
    const idx = write();
    return StepView.parse({
      id,
      sessionId,
      index: idx,
      agent: step.agent,
      status: step.status,
      observation: step.observation,
      thought: step.thought,
      action: step.action,
      actionText: step.actionText,
      result: step.result,
      error: step.error,
      screenshot: step.screenshot
        ? { sessionId, file: step.screenshot.file, width: step.screenshot.width, height: step.screenshot.height }
        : null,
      startedAt: step.startedAt,
      durationMs: step.durationMs,
      tokens: step.tokens,
    });
  }

  steps(sessionId: string): StepView[] {
    return (this.statements.steps.all(sessionId) as StepRow[]).map(toStepView);
  }

  /** At start-up: a session still marked running was cut off by a crash or kill. */
  markUnfinishedInterrupted(): string[] {
    return (this.statements.markInterrupted.all(Date.now()) as { id: string }[]).map((row) => row.id);
  }

  isTerminal(id: string): boolean {
    const session = this.getSession(id);
    return session !== null && TERMINAL_SESSION_STATUSES.has(session.status);
  }
}
