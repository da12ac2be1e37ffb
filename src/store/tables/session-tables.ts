/**
 * The session tables, defined once (see columns.ts): sessions, their messages and runs, the
 * durable queue of acknowledged prompts, and the session leases of several nodes (DDL:
 * src/store/schema/sessions.ts, session-items.ts, multi-node.ts; PostgreSQL's in
 * src/store/pg/pg-schema.ts). Owned by src/agent.
 */
import { float64OrNull, int32, int32OrNull, int64, int64OrNull, only, text, textOrNull } from "./columns.js";

/** One row per session. */
export const SESSIONS = {
  /** SQLite's implicit rowid, a column on PostgreSQL: list_sessions pages newest first by it. */
  rowid: only("postgres", int64),
  id: text,
  key: text,
  name: textOrNull,
  bus: text,
  model: text,
  provider: text,
  instructions: textOrNull,
  /** 0/1. */
  stream_text: int32,
  created_at: int64,
  updated_at: int64,
} as const;

/** A session's messages, never deleted by compaction (a summary row marks where context restarts). */
export const MESSAGES = {
  id: text,
  session_id: text,
  seq: int64,
  run_id: textOrNull,
  role: text,
  text: textOrNull,
  call_id: textOrNull,
  name: textOrNull,
  /** JSON. */
  args: textOrNull,
  /** JSON. */
  result: textOrNull,
  /** 0/1. */
  is_error: int32OrNull,
  created_at: int64,
  /** The output item exactly as the provider sent it (JSON). */
  item: textOrNull,
  /** 0/1. */
  refusal: int32OrNull,
} as const;

/** Runs of the agent loop ("agent") and summarisation calls ("compact") with their counters. */
export const RUNS = {
  id: text,
  session_id: text,
  task_id: textOrNull,
  /** "agent" or "compact". */
  kind: text,
  status: text,
  turns: int64,
  tool_calls: int64,
  input_tokens: int64,
  output_tokens: int64,
  /** JSON. */
  error: textOrNull,
  started_at: int64,
  ended_at: int64OrNull,
  cached_tokens: int64,
  reasoning_tokens: int64,
  cost: float64OrNull,
  /** The node running it. */
  node: textOrNull,
} as const;

/** Acknowledged prompts, steering and follow-up messages not yet delivered. */
export const SESSION_QUEUE = {
  id: int64,
  session_id: text,
  /** "prompt", "steer" or "follow_up". */
  kind: text,
  text: text,
  created_at: int64,
  node: textOrNull,
} as const;

/** Which node runs a session, until its lease expires (several nodes). */
export const SESSION_LEASES = {
  session_id: text,
  node: text,
  expires_at: int64,
} as const;
