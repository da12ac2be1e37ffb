/**
 * SQLite access for tasks and receipts. Every change goes through `patch`, which bumps
 * `version` by one (compare-and-set when an expected version is given), appends to the bounded
 * timeline when asked, and wakes waiters of the task after the write.
 */

import { ClawError } from "../errors.js";
import type { Db } from "../store/db.js";
import type {
  Handoff,
  LatestUpdate,
  Receipt,
  TaskError,
  TaskKind,
  TaskPhase,
  TaskStatus,
  TimelineEntry,
} from "./task-schema.js";

/** Max timeline entries kept per task; the oldest are dropped (the first one, "created", stays). */
export const TIMELINE_LIMIT = 50;

/** A task as stored (JSON columns parsed). */
export interface TaskRecord {
  seq: number;
  id: string;
  kind: TaskKind;
  title: string;
  body: string | null;
  prompt: string | null;
  sessionKey: string | null;
  sessionId: string | null;
  project: string;
  status: TaskStatus;
  phase: TaskPhase;
  version: number;
  model: string | null;
  provider: string | null;
  bus: string | null;
  createdAt: number;
  updatedAt: number;
  startedAt: number | null;
  endedAt: number | null;
  latestUpdate: LatestUpdate | null;
  pollCount: number;
  summary: string | null;
  error: TaskError | null;
  handoff: Handoff | null;
  timeline: TimelineEntry[];
}

/** Fields of a new task. */
export type NewTask = Pick<
  TaskRecord,
  | "id"
  | "kind"
  | "title"
  | "body"
  | "prompt"
  | "sessionKey"
  | "sessionId"
  | "project"
  | "status"
  | "phase"
  | "model"
  | "provider"
  | "bus"
>;

/** Changeable fields; undefined leaves a field as it is, null clears it. */
export type TaskPatch = Partial<
  Pick<
    TaskRecord,
    "status" | "phase" | "title" | "body" | "startedAt" | "endedAt" | "latestUpdate" | "summary" | "error" | "handoff"
  >
>;

const COLUMNS: Record<keyof TaskPatch, string> = {
  status: "status",
  phase: "phase",
  title: "title",
  body: "body",
  startedAt: "started_at",
  endedAt: "ended_at",
  latestUpdate: "latest_update",
  summary: "summary",
  error: "error",
  handoff: "handoff",
};
const JSON_FIELDS = new Set<keyof TaskPatch>(["latestUpdate", "error", "handoff"]);

interface RawTask {
  seq: number;
  id: string;
  kind: string;
  title: string;
  body: string | null;
  prompt: string | null;
  session_key: string | null;
  session_id: string | null;
  project: string;
  status: string;
  phase: string;
  version: number;
  model: string | null;
  provider: string | null;
  bus: string | null;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  ended_at: number | null;
  latest_update: string | null;
  poll_count: number;
  summary: string | null;
  error: string | null;
  handoff: string | null;
  timeline: string;
}

function parse<T>(json: string | null): T | null {
  return json === null ? null : (JSON.parse(json) as T);
}

/** Converts a raw row. */
export function fromRaw(r: RawTask): TaskRecord {
  return {
    seq: r.seq,
    id: r.id,
    kind: r.kind as TaskKind,
    title: r.title,
    body: r.body,
    prompt: r.prompt,
    sessionKey: r.session_key,
    sessionId: r.session_id,
    project: r.project,
    status: r.status as TaskStatus,
    phase: r.phase as TaskPhase,
    version: r.version,
    model: r.model,
    provider: r.provider,
    bus: r.bus,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    latestUpdate: parse(r.latest_update),
    pollCount: r.poll_count,
    summary: r.summary,
    error: parse(r.error),
    handoff: parse(r.handoff),
    timeline: JSON.parse(r.timeline) as TimelineEntry[],
  };
}

/** Tasks and receipts in SQLite. */
export class TaskStore {
  private readonly patchStatements = new Map<string, ReturnType<Db["prepare"]>>();
  private readonly sql;

  constructor(
    readonly db: Db,
    /** Called (in a microtask, after the write committed) with each accepted change: the task as written. */
    private readonly onChange: (task: TaskRecord) => void,
  ) {
    this.sql = {
      get: db.prepare<[string], RawTask>("SELECT * FROM tasks WHERE id = ?"),
      insert: db.prepare(
        `INSERT INTO tasks (id, kind, title, body, prompt, session_key, session_id, project, status, phase, version, model, provider, bus, created_at, updated_at, timeline)
         VALUES (@id, @kind, @title, @body, @prompt, @sessionKey, @sessionId, @project, @status, @phase, 1, @model, @provider, @bus, @now, @now, @timeline)`,
      ),
      poll: db.prepare<[string], { poll_count: number }>(
        "UPDATE tasks SET poll_count = poll_count + 1 WHERE id = ? RETURNING poll_count",
      ),
      getReceipt: db.prepare<[string, string], { body: string; created_at: number }>(
        "SELECT body, created_at FROM receipts WHERE task_id = ? AND session_ref = ?",
      ),
      insertReceipt: db.prepare("INSERT INTO receipts (task_id, session_ref, body, created_at) VALUES (?, ?, ?, ?)"),
      receipts: db.prepare<[string], { body: string; created_at: number }>(
        "SELECT body, created_at FROM receipts WHERE task_id = ? ORDER BY created_at, session_ref",
      ),
      byStatus: db.prepare<[string, string], RawTask>("SELECT * FROM tasks WHERE kind = ? AND status = ? ORDER BY seq"),
    };
  }

