/**
 * The tables of nodes, approvals and schedules, defined once (see columns.ts). DDL:
 * src/store/schema/nodes.ts, approvals.ts, approval-resume.ts, schedules.ts (PostgreSQL's
 * steps come from the same files, or src/store/pg/pg-schema.ts). Owned by src/nodes,
 * src/approvals and src/schedules.
 */
import { int32, int64, int64OrNull, text, textOrNull } from "./columns.js";

/** One row per running process on the database. */
export const NODES = {
  node: text,
  url: textOrNull,
  started_at: int64,
  last_heartbeat: int64,
  lease_ms: int64,
} as const;

/** One row per approval request of the agent's bash. */
export const APPROVALS = {
  id: text,
  status: text,
  session_id: text,
  run_id: text,
  task_id: textOrNull,
  call_id: text,
  script: text,
  cwd: textOrNull,
  /** The call's full argument text. */
  args: text,
  reason: text,
  on_timeout: text,
  requested_at: int64,
  expires_at: int64OrNull,
  decided_at: int64OrNull,
  note: textOrNull,
  decided_by: textOrNull,
  executed_at: int64OrNull,
  node: textOrNull,
  /** Who resumed the decided approval's run, and when (exactly one resumer). */
  resumed_at: int64OrNull,
  resumed_by: textOrNull,
} as const;

/** The approval policy of a session or a run task, keyed by its id. */
export const APPROVAL_POLICIES = {
  owner: text,
  /** JSON. */
  policy: text,
} as const;

/** One row per schedule; `due_at` is the next due time no node has handled yet. */
export const SCHEDULES = {
  id: text,
  name: text,
  version: int64,
  /** JSON of what the caller set. */
  spec: text,
  /** 0/1. */
  enabled: int32,
  created_at: int64,
  updated_at: int64,
  due_at: int64OrNull,
  watch_from: int64,
  last_started_due: int64OrNull,
  last_ok_at: int64OrNull,
  consecutive_failures: int64,
} as const;

/** One row per due time of a schedule, fired once whatever the number of nodes. */
export const SCHEDULE_FIRINGS = {
  schedule_id: text,
  firing_at: int64,
  kind: text,
  outcome: text,
  reason: textOrNull,
  task_id: textOrNull,
  /** JSON. */
  result: textOrNull,
  node: textOrNull,
  started_at: int64OrNull,
  ended_at: int64OrNull,
  overdue_at: int64OrNull,
  updated_at: int64,
} as const;
