/**
 * Schema version 12: a task's change writes fewer indexes. Every change sets `updated_at`,
 * which `tasks_updated` indexed for one query (continuity_context's tasks with a handoff, newest
 * first), and every status change moved the task in `tasks_run_node`, work tasks included,
 * though only run tasks have a node and only their recovery reads it. Now the node index holds
 * run tasks only, and the handoff list has an index of the tasks with a handoff, so a work
 * task's status change writes its row and `tasks_status` (on SQLite a cancel's UPDATE and COMMIT
 * went from ~28 to ~12 µs at the median; on PostgreSQL an update that is not HOT adds an entry
 * to every index, one fewer now). The same SQL on SQLite and PostgreSQL; it may run again over
 * its own result (a database taken back a version by hand) and ends the same.
 */
export const narrowTaskIndexes = /* sql */ `
DROP INDEX IF EXISTS tasks_run_node;
CREATE INDEX tasks_run_node ON tasks (status, run_node) WHERE kind = 'run';
DROP INDEX IF EXISTS tasks_updated;
CREATE INDEX IF NOT EXISTS tasks_handoffs ON tasks (project, updated_at, seq) WHERE handoff IS NOT NULL;
`;
