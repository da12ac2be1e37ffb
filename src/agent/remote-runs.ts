/**
 * What other nodes are running. Each node's run scheduler knows only its own jobs; with several
 * nodes on one database a session may be running on another one, and a client behind a load
 * balancer asks whichever node it reached. The runs table names each run's node, so a run
 * recorded as running on a live node is the truth for every node.
 */
import { liveNodes, ownerGone } from "../nodes/owners.js";
import { inList } from "../store/in-list.js";
import type { Sql } from "../store/sql.js";
import type { Narrow } from "../store/tables/columns.js";
import type { Row } from "../store/tables/tables.js";

/** A run (or compaction) in progress on another live node. */
export interface RemoteRun {
  runId: string;
  sessionId: string;
  taskId: string | null;
  kind: "agent" | "compact";
  node: string;
}

/** What the statement reads of a run (its node is set: it is running on a live node). */
type RunRow = Narrow<
  Pick<Row<"runs">, "id" | "session_id" | "task_id" | "kind" | "node">,
  { kind: RemoteRun["kind"]; node: string }
>;

/**
 * Runs in progress on other live nodes, newest first: of `sessionIds` when given, else all.
 * Always empty on SQLite, where this process is the only node.
 */
export async function remoteRuns(sql: Sql, self: string, sessionIds?: readonly string[]): Promise<RemoteRun[]> {
  if (sql.dialect === "sqlite" || sessionIds?.length === 0) return [];
  const live = (await liveNodes(sql, self)).filter((n) => n !== self);
  if (live.length === 0) return [];
  // Live and not this node: the complement of "gone" over the other live nodes.
  const others = ownerGone("node", live);
  const sessions = sessionIds && inList(sessionIds);
  const bySession = sessions ? ` AND session_id IN ${sessions.sql}` : "";
  const rows = await sql.all<RunRow>(
    `SELECT id, session_id, task_id, kind, node FROM runs
      WHERE status = 'running' AND NOT ${others.sql}${bySession} ORDER BY started_at DESC`,
    [...others.params, ...(sessions?.params ?? [])],
  );
  return rows.map((r) => ({ runId: r.id, sessionId: r.session_id, taskId: r.task_id, kind: r.kind, node: r.node }));
}
