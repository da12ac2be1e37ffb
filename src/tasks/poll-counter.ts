/**
 * check_task's poll counts on PostgreSQL, the counts of several calls in one statement. Every
 * check_task counts itself and reads its task with one `UPDATE … RETURNING`; on PostgreSQL each
 * statement is a round trip that costs both sides more than the row's work (bench/README.md).
 * Calls that come in one turn of the event loop go together (WhileBusy, overlapping: the next
 * turn's go at once, and the database's write groups send together what comes while a group
 * is on its way): one statement for all of them, each task's count raised by its number of
 * calls. Each call still gets its own poll number (handed out in arrival order) and the row as
 * that statement left it.
 */
import { WhileBusy } from "../core/while-busy.js";
import type { Sql } from "../store/sql.js";
import type { RawTask } from "./task-record.js";

/** Counts one call on task `id` with a statement of its own: its row, or undefined when it does not exist. */
export const countOne = (sql: Sql, id: string) =>
  sql.get<RawTask>("UPDATE tasks SET poll_count = poll_count + 1 WHERE id = ? RETURNING *", [id]);

// The tasks and their calls as JSON: one parameter, whatever the batch's size.
const MANY = `UPDATE tasks AS t SET poll_count = t.poll_count + c.n
  FROM json_to_recordset(CAST(? AS json)) AS c(id text, n bigint)
  WHERE t.id = c.id RETURNING t.*`;

/** Counts polls in batches; a task that does not exist gets `undefined`. */
export class PollCounter {
  private readonly batches = new WhileBusy<string, RawTask | undefined>((ids) => this.send(ids), {
    overlap: true,
  });

  constructor(private readonly sql: Sql) {}

  /** Counts one call on task `id`: the task's row with the call's own count. */
  count(id: string): Promise<RawTask | undefined> {
    return this.batches.call(id);
  }

  private async send(ids: readonly string[]): Promise<(RawTask | undefined)[]> {
    if (ids.length === 1) return [await countOne(this.sql, ids[0]!)];
    const perTask = new Map<string, number>();
    for (const id of ids) perTask.set(id, (perTask.get(id) ?? 0) + 1);
    const rows = await this.sql.all<RawTask>(MANY, [JSON.stringify([...perTask].map(([id, n]) => ({ id, n })))]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    // A row says the count after all of the batch's calls on it; each call gets its own.
    const handedOut = new Map<string, number>();
    return ids.map((id) => {
      const row = byId.get(id);
      if (!row) return undefined;
      const k = (handedOut.get(id) ?? 0) + 1;
      handedOut.set(id, k);
      return { ...row, poll_count: Number(row.poll_count) - perTask.get(id)! + k };
    });
  }
}
