/**
 * Schedules and firings on the storage interface (SQLite or PostgreSQL, the same SQL). The two
 * writes that decide who fires a due time are here: `advance` (a compare-and-set of the
 * schedule's next unhandled due time) and `insertFiring` (the (schedule_id, firing_at) primary
 * key, ON CONFLICT DO NOTHING). Outcome changes are compare-and-sets on the outcome too, so two
 * nodes never both end one firing.
 */
import type { BashResult } from "../bash/bash-schema.js";
import type { Sql } from "../store/sql.js";
import type { Narrow } from "../store/tables/columns.js";
import type { Row } from "../store/tables/tables.js";
import type { Firing, FiringKind, FiringOutcome, ScheduleSpec } from "./schedule-schema.js";

/** A schedule row. */
export type ScheduleRow = Row<"schedules">;

/** A schedule as the services use it (spec parsed). */
export interface ScheduleRecord {
  id: string;
  name: string;
  version: number;
  spec: ScheduleSpec;
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
  dueAt: number | null;
  watchFrom: number;
  lastStartedDue: number | null;
  lastOkAt: number | null;
  consecutiveFailures: number;
}

type FiringRow = Row<"schedule_firings">;

/** Outcomes of a firing whose work has not ended (or not started). */
export const ACTIVE_OUTCOMES: readonly FiringOutcome[] = ["pending", "running", "overdue"];
const ACTIVE_SQL = "('pending', 'running', 'overdue')";

function toRecord(r: ScheduleRow): ScheduleRecord {
  return {
    id: r.id,
    name: r.name,
    version: Number(r.version),
    spec: JSON.parse(r.spec) as ScheduleSpec,
    enabled: Number(r.enabled) === 1,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    dueAt: r.due_at === null ? null : Number(r.due_at),
    watchFrom: Number(r.watch_from),
    lastStartedDue: r.last_started_due === null ? null : Number(r.last_started_due),
    lastOkAt: r.last_ok_at === null ? null : Number(r.last_ok_at),
    consecutiveFailures: Number(r.consecutive_failures),
  };
}

function toFiring(r: FiringRow): Firing {
  return {
    scheduleId: r.schedule_id,
    firingAt: Number(r.firing_at),
    kind: r.kind as FiringKind,
    outcome: r.outcome as FiringOutcome,
    reason: r.reason,
    taskId: r.task_id,
    result: r.result === null ? null : (JSON.parse(r.result) as BashResult),
    node: r.node,
    startedAt: r.started_at === null ? null : Number(r.started_at),
    endedAt: r.ended_at === null ? null : Number(r.ended_at),
    overdueAt: r.overdue_at === null ? null : Number(r.overdue_at),
  };
}

/** A new firing row. */
export interface NewFiring {
  scheduleId: string;
  firingAt: number;
  kind: FiringKind;
  outcome: FiringOutcome;
  reason: string | null;
  node: string | null;
  /** Set when the firing is recorded `running` at once. */
  startedAt?: number;
}

/** Schedules and firings. */
export class ScheduleStore {
  constructor(readonly sql: Sql) {}

  /** Runs `fn` in one transaction. */
  tx<T>(fn: (store: ScheduleStore) => Promise<T>): Promise<T> {
    return this.sql.tx((q) => fn(new ScheduleStore(q)));
  }

  async insert(s: ScheduleRecord): Promise<void> {
    await this.sql.run(
      `INSERT INTO schedules (id, name, version, spec, enabled, created_at, updated_at, due_at, watch_from, consecutive_failures)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0)`,
      [
        s.id,
        s.name,
        s.version,
        JSON.stringify(s.spec),
        s.enabled ? 1 : 0,
        s.createdAt,
        s.updatedAt,
        s.dueAt,
        s.watchFrom,
      ],
    );
  }

  async count(): Promise<number> {
    const row = await this.sql.get<{ n: number }>("SELECT COUNT(*) AS n FROM schedules");
    return Number(row?.n ?? 0);
  }

  async find(id: string): Promise<ScheduleRecord | undefined> {
    const row = await this.sql.get<ScheduleRow>("SELECT * FROM schedules WHERE id = ?", [id]);
    return row ? toRecord(row) : undefined;
  }

