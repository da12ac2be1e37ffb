/**
 * Tasks and receipts on the storage interface (SQLite or PostgreSQL, the same SQL). Every change
 * is one compare-and-set UPDATE that bumps `version` by one and appends to the bounded timeline
 * when asked: `patch` (at an expected version, or over whatever is stored) and `change` (read,
 * decide, write; decided again when another writer got there first). Waiters of the task are
 * woken after the write has committed.
 *
 * A change first decides from the record this process last wrote or read (a run task changes
 * ~5 times in a second, and re-reading and parsing the whole row each time was a fifth of its
 * statement time). That is safe because every change of a task's content bumps its version:
 * a record that is stale (another node, a rolled-back write) fails the compare-and-set, and the
 * change reads the row and decides again.
 */

import type { RunStart } from "../agent/run-rows.js";
import type { Session } from "../agent/session-schemas.js";
import type { SessionRead } from "../agent/session-store.js";
import { ClawError } from "../core/errors.js";
import type { CarriedWrite, Sql, SqlValue } from "../store/sql.js";
import type { Row } from "../store/tables/tables.js";
import { KnownTasks } from "./known-tasks.js";
import { countOne, PollCounter } from "./poll-counter.js";
import {
  afterWrite,
  COLUMNS,
  fromRaw,
  JSON_FIELDS,
  type NewTask,
  type RawTask,
  type TaskPatch,
  type TaskRecord,
  TIMELINE_LIMIT,
  WRITTEN_COLUMNS,
} from "./task-record.js";
import type { Receipt, TaskStatus, TimelineEntry } from "./task-schema.js";

export type { NewTask, TaskPatch, TaskRecord } from "./task-record.js";

const TASK = "SELECT * FROM tasks WHERE id = ?";
const INSERT_COLUMNS =
  "INSERT INTO tasks (id, kind, title, body, prompt, session_key, session_id, project, status, phase, version, model, provider, bus, created_at, updated_at, timeline, run_node, schedule_id, firing_at)";
/** The fields of a task that come from its session. */
type SessionFields = "sessionKey" | "sessionId" | "model" | "provider" | "bus";
/** Their columns in the session's row (`s` in insertInSession's statement). */
const SESSION_COLUMN: Record<SessionFields, string> = {
  sessionKey: "s.key",
  sessionId: "s.id",
  model: "s.model",
  provider: "s.provider",
  bus: "s.bus",
};

/**
 * The values of INSERT_COLUMNS for a new task at version 1 with its first timeline entry: SQL
 * (parameters, and `SESSION_COLUMN`s for the session's fields `t` leaves out) and parameters.
 */
function insertedRow(
  t: Omit<NewTask, SessionFields> & Partial<Pick<NewTask, SessionFields>>,
  text: string,
  runNode: string | null,
): { sql: string; params: SqlValue[] } {
  const now = Date.now();
  const entry: TimelineEntry = { at: now, version: 1, status: t.status, phase: t.phase, text };
  const sql: string[] = [];
  const params: SqlValue[] = [];
  const value = (v: SqlValue) => {
    sql.push("?");
    params.push(v);
  };
  const session = (field: SessionFields) => {
    const v = t[field];
    if (v === undefined) sql.push(SESSION_COLUMN[field]);
    else value(v);
  };
  for (const v of [t.id, t.kind, t.title, t.body, t.prompt]) value(v);
  session("sessionKey");
  session("sessionId");
  for (const v of [t.project, t.status, t.phase]) value(v);
  sql.push("1"); // version
  session("model");
  session("provider");
  session("bus");
  for (const v of [now, now, JSON.stringify([entry]), runNode, t.scheduleId ?? null, t.firingAt ?? null]) value(v);
  return { sql: sql.join(", "), params };
}
/** Attempts of a change that keeps losing to concurrent writers before it gives up. */
const CHANGE_ATTEMPTS = 20;

/** What a task's write may carry in its statement (see TaskStore.change). */
export interface Carry {
  /** The session lease's release. */
  release?: CarriedWrite;
  /** The run row's end. */
  runEnd?: CarriedWrite;
  start?: RunStart;
}

