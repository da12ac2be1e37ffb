/** list_tasks: filters, counts per status, newest first, cursor paging. */
import { ClawError } from "../core/errors.js";
import type { Sql } from "../store/sql.js";
import { Where } from "../store/where.js";
import type { ListTasksArgs, ListTasksResult } from "./task-inputs.js";
import { fromRaw, type TaskRecord } from "./task-record.js";
import { TASK_STATUSES, type TaskStatus } from "./task-schema.js";
import { OPEN, TERMINAL } from "./task-status.js";
import { toRow } from "./task-view.js";

function decodeCursor(cursor: string): number {
  const seq = /^c(\d{1,15})$/.exec(cursor)?.[1];
  if (seq === undefined)
    throw new ClawError("invalid_args", "cursor is not one this server returned; pass nextCursor unchanged", {
      issues: [{ path: "cursor", message: "unknown cursor" }],
    });
  return Number(seq);
}

/** Runs a list query. */
export async function listTasks(sql: Sql, args: ListTasksArgs): Promise<ListTasksResult> {
  const scope = new Where().eq("project", args.project).eq("session_key", args.sessionKey).eq("kind", args.kind);

  const counts: Record<string, number> = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0]));
  const countSql = `SELECT status, COUNT(*) AS n FROM tasks ${scope.sql} GROUP BY status`;
  for (const r of await sql.all<{ status: string; n: number }>(countSql, scope.params)) counts[r.status] = r.n;

  let statuses: TaskStatus[] | undefined =
    args.status === undefined ? undefined : Array.isArray(args.status) ? args.status : [args.status];
  if (args.active !== undefined) {
    const allowed = args.active ? OPEN : [...TERMINAL];
    statuses = (statuses ?? [...TASK_STATUSES]).filter((s) => allowed.includes(s));
  }
  const where = scope.clone();
  if (statuses) {
    if (statuses.length === 0) return { tasks: [], counts, nextCursor: null };
    where.add(`status IN (${statuses.map(() => "?").join(", ")})`, ...statuses);
  }
  if (args.cursor !== undefined) where.add("seq < ?", decodeCursor(args.cursor));
  const text = `SELECT * FROM tasks ${where.sql} ORDER BY seq DESC LIMIT ?`;
  const rows: TaskRecord[] = (
    await sql.all<Parameters<typeof fromRaw>[0]>(text, [...where.params, args.limit + 1])
  ).map(fromRaw);
  const more = rows.length > args.limit;
  const page = more ? rows.slice(0, args.limit) : rows;
  const now = Date.now();
  return { tasks: page.map((t) => toRow(t, now)), counts, nextCursor: more ? `c${page[page.length - 1]!.seq}` : null };
}
