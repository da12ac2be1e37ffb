/** Core tables: instance metadata and the event bus. */
export const coreSchema = /* sql */ `
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

-- One row per bus. last_seq survives trimming, so seq never goes back.
CREATE TABLE buses (
  bus      TEXT PRIMARY KEY,
  last_seq INTEGER NOT NULL
) WITHOUT ROWID;

-- Clustered on (bus, seq): a cursor read is one range scan.
CREATE TABLE events (
  bus     TEXT NOT NULL,
  seq     INTEGER NOT NULL,
  ts      INTEGER NOT NULL,
  payload TEXT NOT NULL,
  PRIMARY KEY (bus, seq)
) WITHOUT ROWID;
CREATE INDEX events_ts ON events (ts);

-- Idempotency keys of run_task, task_create and memory_add: same key + same args replays.
CREATE TABLE idempotency (
  scope      TEXT NOT NULL,
  key        TEXT NOT NULL,
  args_hash  TEXT NOT NULL,
  result     TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (scope, key)
) WITHOUT ROWID;
`;
