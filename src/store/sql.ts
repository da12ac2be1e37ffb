/**
 * The storage interface the services are written against: one asynchronous SQL executor that
 * SQLite and PostgreSQL both implement, so a query, a transaction and the logic inside it are
 * written once. SQL uses `?` placeholders (PostgreSQL's `$n` are made from them) and the common
 * subset of both dialects: `ON CONFLICT … DO`, `RETURNING`, `COALESCE`, integers for booleans,
 * epoch milliseconds for times. Where the dialects differ (full-text search, the schema itself)
 * the code branches on `dialect`.
 */

/** A value a placeholder can take. */
export type SqlValue = string | number | bigint | boolean | null | Uint8Array;

/**
 * A write handed to another statement to carry (on PostgreSQL a data-modifying CTE of it: one
 * round trip for both). `done` is set once a statement carrying it has run; whoever handed it
 * over runs it alone when no statement did.
 */
export interface CarriedWrite {
  readonly sql: string;
  readonly params: readonly SqlValue[];
  done: boolean;
}

/** What a statement that returns no rows reports. */
export interface SqlRunResult {
  /** Rows inserted, updated or deleted. */
  changes: number;
}

/** Which engine runs the SQL. */
export type SqlDialect = "sqlite" | "postgres";

/** An asynchronous SQL executor: a database, or one transaction of it. */
export interface Sql {
  readonly dialect: SqlDialect;
  /** Every row the query returns. */
  all<T>(text: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** The first row, or undefined. */
  get<T>(text: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  /** Runs a statement; how many rows it changed. */
  run(text: string, params?: readonly SqlValue[]): Promise<SqlRunResult>;
  /**
   * Runs `fn` in one transaction (a savepoint when already inside one): committed when it
   * resolves, rolled back when it throws. `fn` must use only the executor it is given and must
   * not wait on anything but it (no network, no timers): the transaction holds the database's
   * writer (SQLite) or a pooled connection (PostgreSQL) until it ends. PostgreSQL transactions
   * that lose a serialization or deadlock race are retried, so `fn` may run more than once.
   */
  tx<T>(fn: (q: Sql) => Promise<T>): Promise<T>;
}

/** `?` placeholders as PostgreSQL's `$1, $2, …` (a `?` inside a quoted literal is left alone). */
export function numberedPlaceholders(text: string): string {
  let n = 0;
  let out = "";
  let quote: string | null = null;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = null;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else out += ch === "?" ? `$${++n}` : ch;
  }
  return out;
}
