/** A task as stored and as its row comes back from either store, and the fields a change may set. */

import type { FieldsMatchColumns } from "../store/tables/columns.js";
import type { Row } from "../store/tables/tables.js";
import type {
  Handoff,
  LatestUpdate,
  TaskError,
  TaskKind,
  TaskPhase,
  TaskStatus,
  TimelineEntry,
} from "./task-schema.js";

/** A task row as both stores return it (`SELECT *`, `RETURNING *`): the tasks table's definition. */
export type RawTask = Row<"tasks">;

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
  /** The schedule whose firing started this task, and that firing's due time. */
  scheduleId: string | null;
  firingAt: number | null;
}

/**
 * Every column has a record field and every field a column (a missed rename fails to compile);
 * `run_node` only says which node runs the task, for recovery.
 */
const RECORD_MATCHES_COLUMNS: FieldsMatchColumns<TaskRecord, Omit<RawTask, "run_node">> = true;
void RECORD_MATCHES_COLUMNS;

/** Fields of a new task (a scheduled one also names its schedule and due time). */
export type NewTask = Partial<Pick<TaskRecord, "scheduleId" | "firingAt">> &
  Pick<
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

/** The column of each changeable field (a column the table does not have fails to compile). */
export const COLUMNS: Record<keyof TaskPatch, keyof RawTask> = {
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
export const JSON_FIELDS = new Set<keyof TaskPatch>(["latestUpdate", "error", "handoff"]);

function parse<T>(json: string | null): T | null {
  return json === null ? null : (JSON.parse(json) as T);
}

/** Converts a raw row (the same snake_case columns on SQLite and PostgreSQL). */
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
    scheduleId: r.schedule_id ?? null,
    firingAt: r.firing_at ?? null,
  };
}

/**
 * What a compare-and-set change returns instead of the whole row: the columns that move without
 * the version (the poll counter), and the version and time it wrote. Returning all 28 columns,
 * and reading them into a record, cost ~7–15 µs of each change on SQLite (a task_cancel call
 * took 80 µs at the median, 73 with these three).
 */
export const WRITTEN_COLUMNS = "version, updated_at, poll_count";

/**
 * The record a compare-and-set change wrote: `current` (the row at the version it matched, so
 * every versioned field is as `current` has it) with the patched fields as stored (`keys`, and
 * their values first in `values`, in that order: JSON text for the JSON fields, read back as
 * `fromRaw` would), the timeline as stored (undefined: unchanged), and the returned
 * WRITTEN_COLUMNS.
 */
export function afterWrite(
  current: TaskRecord,
  keys: readonly (keyof TaskPatch)[],
  values: readonly unknown[],
  timelineJson: string | undefined,
  returned: Pick<RawTask, "version" | "updated_at" | "poll_count">,
): TaskRecord {
  const next: TaskRecord = {
    ...current,
    version: returned.version,
    updatedAt: returned.updated_at,
    pollCount: returned.poll_count,
  };
  const fields = next as Record<keyof TaskPatch, unknown>;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    fields[key] = JSON_FIELDS.has(key) ? parse(values[i] as string | null) : values[i];
  }
  if (timelineJson !== undefined) next.timeline = JSON.parse(timelineJson) as TimelineEntry[];
  return next;
}
