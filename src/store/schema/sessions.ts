/** Session tables: sessions, their messages and their runs. Owned by src/agent. */
export const sessionSchema = /* sql */ `
CREATE TABLE sessions (
  id           TEXT PRIMARY KEY,
  key          TEXT NOT NULL UNIQUE,
  name         TEXT,
  bus          TEXT NOT NULL,
  model        TEXT NOT NULL,
  provider     TEXT NOT NULL,
  instructions TEXT,
  stream_text  INTEGER NOT NULL DEFAULT 0,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL
);

-- Messages are never deleted by compaction: a 'summary' row marks where the context sent to
-- the model restarts, and everything stays readable.
CREATE TABLE messages (
  id         TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL,
  run_id     TEXT,
  role       TEXT NOT NULL,
  text       TEXT,
  call_id    TEXT,
  name       TEXT,
  args       TEXT,
  result     TEXT,
  is_error   INTEGER,
  created_at INTEGER NOT NULL,
  UNIQUE (session_id, seq)
);

-- kind 'agent' is a run of the loop, 'compact' a summarisation call (its tokens count too).
CREATE TABLE runs (
  id            TEXT PRIMARY KEY,
  session_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  task_id       TEXT,
  kind          TEXT NOT NULL DEFAULT 'agent',
  status        TEXT NOT NULL,
  turns         INTEGER NOT NULL DEFAULT 0,
  tool_calls    INTEGER NOT NULL DEFAULT 0,
  input_tokens  INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  error         TEXT,
  started_at    INTEGER NOT NULL,
  ended_at      INTEGER
);
CREATE INDEX runs_session ON runs (session_id);
`;
