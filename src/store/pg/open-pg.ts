/**
 * Opens a PostgreSQL database for a postgres:// URL: loads `pg` (only here, and only then, so
 * nothing of PostgreSQL loads for a SQLite store), makes a pool whose int8 and numeric values
 * come back as JS numbers, and migrates the schema once under an advisory lock.
 */
import type { Client, Pool } from "pg";
import { numericTypes, PgSql } from "../pg-sql.js";
import { displayDb } from "../store-url.js";
import { migratePg } from "./pg-migrate.js";
import { checkout } from "./pool-checkout.js";

/** Options of {@link openPg}. */
export interface OpenPgOptions {
  /** Most pooled connections of this process. Default: 10 */
  maxConnections?: number;
  /** Called with a message when an idle pooled connection fails (the pool replaces it). Default: stderr */
  log?: (message: string) => void;
}

/** An open PostgreSQL database. */
export interface OpenedPg {
  /** The executor every service queries. */
  sql: PgSql;
  pool: Pool;
  /** The URL with its password hidden, for messages. */
  where: string;
  /** The schema version after migrating. */
  schemaVersion: number;
  /** A connection of its own, outside the pool (LISTEN needs one that stays open). */
  connect(): Promise<Client>;
  /** Ends the pool. Safe to call twice. */
  close(): Promise<void>;
}

/** Opens and migrates the database at `url`; rejects (closing what it opened) when it cannot. */
export async function openPg(url: string, options: OpenPgOptions = {}): Promise<OpenedPg> {
  const pg = (await import("pg")).default;
  const where = displayDb(url);
  const log = options.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  const config = { connectionString: url, types: numericTypes(pg.types) };
  const pool = new pg.Pool({ ...config, max: options.maxConnections ?? 10 });
  // An idle connection that dies (server restart, network) must not crash the process.
  pool.on("error", (err) => log(`tsclaw: PostgreSQL connection lost (${where}): ${err.message}`));
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= pool.end();
    return closed;
  };
  try {
    const out = await checkout(pool);
    let schemaVersion: number;
    try {
      schemaVersion = await migratePg(out.client, where);
    } finally {
      out.release();
    }
    return {
      sql: new PgSql(pool, pool),
      pool,
      where,
      schemaVersion,
      async connect() {
        const client = new pg.Client(config);
        await client.connect();
        return client;
      },
      close,
    };
  } catch (err) {
    await close().catch(() => {});
    throw err;
  }
}