/** A change `TaskStore.change` makes: the fields, and the timeline line to append (if any). */
export interface TaskChange {
  patch: TaskPatch;
  /** One line, or several lines written at the same version. */
  timeline?: string | readonly string[];
}

/** Tasks and receipts. */
export class TaskStore {
  /** PostgreSQL, outside a transaction: check_task's counts, several in one statement. */
  private readonly polls: PollCounter | undefined;

  constructor(
    /** The executor: the database, or the transaction this store was opened in. */
    readonly sql: Sql,
    /** Called (in a microtask, after the write committed) with each accepted change: the task as written. */
    private readonly onChange: (task: TaskRecord) => void,
    /** Inside a transaction: the changes to announce once it commits. */
    private readonly pending?: TaskRecord[],
    /** Shared with the stores of its transactions; only committed records go in. */
    private readonly known = new KnownTasks(),
  ) {
    this.polls = sql.dialect === "postgres" && !pending ? new PollCounter(sql) : undefined;
  }

  /**
   * Runs `fn` in one transaction with a store bound to it; its changes are announced after the
   * commit (none when it rolls back). `fn` must use only the store it is given.
   */
  async tx<T>(fn: (store: TaskStore) => Promise<T>): Promise<T> {
    if (this.pending) return fn(this);
    const pending: TaskRecord[] = [];
    const result = await this.sql.tx((q) => {
      pending.length = 0; // a retried transaction starts over
      return fn(new TaskStore(q, this.onChange, pending, this.known));
    });
    for (const t of pending) this.announce(this.seen(t));
    return result;
  }

  /** The task, or undefined. */
  async find(id: string): Promise<TaskRecord | undefined> {
    const raw = await this.sql.get<RawTask>(TASK, [id]);
    if (!raw) return undefined;
    return this.seen(fromRaw(raw));
  }

  /** The task; `not_found` when there is none. */
  async get(id: string): Promise<TaskRecord> {
    const t = await this.find(id);
    if (!t) throw notFound(id);
    return t;
  }

  /** Inserts a task at version 1 with a first timeline entry; a run task names the node that holds it. */
  async insert(t: NewTask, text: string, runNode: string | null = null): Promise<TaskRecord> {
    const row = insertedRow(t, text, runNode);
    const raw = await this.sql.get<RawTask>(`${INSERT_COLUMNS} VALUES (${row.sql}) RETURNING *`, row.params);
    return this.accepted(fromRaw(raw!));
  }

  /**
   * PostgreSQL: inserts a task into the session `read` finds, reading that session in the same
   * statement (its columns key, id, model, provider and bus fill the task's). Returns the
   * session found (none: no such session) and the task, inserted only into a session found whose
   * provider is among `read.providers` when given. Otherwise as `insert`.
   */
  async insertInSession(
    t: Omit<NewTask, SessionFields>,
    text: string,
    runNode: string | null,
    read: SessionRead,
  ): Promise<{ task?: TaskRecord; session?: Session }> {
    const values = insertedRow(t, text, runNode);
    const providers = read.providers ?? [];
    const runnable = read.providers ? ` WHERE s.provider IN (${providers.map(() => "?").join(", ") || "NULL"})` : "";
    const raw = await this.sql.get<Partial<RawTask> & { session: unknown }>(
      `WITH s AS (${read.sql}), t AS (${INSERT_COLUMNS} SELECT ${values.sql} FROM s${runnable} RETURNING *)
        SELECT t.*, (SELECT row_to_json(s) FROM s) AS session FROM (VALUES (1)) AS one LEFT JOIN t ON true`,
      [...read.params, ...values.params, ...providers],
    );
    const { session, ...row } = raw!;
    return {
      task: row.id ? this.accepted(fromRaw(row as RawTask)) : undefined,
      session: session ? read.session(session) : undefined,
    };
  }