  /** A page of schedules, oldest first, after the cursor `(createdAt, id)`. */
  async list(enabled: boolean | undefined, limit: number, after?: { createdAt: number; id: string }) {
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (enabled !== undefined) {
      where.push("enabled = ?");
      params.push(enabled ? 1 : 0);
    }
    if (after) {
      where.push("(created_at > ? OR (created_at = ? AND id > ?))");
      params.push(after.createdAt, after.createdAt, after.id);
    }
    const text = `SELECT * FROM schedules ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY created_at, id LIMIT ?`;
    return (await this.sql.all<ScheduleRow>(text, [...params, limit])).map(toRecord);
  }

  /**
   * The schedule, locked for this transaction; undefined when it is gone or (PostgreSQL) another
   * node holds it (it is handling the same due time: this node leaves it to that one).
   */
  async lockForClaim(id: string): Promise<ScheduleRecord | undefined> {
    const lock = this.sql.dialect === "postgres" ? " FOR UPDATE SKIP LOCKED" : "";
    const row = await this.sql.get<ScheduleRow>(`SELECT * FROM schedules WHERE id = ?${lock}`, [id]);
    return row ? toRecord(row) : undefined;
  }

  /** Schedules a timer must watch: enabled, with a due time. */
  async watched(): Promise<{ id: string; dueAt: number }[]> {
    const rows = await this.sql.all<Narrow<Pick<ScheduleRow, "id" | "due_at">, { due_at: number }>>(
      "SELECT id, due_at FROM schedules WHERE enabled = 1 AND due_at IS NOT NULL",
    );
    return rows.map((r) => ({ id: r.id, dueAt: Number(r.due_at) }));
  }

  /** Writes a changed schedule at `expectedVersion` (version + 1); false when another change got there first. */
  async write(s: ScheduleRecord, expectedVersion: number): Promise<boolean> {
    const r = await this.sql.run(
      `UPDATE schedules SET name = ?, version = ?, spec = ?, enabled = ?, updated_at = ?, due_at = ?, watch_from = ?
       WHERE id = ? AND version = ?`,
      [
        s.name,
        s.version,
        JSON.stringify(s.spec),
        s.enabled ? 1 : 0,
        s.updatedAt,
        s.dueAt,
        s.watchFrom,
        s.id,
        expectedVersion,
      ],
    );
    return r.changes === 1;
  }

  async delete(id: string): Promise<boolean> {
    await this.sql.run("DELETE FROM schedule_firings WHERE schedule_id = ?", [id]);
    return (await this.sql.run("DELETE FROM schedules WHERE id = ?", [id])).changes === 1;
  }

  /**
   * Moves the next unhandled due time from `from` to `to`, if no other node did and the
   * schedule is still enabled: the claim on every due time in between.
   */
  async advance(id: string, from: number, to: number | null, startedDue: number | null): Promise<boolean> {
    const r = await this.sql.run(
      `UPDATE schedules SET due_at = ?, last_started_due = COALESCE(?, last_started_due)
       WHERE id = ? AND due_at = ? AND enabled = 1`,
      [to, startedDue, id, from],
    );
    return r.changes === 1;
  }

  /** Records that the firing of `due` started (health: no longer late). */
  async started(id: string, due: number): Promise<void> {
    await this.sql.run(
      "UPDATE schedules SET last_started_due = ? WHERE id = ? AND (last_started_due IS NULL OR last_started_due < ?)",
      [due, id, due],
    );
  }

  /** Records a firing's final outcome in the schedule's health counters. */
  async ended(id: string, ok: boolean, at: number): Promise<void> {
    if (ok) await this.sql.run("UPDATE schedules SET last_ok_at = ?, consecutive_failures = 0 WHERE id = ?", [at, id]);
    else await this.sql.run("UPDATE schedules SET consecutive_failures = consecutive_failures + 1 WHERE id = ?", [id]);
  }

