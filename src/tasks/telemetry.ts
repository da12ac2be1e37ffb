/**
 * Request telemetry of the task operations, kept so that how agents actually poll and retry
 * (too often, too long, duplicates) can be measured and the defaults tuned: op, task id, poll number,
 * wait asked and waited, status returned, duration, duplicate detection, terminal retrieval,
 * error code. Never the prompt text. Stored in the `telemetry` table, readable with
 * `task_telemetry`, and written as JSON lines to the log when CLAW_TELEMETRY_LOG=1.
 */
import { z } from "zod";
import { type Usage, usageSchema } from "../agent/session-schemas.js";
import { toClawError } from "../core/errors.js";
import type { Sql } from "../store/sql.js";
import type { Row } from "../store/tables/tables.js";
import { Where } from "../store/where.js";
import { TelemetryWriter } from "./telemetry-writer.js";

/** One telemetry record. */
export const telemetryRecordSchema = z.object({
  id: z.number().int(),
  ts: z.number().describe("When the request ended, epoch ms"),
  op: z.string(),
  taskId: z.string().nullable(),
  pollNumber: z.number().int().nullable().describe("check_task: this call's poll number"),
  waitAskedMs: z.number().int().nullable().describe("check_task: the wait asked for, after clamping"),
  waitedMs: z.number().int().nullable(),
  status: z.string().nullable().describe("Task status returned"),
  durationMs: z.number().int(),
  duplicate: z.boolean().describe("An idempotency or receipt replay"),
  terminalRetrieval: z.boolean().describe("The call returned a terminal status"),
  errorCode: z.string().nullable(),
  usage: usageSchema.nullable().describe("task_run: tokens and cost of the task's run, as the provider reported them"),
});
export type TelemetryRecord = z.infer<typeof telemetryRecordSchema>;

/** What a call's record notes besides op, duration and error: the record's fields, each optional. */
export const telemetryNoteSchema = telemetryRecordSchema
  .pick({
    taskId: true,
    pollNumber: true,
    waitAskedMs: true,
    waitedMs: true,
    status: true,
    duplicate: true,
    terminalRetrieval: true,
  })
  .partial();
/** Inferred from its schema. */
export type TelemetryNote = z.infer<typeof telemetryNoteSchema>;

/** The telemetry table. */
export class TaskTelemetry {
  /** Rows not yet written: a list from this process waits for them (it sees its own records). */
  private readonly writer: TelemetryWriter;

  constructor(
    private readonly sql: Sql,
    /** Where JSON lines go when enabled; undefined disables the log. */
    private readonly logLine?: (line: string) => void,
  ) {
    this.writer = new TelemetryWriter(sql);
  }

  /** Resolves once every record made so far is written (shutdown waits for it before the database closes). */
  settled(): Promise<void> {
    return this.writer.settled();
  }

  /** Times `fn`, then records one row; telemetry failures never fail the request. */
  async trace<T>(op: string, fn: (note: TelemetryNote) => Promise<T> | T): Promise<T> {
    const started = performance.now();
    const note: TelemetryNote = {};
    try {
      const result = await fn(note);
      this.record(op, note, performance.now() - started, null);
      return result;
    } catch (err) {
      this.record(op, note, performance.now() - started, toClawError(err).code);
      throw err;
    }
  }

  /** Records the end of a task's run (op `task_run`) with its usage. */
  recordRun(
    taskId: string,
    status: string,
    durationMs: number,
    usage: Usage | undefined,
    errorCode: string | null,
  ): void {
    this.record("task_run", { taskId, status }, durationMs, errorCode, usage);
  }

  private record(op: string, note: TelemetryNote, durationMs: number, errorCode: string | null, usage?: Usage): void {
    const row = {
      ts: Date.now(),
      op,
      taskId: note.taskId ?? null,
      pollNumber: note.pollNumber ?? null,
      waitAskedMs: note.waitAskedMs ?? null,
      waitedMs: note.waitedMs ?? null,
      status: note.status ?? null,
      durationMs: Math.round(durationMs),
      duplicate: note.duplicate ? 1 : 0,
      terminalRetrieval: note.terminalRetrieval ? 1 : 0,
      errorCode,
      usage: usage ? JSON.stringify(usage) : null,
    };
    // Queued, not written: the answer does not wait for its record (see telemetry-writer.ts);
    // `list` waits for the rows still queued.
    this.writer.add([
      row.ts,
      row.op,
      row.taskId,
      row.pollNumber,
      row.waitAskedMs,
      row.waitedMs,
      row.status,
      row.durationMs,
      row.duplicate,
      row.terminalRetrieval,
      row.errorCode,
      row.usage,
    ]);
    try {
      this.logLine?.(
        JSON.stringify({
          telemetry: true,
          ...row,
          duplicate: !!note.duplicate,
          terminalRetrieval: !!note.terminalRetrieval,
          usage: usage ?? null,
        }),
      );
    } catch {
      // a log that cannot be written must not fail the request either
    }
  }

  /** Newest records first, optionally of one task and/or one op. */
  async list(filter: { taskId?: string; op?: string; limit: number }): Promise<TelemetryRecord[]> {
    await this.writer.settled();
    const where = new Where().eq("task_id", filter.taskId).eq("op", filter.op);
    const text = `SELECT * FROM telemetry ${where.sql} ORDER BY id DESC LIMIT ?`;
    const rows = await this.sql.all<Row<"telemetry">>(text, [...where.params, filter.limit]);
    return rows.map((r) => ({
      id: r.id,
      ts: r.ts,
      op: r.op,
      taskId: r.task_id,
      pollNumber: r.poll_number,
      waitAskedMs: r.wait_asked_ms,
      waitedMs: r.waited_ms,
      status: r.status,
      durationMs: r.duration_ms,
      duplicate: r.duplicate === 1,
      terminalRetrieval: r.terminal_retrieval === 1,
      errorCode: r.error_code,
      usage: r.usage === null ? null : (JSON.parse(r.usage) as Usage),
    }));
  }
}
