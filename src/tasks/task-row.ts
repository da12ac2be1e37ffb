/**
 * The tasks table, defined once: each column's name, type and nullability. The row type both
 * engines return (`RawTask`) is derived from it, the record's fields must match its columns
 * (camelCased; task-record.ts checks it when it compiles), and a test checks the SQLite and PostgreSQL DDL
 * against it. A new column goes here, in a new migration of each engine, and in TaskRecord.
 */
/** One column: its SQL type family and whether it may be NULL. */
export interface ColumnDef {
  /** "integer" is INTEGER on SQLite and BIGINT on PostgreSQL (both read back as numbers). */
  type: "integer" | "text";
  nullable: boolean;
}

const int = { type: "integer", nullable: false } as const;
const intOrNull = { type: "integer", nullable: true } as const;
const text = { type: "text", nullable: false } as const;
const textOrNull = { type: "text", nullable: true } as const;

/** The columns of `tasks`, in table order. */
export const TASK_COLUMNS = {
  seq: int,
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
  version: int,
  model: textOrNull,
  provider: textOrNull,
  bus: textOrNull,
  created_at: int,
  updated_at: int,
  started_at: intOrNull,
  ended_at: intOrNull,
  latest_update: textOrNull,
  poll_count: int,
  summary: textOrNull,
  error: textOrNull,
  handoff: textOrNull,
  timeline: text,
  /** The node running the task (several nodes on PostgreSQL): the store's, not the record's. */
  run_node: textOrNull,
  /** The schedule whose firing created the task, and that firing's due time (scheduled tasks only). */
  schedule_id: textOrNull,
  firing_at: intOrNull,
} as const satisfies Record<string, ColumnDef>;

/** The TypeScript value of a column. */
type ValueOf<C extends ColumnDef> =
  | (C["type"] extends "integer" ? number : string)
  | (C["nullable"] extends true ? null : never);

/** A row of a table defined by `T`, as the stores return it. */
export type RowOf<T extends Record<string, ColumnDef>> = { -readonly [K in keyof T]: ValueOf<T[K]> };

/** A task row as both stores return it (`SELECT *`, `RETURNING *`). */
export type RawTask = RowOf<typeof TASK_COLUMNS>;

/** `snake_case` to `camelCase`, at the type level. */
type Camel<S extends string> = S extends `${infer A}_${infer B}` ? `${A}${Capitalize<Camel<B>>}` : S;

/** True when `Fields` has exactly one field per column of `Row` (its name camelCased). */
export type FieldsMatchColumns<Fields, Row> = [
  Exclude<keyof Fields, keyof { [K in keyof Row as Camel<K & string>]: unknown }>,
  Exclude<keyof { [K in keyof Row as Camel<K & string>]: unknown }, keyof Fields>,
] extends [never, never]
  ? true
  : false;