  /** The task, or undefined. */
  find(id: string): TaskRecord | undefined {
    const raw = this.sql.get.get(id);
    return raw ? fromRaw(raw) : undefined;
  }

  /** The task; `not_found` when there is none. */
  get(id: string): TaskRecord {
    const t = this.find(id);
    if (!t) throw new ClawError("not_found", `no task ${id}; list_tasks shows the existing ones`, { taskId: id });
    return t;
  }

  /** Inserts a task at version 1 with a first timeline entry. */
  insert(t: NewTask, text: string): TaskRecord {
    const now = Date.now();
    const entry: TimelineEntry = { at: now, version: 1, status: t.status, phase: t.phase, text };
    this.sql.insert.run({ ...t, now, timeline: JSON.stringify([entry]) });
    return this.accepted(this.get(t.id));
  }

  /**
   * Applies `patch` and bumps the version. With `expectedVersion`, returns undefined (and
   * changes nothing) when the stored version differs. `timeline` appends one entry.
   */
  patch(
    id: string,
    patch: TaskPatch,
    opts: { expectedVersion?: number; timeline?: string } = {},
  ): TaskRecord | undefined {
    const current = this.get(id);
    if (opts.expectedVersion !== undefined && current.version !== opts.expectedVersion) return undefined;
    const now = Date.now();
    const keys = (Object.keys(patch) as (keyof TaskPatch)[]).filter((k) => patch[k] !== undefined);
    const values: Record<string, unknown> = { id, version: current.version, now };
    for (const k of keys)
      values[k] = JSON_FIELDS.has(k) ? (patch[k] === null ? null : JSON.stringify(patch[k])) : patch[k];
    let timelineSet = "";
    if (opts.timeline !== undefined) {
      const entry: TimelineEntry = {
        at: now,
        version: current.version + 1,
        status: patch.status ?? current.status,
        phase: patch.phase ?? current.phase,
        text: opts.timeline,
      };
      const list = [...current.timeline, entry];
      if (list.length > TIMELINE_LIMIT) list.splice(1, list.length - TIMELINE_LIMIT);
      values.timeline = JSON.stringify(list);
      timelineSet = ", timeline = @timeline";
    }
    const sets = keys.map((k) => `${COLUMNS[k]} = @${k}`).join(", ");
    const sql = `UPDATE tasks SET ${sets}${sets ? ", " : ""}version = version + 1, updated_at = @now${timelineSet} WHERE id = @id AND version = @version`;
    const stmt = this.patchStatements.get(sql) ?? this.db.prepare(sql);
    this.patchStatements.set(sql, stmt);
    if (stmt.run(values).changes === 0) return undefined;
    return this.accepted(this.get(id));
  }

  /** Reports an accepted change with the task as written (a later change must not show through). */
  private accepted(task: TaskRecord): TaskRecord {
    queueMicrotask(() => this.onChange(task));
    return task;
  }

  /** Counts one check_task call; returns the new count (the poll number). */
  countPoll(id: string): number {
    const row = this.sql.poll.get(id);
    if (!row) throw new ClawError("not_found", `no task ${id}; list_tasks shows the existing ones`, { taskId: id });
    return row.poll_count;
  }

  /** Run tasks with `status`, oldest first. */
  runTasksWithStatus(status: TaskStatus): TaskRecord[] {
    return this.sql.byStatus.all("run", status).map(fromRaw);
  }

  /** The stored receipt body (JSON text) for (taskId, sessionRef), if any. */
  receiptBody(taskId: string, sessionRef: string): string | undefined {
    return this.sql.getReceipt.get(taskId, sessionRef)?.body;
  }

  /** Inserts a receipt (its body is canonical JSON without createdAt). */
  insertReceipt(taskId: string, sessionRef: string, body: string): void {
    this.sql.insertReceipt.run(taskId, sessionRef, body, Date.now());
  }

  /** A task's receipts, oldest first. */
  receipts(taskId: string): Receipt[] {
    return this.sql.receipts
      .all(taskId)
      .map((r) => ({ ...(JSON.parse(r.body) as Omit<Receipt, "createdAt">), createdAt: r.created_at }));
  }

  /** Runs `fn` in one transaction. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }
}
