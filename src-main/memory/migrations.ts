/**
 * Versioned schema changes, applied in order; entry N brings the database to user_version N + 1.
 * Never edit a shipped entry: add a new one.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE sessions (
    id          TEXT PRIMARY KEY,
    title       TEXT NOT NULL,
    request     TEXT NOT NULL,
    mode        TEXT NOT NULL,
    status      TEXT NOT NULL,
    result      TEXT,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    step_count  INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX sessions_by_update ON sessions(updated_at DESC);

  CREATE TABLE steps (
    id                TEXT PRIMARY KEY,
    session_id        TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    idx               INTEGER NOT NULL,
    agent             TEXT NOT NULL,
    status            TEXT NOT NULL,
    observation       TEXT NOT NULL,
    thought           TEXT NOT NULL,
    action_json       TEXT,
    action_text       TEXT NOT NULL,
    result            TEXT,
    error             TEXT,
    model_reply       TEXT,
    screenshot_file   TEXT,
    screenshot_width  INTEGER,
    screenshot_height INTEGER,
    screenshot_bytes  INTEGER,
    screenshot_sha256 TEXT,
    started_at        INTEGER NOT NULL,
    duration_ms       REAL NOT NULL,
    prompt_tokens     INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    UNIQUE (session_id, idx)
  );
  `,
  `
  ALTER TABLE sessions ADD COLUMN round_count INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE sessions ADD COLUMN prompt_tokens INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE sessions ADD COLUMN completion_tokens INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE sessions ADD COLUMN cost_usd REAL;

  ALTER TABLE steps ADD COLUMN round INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE steps ADD COLUMN target TEXT;
  ALTER TABLE steps ADD COLUMN subtask TEXT;
  ALTER TABLE steps ADD COLUMN plan_json TEXT NOT NULL DEFAULT '[]';
  ALTER TABLE steps ADD COLUMN comment TEXT NOT NULL DEFAULT '';
  ALTER TABLE steps ADD COLUMN annotated_file TEXT;
  ALTER TABLE steps ADD COLUMN phase_ms_json TEXT NOT NULL DEFAULT '{}';
  ALTER TABLE steps ADD COLUMN cost_usd REAL;
  ALTER TABLE steps ADD COLUMN approved_by TEXT;
  ALTER TABLE steps ADD COLUMN prompt_text TEXT;

  CREATE TABLE rounds (
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL,
    request     TEXT NOT NULL,
    status      TEXT NOT NULL,
    result      TEXT,
    started_at  INTEGER NOT NULL,
    ended_at    INTEGER,
    PRIMARY KEY (session_id, idx)
  );

  -- The blackboard's four memories, one row per item; questions are read across sessions too.
  CREATE TABLE blackboard_items (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id   TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    memory       TEXT NOT NULL CHECK (memory IN ('questions', 'requests', 'trajectories', 'screenshots')),
    step_idx     INTEGER,
    content_json TEXT NOT NULL,
    created_at   INTEGER NOT NULL
  );
  CREATE INDEX blackboard_by_session ON blackboard_items(session_id, memory, id);
  CREATE INDEX blackboard_questions ON blackboard_items(memory, id) WHERE memory = 'questions';

  -- Questions and approvals waiting for the user; a held action is stored here before anything runs.
  CREATE TABLE interactions (
    id            TEXT PRIMARY KEY,
    session_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    kind          TEXT NOT NULL CHECK (kind IN ('questions', 'confirm')),
    payload_json  TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    resolved_at   INTEGER,
    outcome       TEXT,
    response_json TEXT
  );
  CREATE INDEX interactions_open ON interactions(session_id) WHERE resolved_at IS NULL;

  CREATE TABLE forms (
    form_id     TEXT NOT NULL,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    agent       TEXT NOT NULL,
    spec_json   TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('open', 'closed')),
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (session_id, form_id)
  );

  -- Every command sent to a device or MCP server: what, when, who approved it, what came back.
  CREATE TABLE audit (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    call_id       TEXT NOT NULL,
    session_id    TEXT REFERENCES sessions(id) ON DELETE SET NULL,
    step_idx      INTEGER,
    agent         TEXT NOT NULL,
    tool          TEXT NOT NULL,
    tool_type     TEXT NOT NULL,
    server        TEXT NOT NULL DEFAULT 'device',
    args_json     TEXT NOT NULL,
    decision      TEXT NOT NULL CHECK (decision IN ('allowed', 'approved', 'rejected', 'denied')),
    approved_by   TEXT,
    reasons_json  TEXT NOT NULL DEFAULT '[]',
    status        TEXT NOT NULL CHECK (status IN ('success', 'failure', 'skipped')),
    result        TEXT,
    error         TEXT,
    requested_at  INTEGER NOT NULL,
    duration_ms   REAL NOT NULL DEFAULT 0
  );
  CREATE INDEX audit_by_session ON audit(session_id, id);
  `,
  // 3: an audit row is written before its command runs ('running') and completed after it, so a command
  // under way when Deskhand crashed still shows; recovery marks such rows 'unknown'. SQLite cannot
  // change a CHECK constraint in place, so the table is rebuilt.
  `
  CREATE TABLE audit_new (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    call_id       TEXT NOT NULL,
    session_id    TEXT REFERENCES sessions(id) ON DELETE SET NULL,
    step_idx      INTEGER,
    agent         TEXT NOT NULL,
    tool          TEXT NOT NULL,
    tool_type     TEXT NOT NULL,
    server        TEXT NOT NULL DEFAULT 'device',
    args_json     TEXT NOT NULL,
    decision      TEXT NOT NULL CHECK (decision IN ('allowed', 'approved', 'rejected', 'denied')),
    approved_by   TEXT,
    reasons_json  TEXT NOT NULL DEFAULT '[]',
    status        TEXT NOT NULL CHECK (status IN ('success', 'failure', 'skipped', 'running', 'unknown')),
    result        TEXT,
    error         TEXT,
    requested_at  INTEGER NOT NULL,
    duration_ms   REAL NOT NULL DEFAULT 0
  );
  INSERT INTO audit_new SELECT * FROM audit;
  DROP TABLE audit;
  ALTER TABLE audit_new RENAME TO audit;
  CREATE INDEX audit_by_session ON audit(session_id, id);
  `,
  // 4: 2 gave the sessions of schema 1 a round count of 1 but no row for that round (their request), so
  // opening one listed no request. The row is made from the session; an unfinished one stays open, for
  // start-up recovery to mark interrupted like any other.
  `
  INSERT INTO rounds (session_id, idx, request, status, result, started_at, ended_at)
  SELECT id, 0, request, status, result, created_at,
         CASE WHEN status IN ('running', 'stopping', 'waiting', 'paused') THEN NULL ELSE updated_at END
  FROM sessions
  WHERE round_count > 0 AND NOT EXISTS (SELECT 1 FROM rounds WHERE rounds.session_id = sessions.id);
  `,
  // 5: every start looked for the audit's 'running' rows, and every deletion for the session's
  // interactions (its cascade), by reading the whole table; both grow with every command and question.
  `
  CREATE INDEX audit_running ON audit(id) WHERE status = 'running';
  CREATE INDEX interactions_by_session ON interactions(session_id);
  `,
  // 6: why a step's action did not run (rejected, paused, refused…: see the protocol's NotRun), so that the
  // trajectory can say so with a tag after the session is reopened; NULL for every step written before.
  `
  ALTER TABLE steps ADD COLUMN not_run TEXT;
  `,
];
