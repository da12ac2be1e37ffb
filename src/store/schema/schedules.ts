/**
 * Schema version 9: schedules and their firings. A schedule's `due_at` is the next due time no
 * node has handled yet: a node handles it by moving it forward with a compare-and-set in the
 * same transaction that inserts the firing rows, and (schedule_id, firing_at) is the primary key
 * of the firings, so each due time is recorded, and fired, once whatever the number of nodes.
 * `watch_from` marks where the schedule was last resumed: due times before it passed while it
 * was paused. Tasks a schedule starts name it (`schedule_id`, `firing_at`). Times are epoch
 * milliseconds; `spec` is the JSON of what the caller set (when, action, policies).
 */
const table = (text: string, integer: string) => /* sql */ `
CREATE TABLE schedules (
  id                   TEXT PRIMARY KEY,
  name                 TEXT NOT NULL,
  version              BIGINT NOT NULL,
  spec                 TEXT NOT NULL,
  enabled              INTEGER NOT NULL,
  created_at           BIGINT NOT NULL,
  updated_at           BIGINT NOT NULL,
  due_at               BIGINT,
  watch_from           BIGINT NOT NULL,
  last_started_due     BIGINT,
  last_ok_at           BIGINT,
  consecutive_failures BIGINT NOT NULL DEFAULT 0
)${text};
CREATE INDEX schedules_due ON schedules (enabled, due_at);
CREATE INDEX schedules_created ON schedules (created_at, id);
CREATE TABLE schedule_firings (
  schedule_id TEXT NOT NULL,
  firing_at   BIGINT NOT NULL,
  kind        TEXT NOT NULL,
  outcome     TEXT NOT NULL,
  reason      TEXT,
  task_id     TEXT,
  result      TEXT,
  node        TEXT,
  started_at  BIGINT,
  ended_at    BIGINT,
  overdue_at  BIGINT,
  updated_at  BIGINT NOT NULL,
  PRIMARY KEY (schedule_id, firing_at)
)${text};
CREATE INDEX schedule_firings_outcome ON schedule_firings (outcome, schedule_id);
CREATE INDEX schedule_firings_task ON schedule_firings (task_id);
ALTER TABLE tasks ADD COLUMN schedule_id TEXT;
ALTER TABLE tasks ADD COLUMN firing_at ${integer};
`;

/** SQLite. */
export const schedulesSqlite = table(" WITHOUT ROWID", "INTEGER");

/** PostgreSQL (the same tables, the same version). */
export const schedulesPg = table("", "BIGINT");