  /**
   * Applies `patch` and bumps the version. With `expectedVersion`, returns undefined (and
   * changes nothing) when the stored version differs; without it, a concurrent change is read
   * back and the patch applied over it. `timeline` appends one entry.
   */
  async patch(
    id: string,
    patch: TaskPatch,
    opts: { expectedVersion?: number; timeline?: string } = {},
  ): Promise<TaskRecord | undefined> {
    if (opts.expectedVersion === undefined) return this.change(id, () => ({ patch, timeline: opts.timeline }));
    const known = this.knownRecord(id);
    const current = known?.version === opts.expectedVersion ? known : await this.get(id);
    if (current.version !== opts.expectedVersion) return undefined;
    const written = await this.write(current, patch, opts.timeline);
    return written && this.accepted(written);
  }

  /**
   * Read, decide, write: `decide` gets the task as stored and returns the change to make
   * (undefined: none), which is written only if the task is still at that version; else it is
   * read again and `decide` asked again, so a decision never overwrites a change it did not
   * see. Returns the task as written, or undefined when there is no such task or no change.
   */
  async change(
    id: string,
    decide: (t: TaskRecord) => TaskChange | undefined,
    /**
     * What the write carries (PostgreSQL: data-modifying CTEs of its statement). `release` (a
     * session lease's release) and `runEnd` (a run row's end): run with the first write whether
     * or not its compare-and-set matches. `start`: a run's start, run with the write that
     * matches. Their `done` says whether they ran.
     */
    carry: Carry = {},
  ): Promise<TaskRecord | undefined> {
    // First from the record last seen here, without a read.
    const known = this.knownRecord(id);
    if (known) {
      const change = decide(known);
      const written = change && (await this.write(known, change.patch, change.timeline, carry));
      if (written) return this.accepted(written);
      // Stale, or nothing to change in what was seen: decide again on the row as stored.
      this.known.forget(id);
    }
    for (let attempt = 1; attempt <= CHANGE_ATTEMPTS; attempt++) {
      const current = await this.find(id);
      const change = current && decide(current);
      if (!current || !change) return undefined;
      const written = await this.write(current, change.patch, change.timeline, carry);
      if (written) return this.accepted(written);
    }
    throw new ClawError("version_conflict", `task ${id} kept changing while it was being updated; re-read it`, {
      taskId: id,
    });
  }

  /** One compare-and-set UPDATE of `current`; undefined when its version moved meanwhile. */
  private async write(current: TaskRecord, patch: TaskPatch, timeline: TaskChange["timeline"], carry: Carry = {}) {
    const now = Date.now();
    const keys = (Object.keys(patch) as (keyof TaskPatch)[]).filter((k) => patch[k] !== undefined);
    const params: SqlValue[] = keys.map((k) =>
      JSON_FIELDS.has(k) ? (patch[k] === null ? null : JSON.stringify(patch[k])) : (patch[k] as SqlValue),
    );
    const sets = keys.map((k) => `${COLUMNS[k]} = ?`);
    sets.push("version = version + 1", "updated_at = ?");
    params.push(now);
    const lines = timeline === undefined ? [] : typeof timeline === "string" ? [timeline] : timeline;
    let timelineJson: string | undefined;
    if (lines.length > 0) {
      const entries = lines.map(
        (text): TimelineEntry => ({
          at: now,
          version: current.version + 1,
          status: patch.status ?? current.status,
          phase: patch.phase ?? current.phase,
          text,
        }),
      );
      const list = [...current.timeline, ...entries];
      if (list.length > TIMELINE_LIMIT) list.splice(1, list.length - TIMELINE_LIMIT);
      timelineJson = JSON.stringify(list);
      sets.push("timeline = ?");
      params.push(timelineJson);
    }
    params.push(current.id, current.version);
    const pg = this.sql.dialect === "postgres";
    const { release, runEnd, start } = carry;
    // A run's start goes with the write only when it matches (its CTE reads the written row, t).
    const starting = pg && start !== undefined && !start.done ? start : undefined;
    const returning = starting ? "*" : WRITTEN_COLUMNS;
    const update = `UPDATE tasks SET ${sets.join(", ")} WHERE id = ? AND version = ? RETURNING ${returning}`;
    const ctes: string[] = [];
    const before: SqlValue[] = [];
    const carried: [string, CarriedWrite][] = [];
    if (release && !release.done) carried.push(["released", release]);
    if (runEnd && !runEnd.done) carried.push(["run_end", runEnd]);
    for (const [name, w] of carried) {
      if (pg) {
        ctes.push(`${name} AS (${w.sql})`);
        before.push(...w.params);
      } else await this.sql.run(w.sql, w.params); // no data-modifying CTE in SQLite
    }
    const [text, all] = starting
      ? [
          `WITH ${[...ctes, `t AS (${update})`, starting.cte].join(", ")} SELECT t.*, ${starting.column} AS carried FROM t`,
          [...before, ...params, ...starting.cteParams, ...starting.columnParams],
        ]
      : [ctes.length > 0 ? `WITH ${ctes.join(", ")} ${update}` : update, [...before, ...params]];
    const raw = await this.sql.get<RawTask & { carried?: unknown }>(text, all);
    for (const [, w] of carried) w.done = true;
    if (!raw) return undefined;
    if (!starting) return afterWrite(current, keys, params, timelineJson, raw);
    starting.done = true;
    const rows = typeof raw.carried === "string" ? JSON.parse(raw.carried) : raw.carried;
    starting.rows = Array.isArray(rows) ? rows : [];
    return fromRaw(raw);
  }

