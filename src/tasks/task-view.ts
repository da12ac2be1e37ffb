/** Task records as clients see them: the Task snapshot and the compact TaskRow. */
import type { Receipt, Task, TaskInclude, TaskRow } from "./task-schema.js";
import type { TaskRecord } from "./task-store.js";

/** Characters of summary kept in a TaskRow. */
export const ROW_SUMMARY_CHARS = 500;

function base(t: TaskRecord, now: number) {
  return {
    taskId: t.id,
    jobId: t.id,
    kind: t.kind,
    title: t.title,
    body: t.body,
    sessionKey: t.sessionKey,
    sessionId: t.sessionId,
    project: t.project,
    status: t.status,
    phase: t.phase,
    version: t.version,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    startedAt: t.startedAt,
    endedAt: t.endedAt,
    elapsedMs: Math.max(0, (t.endedAt ?? now) - t.createdAt),
    latestUpdate: t.latestUpdate,
    pollCount: t.pollCount,
    error: t.error,
    handoff: t.handoff,
    // Only a scheduled task names its schedule (other tasks keep their shape).
    ...(t.scheduleId !== null ? { scheduleId: t.scheduleId, firingAt: t.firingAt } : {}),
  };
}

/** The Task snapshot; `receipts` (read by the caller only when included) go in when included. */
export function toTask(t: TaskRecord, include: TaskInclude = [], receipts?: Receipt[]): Task {
  const task: Task = { ...base(t, Date.now()), summary: t.summary };
  if (include.includes("timeline")) task.timeline = t.timeline;
  if (include.includes("receipts")) task.receipts = receipts ?? [];
  if (include.includes("prompt")) task.prompt = t.prompt;
  return task;
}

/** The compact row: summary cut to 500 characters, with summaryTruncated. */
export function toRow(t: TaskRecord, now = Date.now()): TaskRow {
  const long = t.summary !== null && t.summary.length > ROW_SUMMARY_CHARS;
  return {
    ...base(t, now),
    summary: long ? t.summary!.slice(0, ROW_SUMMARY_CHARS) : t.summary,
    summaryTruncated: long,
  };
}
