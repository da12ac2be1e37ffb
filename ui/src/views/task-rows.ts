/**
 * The tasks list as state: rows newest first, counts per status, and how a batch of task events
 * from the `tasks` bus changes them. An event older than a row (by version) is dropped, so the
 * list loaded after the subscription started and the events of that moment agree.
 */
import type { OpInput, OpOutput, TaskEvent } from "../../../src/client.js";

/** A row of list_tasks. */
export type TaskRow = OpOutput<"list_tasks">["tasks"][number];

/** The filters of the list (the route's query). */
export interface TaskFilters {
  status?: string;
  sessionKey?: string;
  project?: string;
}

/** list_tasks arguments for the filters. */
export function listArgs(f: TaskFilters, limit: number, cursor?: string): OpInput<"list_tasks"> {
  return {
    limit,
    ...(cursor ? { cursor } : {}),
    ...(f.status ? { status: f.status as TaskRow["status"] } : {}),
    ...(f.sessionKey ? { sessionKey: f.sessionKey } : {}),
    ...(f.project ? { project: f.project } : {}),
  };
}

/** True when a task with these fields belongs in the filtered list. */
export function matches(f: TaskFilters, t: { status: string; sessionKey: string | null; project: string }): boolean {
  return (
    (!f.status || t.status === f.status) &&
    (!f.sessionKey || t.sessionKey === f.sessionKey) &&
    (!f.project || t.project === f.project)
  );
}

/** Applies events to the rows; returns the new rows and the ids of tasks the list has not seen. */
export function applyEvents(rows: TaskRow[], events: TaskEvent[]): { rows: TaskRow[]; unknown: string[] } {
  const index = new Map(rows.map((r, i) => [r.taskId, i]));
  const next = rows.slice();
  const unknown = new Set<string>();
  for (const e of events) {
    const i = index.get(e.taskId);
    if (i === undefined) {
      unknown.add(e.taskId);
      continue;
    }
    const row = next[i]!;
    if (e.version <= row.version) continue;
    next[i] = {
      ...row,
      status: e.status,
      phase: e.phase,
      version: e.version,
      latestUpdate: e.latestUpdate,
      updatedAt: e.at,
      endedAt: row.endedAt ?? (e.phase === "ended" ? e.at : null),
    };
  }
  return { rows: next, unknown: [...unknown] };
}
