/**
 * What the sessions are doing, for reads (`get_state`, `list_sessions`, `steer`): this node's run
 * scheduler knows its own jobs, the runs table those of the other live nodes (remote-runs.ts).
 */
import type { Sql } from "../store/sql.js";
import { remoteRuns } from "./remote-runs.js";
import type { RunScheduler } from "./run-scheduler.js";
import type { PendingCounts } from "./session-queue.js";
import type { SessionStore } from "./session-store.js";

/** What `get_state` reports. */
export interface SessionRunState {
  isRunning: boolean;
  running: "agent" | "compact" | null;
  currentRunId: string | null;
  currentTaskId: string | null;
  pending: PendingCounts;
  queuedRuns: number;
}

/** Where runs are looked up: this node's scheduler, and the database for the other nodes. */
export interface RunPlaces {
  scheduler: RunScheduler;
  store: SessionStore;
  sql: Sql;
  /** This node's id. */
  node: string;
}

/** Of `sessionIds`, those with an active run or compaction, on this node or another live one. */
export async function runningSessions(p: RunPlaces, sessionIds: readonly string[]): Promise<Set<string>> {
  const here = sessionIds.filter((id) => p.scheduler.busy(id));
  const elsewhere = await remoteRuns(
    p.sql,
    p.node,
    sessionIds.filter((id) => !p.scheduler.busy(id)),
  );
  return new Set([...here, ...elsewhere.map((r) => r.sessionId)]);
}

/** Ids of sessions with an active run or compaction, on any live node. */
export async function activeSessionIds(p: RunPlaces): Promise<string[]> {
  const elsewhere = await remoteRuns(p.sql, p.node);
  return [...new Set([...p.scheduler.activeSessionIds(), ...elsewhere.map((r) => r.sessionId)])];
}

/**
 * What the session is doing now and what waits. A run on another node is reported from the
 * runs table. `queuedRuns` counts the runs waiting: on one process its queue; with several
 * nodes, what waits on any of them (the session's queued run tasks and prompts, from the
 * database, and this node's waiting compactions, which live in its memory only).
 */
export async function runState(p: RunPlaces, sessionId: string): Promise<SessionRunState> {
  const pending = await p.store.queue.counts(sessionId);
  // A job here still waiting for the session's lease is not running: another node's run is.
  const job = p.scheduler.running(sessionId);
  const remote = job ? undefined : (await remoteRuns(p.sql, p.node, [sessionId]))[0];
  const active = job ?? (remote && { kind: remote.kind, runId: remote.runId, taskId: remote.taskId ?? undefined });
  return {
    isRunning: active !== undefined,
    running: active?.kind ?? null,
    currentRunId: active?.runId ?? null,
    currentTaskId: active?.taskId ?? null,
    pending,
    queuedRuns:
      p.sql.dialect === "postgres"
        ? (await p.store.runs.queuedTasks(sessionId)) + pending.prompts + p.scheduler.waiting(sessionId, "compact")
        : p.scheduler.waiting(sessionId),
  };
}
