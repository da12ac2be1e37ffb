/**
 * Schema version 8: approvals. One row per approval request of the agent's bash (stored before
 * anything runs, decided once, claimed once to run: `executed_at`), and the approval policies
 * set on a session (its default) or a run task (for its run).
 * Owned by src/approvals.
 */

const table = (time: string, order: string) => /* sql */ `
CREATE TABLE approvals (
  id           TEXT ${order} PRIMARY KEY,
  status       TEXT NOT NULL,
  session_id   TEXT NOT NULL,
  run_id       TEXT NOT NULL,
  task_id      TEXT,
  call_id      TEXT NOT NULL,
  script       TEXT NOT NULL,
  cwd          TEXT,
  args         TEXT NOT NULL,
  reason       TEXT NOT NULL,
  on_timeout   TEXT NOT NULL,
  requested_at ${time} NOT NULL,
  expires_at   ${time},
  decided_at   ${time},
  note         TEXT,
  decided_by   TEXT,
  executed_at  ${time},
  node         TEXT,
  UNIQUE (run_id, call_id)
);
CREATE INDEX approvals_status ON approvals (status, id);
CREATE INDEX approvals_session ON approvals (session_id, id);
CREATE INDEX approvals_task ON approvals (task_id, id);
-- The policy set for a session (its default) or a run task (for its run), keyed by that id.
CREATE TABLE approval_policies (
  owner  TEXT PRIMARY KEY,
  policy TEXT NOT NULL
);
`;

/** The SQLite step. */
export const approvalsSqlite = table("INTEGER", "");

/** The PostgreSQL step (ids listed in order use the "C" collation, as SQLite sorts them). */
export const approvalsPg = table("BIGINT", 'COLLATE "C"');
