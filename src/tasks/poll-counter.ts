/**
 * check_task's poll counts on PostgreSQL, the counts of several calls in one statement. Every
 * check_task counts itself and reads its task with one `UPDATE … RETURNING`; on PostgreSQL each
 * statement is a round trip that costs both sides more than the row's work (bench/README.md).
 * While one count is on its way, the calls that come meanwhile wait and then go together: one
 * statement for all of them, each task's count raised by its number of calls. Nothing waits
 * when no count is on its way, so a lone call costs what it did. Each call still gets its own
 * poll number (the counts are handed out in arrival order) and the row as that statement
 * left it.
 */
import type { Sql } from "../store/sql.js";
import type { RawTask } from "./task-record.js";

const ONE = "UPDATE tasks SET poll_count = poll_count + 1 WHERE id = ? RETURNING *";
// The tasks and their calls as JSON: one parameter, whatever the batch's size.
const MANY = `UPDATE tasks AS t SET poll_count = t.poll_count + c.n
  FROM json_to_recordset(CAST(? AS json)) AS c(id text, n bigint)
  WHERE t.id = c.id RETURNING t.*`;

interface Call {
  id: string;
  resolve(row: RawTask | undefined): void;
  reject(err: unknown): void;
}

/** Counts polls in batches; a task that does not exist gets `undefined`. */
export class PollCounter {
  private waiting: Call[] = [];
  private busy = false;

  constructor(private readonly sql: Sql) {}

  /** Counts one call on task `id`: the task's row with the call's own count. */
  count(id: string): Promise<RawTask | undefined> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ id, resolve, reject });
      if (!this.busy) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.busy = true;
    try {
      while (this.waiting.length > 0) {
        const calls = this.waiting;
        this.waiting = [];
        await this.send(calls);
      }
    } finally {
      this.busy = false;
    }
  }

  private async send(calls: Call[]): Promise<void> {
    const perTask = new Map<string, number>();
    for (const c of calls) perTask.set(c.id, (perTask.get(c.id) ?? 0) + 1);
    let rows: RawTask[];
    try {
      rows =
        calls.length === 1
          ? await this.sql.all<RawTask>(ONE, [calls[0]!.id])
          : await this.sql.all<RawTask>(MANY, [JSON.stringify([...perTask].map(([id, n]) => ({ id, n })))]);
    } catch (err) {
      for (const c of calls) c.reject(err);
      return;
    }
    const byId = new Map(rows.map((r) => [r.id, r]));
    // The row says the count after all of the batch's calls on it; each call gets its own.
    const handedOut = new Map<string, number>();
    for (const c of calls) {
      const row = byId.get(c.id);
      if (!row) {
        c.resolve(undefined);
        continue;
      }
      const k = (handedOut.get(c.id) ?? 0) + 1;
      handedOut.set(c.id, k);
      c.resolve({ ...row, poll_count: Number(row.poll_count) - perTask.get(c.id)! + k });
    }
  }
}
