/**
 * Telemetry rows written in batches: every row recorded in one turn of the event loop goes into
 * one multi-row INSERT on the next turn. Written at once, each record was a statement and a
 * commit of its own, run synchronously on SQLite in the turn that answers the call (on the path
 * of every task call's answer, and of a check_task woken by a change); batched, the answer goes
 * out first and a busy server commits once per turn instead of once per call.
 */
import { fixedChunks } from "../store/fixed-chunks.js";
import type { Sql, SqlValue } from "../store/sql.js";
import type { Row } from "../store/tables/tables.js";

/** The telemetry columns in insert order; each row the writer takes has one value per column. */
export const TELEMETRY_COLUMNS = [
  "ts",
  "op",
  "task_id",
  "poll_number",
  "wait_asked_ms",
  "waited_ms",
  "status",
  "duration_ms",
  "duplicate",
  "terminal_retrieval",
  "error_code",
  "usage",
] as const satisfies readonly (keyof Row<"telemetry">)[];

/** Rows per statement at most: bounds a statement's parameters. */
const CHUNK = 64;

/**
 * The statement sizes on SQLite, largest first: a batch goes as chunks of 64, then 16, 4 and 1
 * rows. SQLite keeps every statement text it prepared, and a statement for each batch size that
 * occurred (up to 64 of them) held ~4 MiB of native memory for good; four sizes hold ~0.2.
 * PostgreSQL keeps its named statements on the server, not in this process, and there each
 * statement more is a round trip more: any size up to CHUNK.
 */
const SQLITE_CHUNKS = [64, 16, 4, 1] as const;

/** Splits `rows` into the chunks written as one statement each (PostgreSQL's last one shorter). */
function chunksOf<T>(rows: T[], dialect: Sql["dialect"]): T[][] {
  const chunks: T[][] = [];
  let from = 0;
  for (const n of fixedChunks(rows.length, dialect === "sqlite" ? SQLITE_CHUNKS : [CHUNK])) {
    chunks.push(rows.slice(from, from + n));
    from += n;
  }
  return chunks;
}

function insertOf(rows: number): string {
  const one = `(${TELEMETRY_COLUMNS.map(() => "?").join(", ")})`;
  return `INSERT INTO telemetry (${TELEMETRY_COLUMNS.join(", ")}) VALUES ${Array(rows).fill(one).join(", ")}`;
}

/** Queues telemetry rows and writes them a turn later, in order, one batch at a time. */
export class TelemetryWriter {
  private queue: SqlValue[][] = [];
  private scheduled = false;
  private done: Promise<void> = Promise.resolve();

  constructor(private readonly sql: Sql) {}

  /** Queues one row (values in TELEMETRY_COLUMNS order). Failures are dropped: telemetry never fails a request. */
  add(row: SqlValue[]): void {
    this.queue.push(row);
    if (this.scheduled) return;
    this.scheduled = true;
    const previous = this.done;
    this.done = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      await previous; // a network store may still be writing the batch before
      this.scheduled = false;
      const rows = this.queue;
      this.queue = [];
      const write = (chunk: SqlValue[][]) =>
        this.sql.run(insertOf(chunk.length), chunk.flat()).catch(() => {
          // a full disk or a closing database: the record is lost, the request was answered
        });
      const chunks = chunksOf(rows, this.sql.dialect);
      // SQLite: issued together, they run in this turn and share one commit. PostgreSQL: one
      // after the other, holding one pooled connection at a time.
      if (this.sql.dialect === "sqlite") await Promise.all(chunks.map(write));
      else for (const chunk of chunks) await write(chunk);
    });
  }

  /** Resolves once every row queued so far is written (or dropped). */
  settled(): Promise<void> {
    return this.done;
  }
}