  /** Reports an accepted change with the task as written (a later change must not show through). */
  private accepted(task: TaskRecord): TaskRecord {
    if (this.pending) this.pending.push(task);
    else this.announce(this.seen(task));
    return task;
  }

  /** Remembers a committed record (inside a transaction nothing is committed yet). */
  private seen(task: TaskRecord): TaskRecord {
    if (!this.pending) this.known.remember(task);
    return task;
  }

  /**
   * The record last seen of `id`; none inside a transaction, which reads the row (a record
   * remembered outside it may be older than what the transaction sees).
   */
  private knownRecord(id: string): TaskRecord | undefined {
    return this.pending ? undefined : this.known.get(id);
  }

  private announce(task: TaskRecord): void {
    queueMicrotask(() => this.onChange(task));
  }

  /** Counts one check_task call; returns the task as stored, its `pollCount` the new count (the poll number). */
  async countPoll(id: string): Promise<TaskRecord> {
    const raw = await (this.polls ? this.polls.count(id) : countOne(this.sql, id));
    if (!raw) throw notFound(id);
    return this.seen(fromRaw(raw));
  }

  /** Run tasks with `status`, oldest first. */
  async runTasksWithStatus(status: TaskStatus): Promise<TaskRecord[]> {
    const rows = await this.sql.all<RawTask>("SELECT * FROM tasks WHERE kind = ? AND status = ? ORDER BY seq", [
      "run",
      status,
    ]);
    return rows.map(fromRaw);
  }

  /** The stored receipt body (JSON text) for (taskId, sessionRef), if any. */
  async receiptBody(taskId: string, sessionRef: string): Promise<string | undefined> {
    const row = await this.sql.get<Pick<Row<"receipts">, "body">>(
      "SELECT body FROM receipts WHERE task_id = ? AND session_ref = ?",
      [taskId, sessionRef],
    );
    return row?.body;
  }

  /** Inserts a receipt (its body is canonical JSON without createdAt). */
  async insertReceipt(taskId: string, sessionRef: string, body: string): Promise<void> {
    await this.sql.run("INSERT INTO receipts (task_id, session_ref, body, created_at) VALUES (?, ?, ?, ?)", [
      taskId,
      sessionRef,
      body,
      Date.now(),
    ]);
  }

  /** A task's receipts, oldest first. */
  async receipts(taskId: string): Promise<Receipt[]> {
    const rows = await this.sql.all<Pick<Row<"receipts">, "body" | "created_at">>(
      "SELECT body, created_at FROM receipts WHERE task_id = ? ORDER BY created_at, session_ref",
      [taskId],
    );
    return rows.map((r) => ({ ...(JSON.parse(r.body) as Omit<Receipt, "createdAt">), createdAt: r.created_at }));
  }
}

function notFound(id: string): ClawError {
  return new ClawError("not_found", `no task ${id}; list_tasks shows the existing ones`, { taskId: id });
}
