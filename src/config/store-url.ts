/**
 * What a `--db` value names: a PostgreSQL database (a postgres:// or postgresql:// URL) or a
 * SQLite file (a path, or ":memory:"). Any other URL scheme is refused rather than taken for a
 * file name (`mysql://x` must not create a directory called `mysql:`).
 */
import { ClawError } from "../core/errors.js";

/** The engine a `--db` value selects. */
export type StoreKind = "sqlite" | "postgres";

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;

/** The engine of `db`; throws `invalid_args` for a URL of another scheme. */
export function storeKind(db: string): StoreKind {
  const scheme = SCHEME.exec(db)?.[1]?.toLowerCase();
  if (scheme === undefined) return "sqlite";
  if (scheme === "postgres" || scheme === "postgresql") return "postgres";
  throw new ClawError(
    "invalid_args",
    `--db ${scheme}:// is not a database tsclaw can open: give a SQLite file (or :memory:) or a postgres:// URL`,
    { option: "db", scheme },
  );
}

/** `db` safe to print: a URL's password replaced by `***`. */
export function displayDb(db: string): string {
  if (!SCHEME.test(db)) return db;
  try {
    const url = new URL(db);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return db.replace(/\/\/([^:/@]*):[^@]*@/, "//$1:***@");
  }
}
