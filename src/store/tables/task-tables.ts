/**
 * The task tables, defined once (see columns.ts): tasks, completion receipts, request
 * telemetry and continuity memory (DDL: src/store/schema/tasks.ts, memory.ts and the later
 * migrations that add task columns; PostgreSQL's in src/store/pg/pg-schema.ts). Owned by
 * src/tasks, whose `TaskRecord` has one field per task column (task-record.ts checks it when it
 * compiles). SQLite's FTS5 index of memory (`memory_fts`, a virtual table) is not a store
 * table: PostgreSQL searches its generated `fts` column instead.
 */
import { int32, int64, int64OrNull, only, text, textOrNull, tsvector } from "./columns.js";

/** One row per task; `seq` is the creation order, `id` the public id. */
export const TASKS = {
  seq: int64,
  id: text,
  kind: text,
  title: text,
  body: textOrNull,
  prompt: textOrNull,
  session_key: textOrNull,
  session_id: textOrNull,
  project: text,
  status: text,
  phase: text,
  version: int64,
  model: textOrNull,
  provider: textOrNull,
  bus: textOrNull,
  created_at: int64,
  updated_at: int64,
  started_at: int64OrNull,
  ended_at: int64OrNull,
  /** JSON. */
  latest_update: textOrNull,
  poll_count: int64,
  summary: textOrNull,
  /** JSON. */
  error: textOrNull,
  /** JSON. */
  handoff: textOrNull,
  /** JSON. */
  timeline: text,
  /** The node running the task (several nodes on PostgreSQL): the store's, not the record's. */
  run_node: textOrNull,
  /** The schedule whose firing created the task, and that firing's due time (scheduled tasks only). */
  schedule_id: textOrNull,
  firing_at: int64OrNull,
} as const;

/** Completion receipts: (task_id, session_ref) is the completion contract's uniqueness. */
export const RECEIPTS = {
  task_id: text,
  session_ref: text,
  /** Canonical JSON without createdAt. */
  body: text,
  created_at: int64,
} as const;

/** One row per task-operation request. Never holds prompt text. */
export const TELEMETRY = {
  id: int64,
  ts: int64,
  op: text,
  task_id: textOrNull,
  poll_number: int64OrNull,
  wait_asked_ms: int64OrNull,
  waited_ms: int64OrNull,
  status: textOrNull,
  duration_ms: int64,
  /** 0/1. */
  duplicate: int32,
  /** 0/1. */
  terminal_retrieval: int32,
  error_code: textOrNull,
  /** JSON: the tokens and cost of a task's run. */
  usage: textOrNull,
} as const;

/** Continuity memory entries. */
export const MEMORY = {
  rowid: int64,
  id: text,
  text: text,
  project: text,
  session_key: textOrNull,
  /** JSON array. */
  tags: text,
  created_at: int64,
  /** English stemming of text and tags, GIN-indexed (SQLite: the memory_fts table). */
  fts: only("postgres", tsvector),
} as const;
