/**
 * The vocabulary every table definition is written in (src/store/tables/): a column's logical
 * type, its nullability, the engine it exists on, and the TypeScript row a definition gives.
 * Row types are computed from the definitions at compile time only, so a store reading
 * `Row<"tasks">` costs nothing at run time; a test checks every definition against the tables
 * the migrations of both engines really build.
 */
import type { SqlDialect } from "../sql.js";

/**
 * A column's logical type, and what each engine declares for it:
 * - `int64`: SQLite INTEGER (or BIGINT: the same affinity), PostgreSQL `bigint`. Times (epoch
 *   milliseconds), seqs, ids, counts. Read back as a JS number on both (values stay below 2^53).
 * - `int32`: SQLite INTEGER, PostgreSQL `integer`. Flags (0/1) and byte sizes only: never a
 *   time, which overflows it.
 * - `text`: TEXT on both (JSON is TEXT too, never jsonb: it comes back byte for byte).
 * - `float64`: SQLite REAL, PostgreSQL `double precision`.
 * - `tsvector`: PostgreSQL's generated search vector (never read by the stores).
 */
export type ColumnType = "int64" | "int32" | "text" | "float64" | "tsvector";

/** One column. */
export interface ColumnDef {
  readonly type: ColumnType;
  /** NULL allowed. A primary key never is (whatever SQLite's pragma says of a rowid table's). */
  readonly nullable: boolean;
  /**
   * The one engine that has the column: the other has none (PostgreSQL's generated search
   * vector) or an implicit one no `SELECT *` returns (SQLite's rowid). Default: both.
   */
  readonly only?: SqlDialect;
}

/** A table: its columns, in the order `SELECT *` returns them. */
export type TableDef = Readonly<Record<string, ColumnDef>>;

/** A 64-bit integer, never NULL. */
export const int64 = { type: "int64", nullable: false } as const;
/** A 64-bit integer or NULL. */
export const int64OrNull = { type: "int64", nullable: true } as const;
/** A 32-bit integer (a flag, a size), never NULL. */
export const int32 = { type: "int32", nullable: false } as const;
/** A 32-bit integer (a flag) or NULL. */
export const int32OrNull = { type: "int32", nullable: true } as const;
/** Text, never NULL. */
export const text = { type: "text", nullable: false } as const;
/** Text or NULL. */
export const textOrNull = { type: "text", nullable: true } as const;
/** A double or NULL. */
export const float64OrNull = { type: "float64", nullable: true } as const;
/** PostgreSQL's generated search vector. */
export const tsvector = { type: "tsvector", nullable: true } as const;

/** `column` on one engine only (see {@link ColumnDef.only}). */
export function only<C extends ColumnDef, D extends SqlDialect>(engine: D, column: C): C & { readonly only: D } {
  return { ...column, only: engine };
}

/** The TypeScript value of a column. */
type ValueOf<C extends ColumnDef> =
  | (C["type"] extends "text" | "tsvector" ? string : number)
  | (C["nullable"] extends true ? null : never);

/** True when column `C` exists on every engine of `D` (one engine, or both). */
type On<C extends ColumnDef, D extends SqlDialect> = C extends { only: infer O }
  ? [D] extends [O]
    ? true
    : false
  : true;

/**
 * A row of the table defined by `T`, as the stores return it: on both engines (the default)
 * the columns both have, on one engine (`RowOf<T, "sqlite">`) that engine's.
 */
export type RowOf<T extends TableDef, D extends SqlDialect = SqlDialect> = {
  -readonly [K in keyof T as On<T[K], D> extends true ? K : never]: ValueOf<T[K]>;
};

/**
 * `R` with some columns narrowed to the values a service writes there (a task's status, a
 * message's role): each narrowed type must fit its column's, and each name must be a column.
 */
export type Narrow<R, N extends Partial<R> & Record<Exclude<keyof N, keyof R>, never>> = Omit<R, keyof N> & N;

/** `snake_case` to `camelCase`, at the type level. */
type Camel<S extends string> = S extends `${infer A}_${infer B}` ? `${A}${Capitalize<Camel<B>>}` : S;

/** True when `Fields` has exactly one field per column of `Row` (its name camelCased). */
export type FieldsMatchColumns<Fields, Row> = [
  Exclude<keyof Fields, keyof { [K in keyof Row as Camel<K & string>]: unknown }>,
  Exclude<keyof { [K in keyof Row as Camel<K & string>]: unknown }, keyof Fields>,
] extends [never, never]
  ? true
  : false;
