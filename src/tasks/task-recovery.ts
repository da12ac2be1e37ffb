/**
 * Run tasks whose node is gone. In progress, they end as `error`: `interrupted` after a restart
 * on SQLite (the previous process is the only node that could have run them), `node_lost` on
 * PostgreSQL, where another node noticed the lease lapse. They are never re-run: their side
 * effects may have happened (a run paused on an approval is not lost: it goes on once the
 * approval is decided). Still queued, they are claimed by this node to run here: the claim
 * is one UPDATE that skips rows another node is claiming at the same time, so exactly one node
 * gets each task.
 */
import { ownerGone, skipLocked } from "../nodes/owners.js";
import { inList } from "../store/in-list.js";
import type { Sql } from "../store/sql.js";
import type { Narrow } from "../store/tables/columns.js";
import type { Row } from "../store/tables/tables.js";
import { markInterrupted } from "./task-errors.js";
import { fromRaw, type RawTask } from "./task-record.js";
import type { TaskRecord, TaskStore } from "./task-store.js";

/**
 * Tasks whose run is paused on an approval nobody has resumed yet (decided, its task is back in
 * progress, but its run goes on only once resumed): they were running nothing, so they are not lost.
 */
const PAUSED = " AND id NOT IN (SELECT task_id FROM approvals WHERE resumed_at IS NULL AND task_id IS NOT NULL)";

/** Which of `taskIds` have a run paused on an approval nobody has resumed yet. */
export async function pausedTasks(sql: Sql, taskIds: readonly string[]): Promise<Set<string>> {
  if (taskIds.length === 0) return new Set();
  const ids = inList(taskIds);
  const rows = await sql.all<Narrow<Pick<Row<"approvals">, "task_id">, { task_id: string }>>(
    `SELECT DISTINCT task_id FROM approvals WHERE resumed_at IS NULL AND task_id IN ${ids.sql}`,
    ids.params,
  );
  return new Set(rows.map((r) => r.task_id));
}

/** Ends the in-progress run tasks of gone nodes; resolves with how many. */
export async function endLostRunTasks(store: TaskStore, live: readonly string[]): Promise<number> {
  const gone = ownerGone("run_node", live);
  const lost = await store.sql.all<Pick<RawTask, "id">>(
    `SELECT id FROM tasks WHERE kind = 'run' AND status = 'in_progress' AND ${gone.sql}${PAUSED} ORDER BY seq`,
    gone.params,
  );
  const restart = store.sql.dialect === "sqlite";
  for (const { id } of lost) {
    await markInterrupted(
      store,
      id,
      restart
        ? {
            message: "the server restarted while this task ran (its process ended)",
            latest: "interrupted: the server restarted",
            timeline: "interrupted: the server restarted",
          }
        : {
            code: "node_lost",
            message: "the node running this task stopped renewing its lease (it died or lost the database)",
            latest: "node lost: its node stopped renewing its lease",
            timeline: "node lost: the node running it stopped renewing its lease",
          },
    );
  }
  return lost.length;
}

/** Claims the queued run tasks of gone nodes for `node`, oldest first. */
export async function claimQueuedRunTasks(sql: Sql, node: string, live: readonly string[]): Promise<TaskRecord[]> {
  const gone = ownerGone("run_node", live);
  const rows = await sql.all<RawTask>(
    `UPDATE tasks SET run_node = ? WHERE id IN (
       SELECT id FROM tasks WHERE kind = 'run' AND status = 'todo' AND ${gone.sql}${skipLocked(sql)}
     ) RETURNING *`,
    [node, ...gone.params],
  );
  return rows.map(fromRaw).sort((a, b) => a.createdAt - b.createdAt);
}