  /** Inserts a firing; undefined when that due time has one already. */
  async insertFiring(f: NewFiring, now: number): Promise<Firing | undefined> {
    const row = await this.sql.get<FiringRow>(
      `INSERT INTO schedule_firings (schedule_id, firing_at, kind, outcome, reason, node, started_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING *`,
      [f.scheduleId, f.firingAt, f.kind, f.outcome, f.reason, f.node, f.startedAt ?? null, now],
    );
    return row ? toFiring(row) : undefined;
  }

  async firing(scheduleId: string, firingAt: number): Promise<Firing | undefined> {
    const row = await this.sql.get<FiringRow>(
      "SELECT * FROM schedule_firings WHERE schedule_id = ? AND firing_at = ?",
      [scheduleId, firingAt],
    );
    return row ? toFiring(row) : undefined;
  }

  /** Firings newest first, due before `before`. */
  async firings(scheduleId: string, limit: number, before?: number): Promise<Firing[]> {
    const rows = await this.sql.all<FiringRow>(
      `SELECT * FROM schedule_firings WHERE schedule_id = ? ${before !== undefined ? "AND firing_at < ?" : ""}
       ORDER BY firing_at DESC LIMIT ?`,
      before !== undefined ? [scheduleId, before, limit] : [scheduleId, limit],
    );
    return rows.map(toFiring);
  }

  /** The schedule's firings whose work has not ended, oldest first. */
  async active(scheduleId: string): Promise<Firing[]> {
    const rows = await this.sql.all<FiringRow>(
      `SELECT * FROM schedule_firings WHERE schedule_id = ? AND outcome IN ${ACTIVE_SQL} ORDER BY firing_at`,
      [scheduleId],
    );
    return rows.map(toFiring);
  }

  /** Every firing whose work has not ended (restart and lost-node recovery). */
  async allActive(): Promise<Firing[]> {
    const rows = await this.sql.all<FiringRow>(`SELECT * FROM schedule_firings WHERE outcome IN ${ACTIVE_SQL}`);
    return rows.map(toFiring);
  }

  /**
   * Sets a firing's outcome (and the given fields) when its outcome is one of `from`; returns
   * the firing as written, or undefined when it had moved on.
   */
  async setOutcome(
    scheduleId: string,
    firingAt: number,
    from: readonly FiringOutcome[],
    to: FiringOutcome,
    fields: {
      reason?: string | null;
      taskId?: string;
      result?: BashResult;
      node?: string;
      startedAt?: number;
      endedAt?: number;
      overdueAt?: number;
    },
  ): Promise<Firing | undefined> {
    const sets = ["outcome = ?", "updated_at = ?"];
    const params: (string | number | null)[] = [to, Date.now()];
    const put = (column: keyof FiringRow, value: string | number | null | undefined) => {
      if (value === undefined) return;
      sets.push(`${column} = ?`);
      params.push(value);
    };
    put("reason", fields.reason);
    put("task_id", fields.taskId);
    put("result", fields.result === undefined ? undefined : JSON.stringify(fields.result));
    put("node", fields.node);
    put("started_at", fields.startedAt);
    put("ended_at", fields.endedAt);
    put("overdue_at", fields.overdueAt);
    const row = await this.sql.get<FiringRow>(
      `UPDATE schedule_firings SET ${sets.join(", ")} WHERE schedule_id = ? AND firing_at = ? AND outcome IN (${from.map(() => "?").join(", ")}) RETURNING *`,
      [...params, scheduleId, firingAt, ...from],
    );
    return row ? toFiring(row) : undefined;
  }

  /** Keeps the newest `keep` firings of a schedule (and every one still active). */
  async trim(scheduleId: string, keep: number): Promise<number> {
    const edge = await this.sql.get<Pick<FiringRow, "firing_at">>(
      "SELECT firing_at FROM schedule_firings WHERE schedule_id = ? ORDER BY firing_at DESC LIMIT 1 OFFSET ?",
      [scheduleId, keep],
    );
    if (!edge) return 0;
    const r = await this.sql.run(
      `DELETE FROM schedule_firings WHERE schedule_id = ? AND firing_at <= ? AND outcome NOT IN ${ACTIVE_SQL}`,
      [scheduleId, Number(edge.firing_at)],
    );
    return r.changes;
  }
}
