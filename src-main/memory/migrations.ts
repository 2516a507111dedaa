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
];
