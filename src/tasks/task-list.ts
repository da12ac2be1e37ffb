/** list_tasks: filters, counts per status, newest first, cursor paging. */
import { fitBytes, octetsOf } from "../core/byte-page.js";
import { ClawError } from "../core/errors.js";
import { inList } from "../store/in-list.js";
import type { Sql } from "../store/sql.js";
import { Where } from "../store/where.js";
import type { ListTasksArgs, ListTasksResult } from "./task-inputs.js";
import { fromRaw, type RawTask, type TaskRecord } from "./task-record.js";
import { TASK_STATUSES, type TaskStatus } from "./task-schema.js";
import { OPEN, TERMINAL } from "./task-status.js";
import { toRow } from "./task-view.js";

/** Columns of a task row whose text a client controls (the summary is cut to 500 characters in a row; counted whole). */
export const ROW_TEXT = ["title", "latest_update", "summary", "error", "handoff"];

/** Bytes counted per row on top of its text for the other fields and the JSON around them. */
const ROW_OVERHEAD = 512;

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
  for (const r of await sql.all<Pick<RawTask, "status"> & { n: number }>(countSql, scope.params))
    counts[r.status] = r.n;

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
  // Sizes first, then only the rows that fit: a page never loads text it will not send.
  const sizes = await sql.all<Pick<RawTask, "seq"> & { size: number }>(
    `SELECT seq, ${octetsOf(ROW_TEXT)} AS size FROM tasks ${where.sql} ORDER BY seq DESC LIMIT ?`,
    [...where.params, args.limit + 1],
  );
  const n = fitBytes(
    sizes.map((r) => Number(r.size)),
    args.maxBytes,
    args.limit,
    ROW_OVERHEAD,
  );
  const chosen = sizes.slice(0, n).map((r) => Number(r.seq));
  const list = inList(chosen);
  const rows: TaskRecord[] =
    n === 0
      ? []
      : (await sql.all<RawTask>(`SELECT * FROM tasks WHERE seq IN ${list.sql} ORDER BY seq DESC`, list.params)).map(
          fromRaw,
        );
  const more = sizes.length > n;
  const now = Date.now();
  return { tasks: rows.map((t) => toRow(t, now)), counts, nextCursor: more ? `c${chosen[n - 1]}` : null };
}
