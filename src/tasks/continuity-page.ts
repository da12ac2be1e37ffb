/**
 * continuity_context's lists (open tasks, recent handoffs, recent memory) as one byte-bounded
 * page: the lists share one budget, filled in that order; each list gives at most `limit` items
 * over all pages, and a cursor continues the lists the budget cut short. Sizes are read first,
 * then only the rows that fit, so 100 notes of 10 MiB never sit in memory at once.
 */
import { z } from "zod";
import { octetsOf, PageBudget } from "../core/byte-page.js";
import { ClawError } from "../core/errors.js";
import { inList } from "../store/in-list.js";
import type { Sql, SqlValue } from "../store/sql.js";
import { type MemoryEntry, memoryEntryOf, type RawMemory } from "./memory-service.js";
import { ROW_TEXT } from "./task-list.js";
import { fromRaw, type RawTask, type TaskRecord } from "./task-record.js";
import { OPEN } from "./task-status.js";

/** Where one list stands: the sort key of its last item sent (null: none yet) and how many were sent. */
const listStateSchema = z.object({ after: z.array(z.number()).nullable(), taken: z.number().int().min(0) }).nullable();
const cursorSchema = z.object({ t: listStateSchema, h: listStateSchema, m: listStateSchema }).strict();
type ListState = z.infer<typeof listStateSchema>;
type Cursor = z.infer<typeof cursorSchema>;

const START: Cursor = { t: { after: null, taken: 0 }, h: { after: null, taken: 0 }, m: { after: null, taken: 0 } };

/** Bytes counted per item on top of its text for the other fields and the JSON around them. */
const ITEM_OVERHEAD = 256;

function decodeCursor(cursor: string | undefined): Cursor {
  if (cursor === undefined) return START;
  try {
    return cursorSchema.parse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
  } catch {
    throw new ClawError("invalid_args", "cursor is not one this server returned; pass nextCursor unchanged", {
      issues: [{ path: "cursor", message: "unknown cursor" }],
    });
  }
}

/** One list: its rows, newest first by `keys` (the last one unique), and the SQL of an item's size. */
interface ListSpec {
  from: string;
  where: string;
  params: SqlValue[];
  keys: [string, ...string[]];
  size: string;
  columns: string;
}

/** `keys` strictly after `after` in descending order: `a < ? OR (a = ? AND b < ?)`. */
function keyset(keys: readonly string[], after: readonly number[]): { sql: string; params: number[] } {
  const parts: string[] = [];
  const params: number[] = [];
  for (let i = 0; i < keys.length; i++) {
    const eq = keys.slice(0, i).map((k) => `${k} = ?`);
    parts.push(`(${[...eq, `${keys[i]} < ?`].join(" AND ")})`);
    params.push(...after.slice(0, i + 1));
  }
  return { sql: `(${parts.join(" OR ")})`, params };
}

async function pageOf<R>(
  sql: Sql,
  budget: PageBudget,
  spec: ListSpec,
  state: ListState,
  limit: number,
): Promise<{ rows: R[]; state: ListState }> {
  if (state === null) return { rows: [], state };
  const after = state.after === null ? { sql: "", params: [] } : keyset(spec.keys, state.after);
  const where = `${spec.where}${after.sql ? ` AND ${after.sql}` : ""}`;
  const order = spec.keys.map((k) => `${k} DESC`).join(", ");
  const remaining = limit - state.taken;
  const sizes = await sql.all<Record<string, number>>(
    `SELECT ${spec.keys.join(", ")}, ${spec.size} AS size FROM ${spec.from} WHERE ${where} ORDER BY ${order} LIMIT ?`,
    [...spec.params, ...after.params, remaining + 1],
  );
  const n = budget.take(
    sizes.map((r) => Number(r.size)),
    remaining,
    ITEM_OVERHEAD,
  );
  const unique = spec.keys.at(-1)!;
  const chosen = sizes.slice(0, n).map((r) => Number(r[unique]));
  const list = inList(chosen);
  const rows =
    n === 0
      ? []
      : await sql.all<R & Record<string, unknown>>(
          `SELECT ${spec.columns} FROM ${spec.from} WHERE ${unique} IN ${list.sql}`,
          list.params,
        );
  const byKey = new Map(rows.map((r) => [Number(r[unique]), r]));
  const ordered = chosen.map((k) => byKey.get(k)).filter((r) => r !== undefined);
  const taken = state.taken + n;
  const done = taken >= limit || sizes.length <= n;
  const last = sizes[n - 1];
  return {
    rows: ordered,
    state: done ? null : { after: last ? spec.keys.map((k) => Number(last[k])) : state.after, taken },
  };
}

/** What continuity_context lists, one page of it. */
export interface ContinuityPage {
  openTasks: TaskRecord[];
  handoffTasks: TaskRecord[];
  recentMemory: MemoryEntry[];
  /** Pass as `cursor` to continue; null when every list is complete. */
  nextCursor: string | null;
}

/** Reads one page of continuity_context's lists within `maxBytes`. */
export async function continuityPage(
  sql: Sql,
  args: { project: string; sessionKey?: string; limit: number; maxBytes: number; cursor?: string },
): Promise<ContinuityPage> {
  const cursor = decodeCursor(args.cursor);
  const budget = new PageBudget(args.maxBytes);
  const scope = args.sessionKey === undefined ? "project = ?" : "project = ? AND session_key = ?";
  const params: SqlValue[] = args.sessionKey === undefined ? [args.project] : [args.project, args.sessionKey];
  const open = await pageOf<RawTask>(
    sql,
    budget,
    {
      from: "tasks",
      where: `${scope} AND status IN (${OPEN.map(() => "?").join(", ")})`,
      params: [...params, ...OPEN],
      keys: ["seq"],
      size: octetsOf(ROW_TEXT),
      columns: "*",
    },
    cursor.t,
    args.limit,
  );
  const handoffs = await pageOf<RawTask>(
    sql,
    budget,
    {
      from: "tasks",
      where: `${scope} AND handoff IS NOT NULL`,
      params,
      keys: ["updated_at", "seq"],
      size: octetsOf(["title", "handoff"]),
      columns: "*",
    },
    cursor.h,
    args.limit,
  );
  const memory = await pageOf<RawMemory>(
    sql,
    budget,
    {
      from: "memory",
      where: scope,
      params,
      keys: ["created_at", "rowid"],
      size: octetsOf(["text", "tags"]),
      columns: "rowid, id, text, tags, session_key, created_at",
    },
    cursor.m,
    args.limit,
  );
  const next: Cursor = { t: open.state, h: handoffs.state, m: memory.state };
  const more = next.t !== null || next.h !== null || next.m !== null;
  return {
    openTasks: open.rows.map(fromRaw),
    handoffTasks: handoffs.rows.map(fromRaw),
    recentMemory: memory.rows.map(memoryEntryOf),
    nextCursor: more ? Buffer.from(JSON.stringify(next)).toString("base64url") : null,
  };
}
