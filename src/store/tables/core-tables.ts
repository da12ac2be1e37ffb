/**
 * The core tables, defined once (see columns.ts): instance metadata, the event bus and the
 * idempotency keys (DDL: src/store/schema/core.ts, event-layout.ts; PostgreSQL's in
 * src/store/pg/pg-schema.ts). The bus tables differ by engine by design: SQLite numbers each bus
 * and keys an event by `busId << 40 | seq` (one clustered range per bus), PostgreSQL keys events
 * by (bus, seq).
 */
import { int32, int64, only, text } from "./columns.js";

/**
 * PostgreSQL's migration bookkeeping (its schema version; SQLite keeps it in `PRAGMA
 * user_version`), created by src/store/pg/pg-migrate.ts before any migration runs.
 */
export const CLAW_META = {
  key: only("postgres", text),
  value: only("postgres", text),
} as const;

/** Instance metadata (the instance id). */
export const META = {
  key: text,
  value: text,
} as const;

/** One row per bus: last_seq survives trims; count and first_seq spare listings a count. */
export const BUSES = {
  /** The bus's number in its events' rowids. */
  id: only("sqlite", int64),
  bus: text,
  last_seq: int64,
  first_seq: int64,
  count: int64,
} as const;

/** The events of every bus. */
export const EVENTS = {
  /** `busId << 40 | seq`. */
  id: only("sqlite", int64),
  bus: only("postgres", text),
  seq: only("postgres", int64),
  ts: int64,
  /** The payload's UTF-8 bytes: pages are planned without reading payloads. */
  size: int32,
  payload: text,
} as const;

/** Idempotency keys of run_task, task_create and memory_add: same key and arguments replay the result. */
export const IDEMPOTENCY = {
  scope: text,
  key: text,
  args_hash: text,
  result: text,
  created_at: int64,
} as const;
