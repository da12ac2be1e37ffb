/**
 * Schema version 5: who owns what, for several nodes on one database (and for a restart on
 * SQLite, where the previous process is the only other node there ever was). A run task, an
 * agent run and a queued prompt name the node that holds it; a session's lease names the node
 * running it, until it expires. The same SQL runs on SQLite and PostgreSQL.
 */
export const multiNodeSchema = `
ALTER TABLE tasks ADD COLUMN run_node TEXT;
ALTER TABLE runs ADD COLUMN node TEXT;
ALTER TABLE session_queue ADD COLUMN node TEXT;
CREATE TABLE session_leases (
  session_id TEXT PRIMARY KEY,
  node       TEXT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX session_leases_node ON session_leases (node);
CREATE INDEX tasks_run_node ON tasks (status, run_node);
CREATE INDEX runs_node ON runs (status, node);
`;
