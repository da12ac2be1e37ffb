/** Task tables: tasks, completion receipts and request telemetry. Owned by src/tasks. */
export const taskSchema = /* sql */ `
-- seq gives tasks a stable creation order (per-session FIFO, list cursors); id is the public id.
CREATE TABLE tasks (
  seq           INTEGER PRIMARY KEY,
  id            TEXT NOT NULL UNIQUE,
  kind          TEXT NOT NULL,
  title         TEXT NOT NULL,
  body          TEXT,
  prompt        TEXT,
  session_key   TEXT,
  session_id    TEXT,
  project       TEXT NOT NULL,
  status        TEXT NOT NULL,
  phase         TEXT NOT NULL,
  version       INTEGER NOT NULL,
  model         TEXT,
  provider      TEXT,
  bus           TEXT,
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  started_at    INTEGER,
  ended_at      INTEGER,
  latest_update TEXT,
  poll_count    INTEGER NOT NULL DEFAULT 0,
  summary       TEXT,
  error         TEXT,
  handoff       TEXT,
  timeline      TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX tasks_status ON tasks (status, seq);
CREATE INDEX tasks_session ON tasks (session_key, seq);
CREATE INDEX tasks_project ON tasks (project, seq);
CREATE INDEX tasks_updated ON tasks (project, updated_at);

-- (task_id, session_ref) is the completion contract's uniqueness guarantee.
CREATE TABLE receipts (
  task_id     TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  session_ref TEXT NOT NULL,
  body        TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  PRIMARY KEY (task_id, session_ref)
) WITHOUT ROWID;

-- One row per task-operation request. Never holds prompt text.
CREATE TABLE telemetry (
  id            INTEGER PRIMARY KEY,
  ts            INTEGER NOT NULL,
  op            TEXT NOT NULL,
  task_id       TEXT,
  poll_number   INTEGER,
  wait_asked_ms INTEGER,
  waited_ms     INTEGER,
  status        TEXT,
  duration_ms   INTEGER NOT NULL,
  duplicate     INTEGER NOT NULL DEFAULT 0,
  terminal_retrieval INTEGER NOT NULL DEFAULT 0,
  error_code    TEXT
);
CREATE INDEX telemetry_task ON telemetry (task_id, id);
`;
