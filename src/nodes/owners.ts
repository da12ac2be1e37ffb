/**
 * Which nodes still own their work. A run task, an agent run or a queued prompt names the node
 * holding it; when that node is gone, another one recovers the work. "Gone" is decided the same
 * way for both stores: on SQLite the single-writer lock makes this process the only node alive
 * (whatever an earlier process left belongs to a dead one); on PostgreSQL a node is alive while
 * its heartbeat is within its lease.
 */
import type { Sql, SqlValue } from "../store/sql.js";
import type { Row } from "../store/tables/tables.js";

/** The nodes that count as alive now, this one always among them. */
export async function liveNodes(sql: Sql, self: string, now = Date.now()): Promise<string[]> {
  if (sql.dialect === "sqlite") return [self];
  const rows = await sql.all<Pick<Row<"nodes">, "node">>(
    "SELECT node FROM nodes WHERE last_heartbeat + lease_ms >= ?",
    [now],
  );
  return [...new Set([self, ...rows.map((r) => r.node)])];
}

/**
 * A condition true when `column` names no live node (or no node at all: rows written before
 * nodes were recorded), with its parameters. `column` comes from code, never from a caller.
 */
export function ownerGone(column: string, live: readonly string[]): { sql: string; params: SqlValue[] } {
  return { sql: `(${column} IS NULL OR ${column} NOT IN (${live.map(() => "?").join(", ")}))`, params: [...live] };
}

/** `FOR UPDATE SKIP LOCKED` where the engine has it: rows another node is claiming are left to it. */
export function skipLocked(sql: Sql): string {
  return sql.dialect === "postgres" ? " FOR UPDATE SKIP LOCKED" : "";
}
