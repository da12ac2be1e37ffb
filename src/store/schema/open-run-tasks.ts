/**
 * Schema version 11: an index of the run tasks still open (todo or in_progress) by session.
 * Before a task's run takes its session's lease on PostgreSQL, one statement checks that no
 * earlier run task of the session is still open; without this index that check walked every
 * todo task of every session (work tasks included, which stay todo for as long as nobody
 * updates them) on each run task. Partial, so it holds only the few tasks open at a time.
 * SQLite never runs that check (one process is the only runner there): its step changes nothing.
 */

/** The SQLite step: nothing changes there (see the file comment). */
export const openRunTasksSqlite = /* sql */ `
SELECT 1;
`;

/** The PostgreSQL step. */
export const openRunTasksPg = /* sql */ `
CREATE INDEX tasks_open_runs ON tasks (session_id, seq) WHERE kind = 'run' AND status IN ('todo', 'in_progress');
`;
