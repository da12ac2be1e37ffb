/**
 * Opens a PostgreSQL database for a postgres:// URL: loads `pg` (only here, and only then, so
 * nothing of PostgreSQL loads for a SQLite store), makes a pool whose int8 and numeric values
 * come back as JS numbers, and migrates the schema once under an advisory lock.
 */
import type { Client, Pool } from "pg";
import { displayDb } from "../../config/store-url.js";
import { PgSql } from "../pg-sql.js";
import { migratePg } from "./pg-migrate.js";
import { checkout } from "./pool-checkout.js";
import { PreparedNames } from "./prepared-names.js";
import { numericTypes, StatementCodec } from "./prepared-query.js";
import { StatementGroups } from "./statement-groups.js";

/**
 * How long a connection may take to open, and a statement to answer, before the call fails
 * with `storage_unavailable` instead of waiting for ever on a hung server; TCP keepalive finds
 * a dead peer on an idle connection. The defaults suit a database on the same network; the
 * URL's parameters change them: `connect_timeout` (seconds, as libpq spells it),
 * `statement_timeout` (ms, enforced by the server) and `query_timeout` (ms, by this client:
 * what ends a wait on a server that no longer answers at all), `keepalives_idle` (seconds).
 */
export const PG_TIMEOUT_DEFAULTS = {
  connectTimeoutMs: 10_000,
  statementTimeoutMs: 60_000,
  queryTimeoutMs: 65_000,
  keepAliveIdleMs: 10_000,
} as const;

/** The pool settings of `url`: its timeout parameters, else the defaults. */
export function pgTimeouts(url: string): Record<string, number | boolean> {
  let params: URLSearchParams;
  try {
    params = new URL(url).searchParams;
  } catch {
    params = new URLSearchParams();
  }
  const num = (name: string, scale: number, fallback: number) => {
    const v = Number(params.get(name) ?? Number.NaN);
    return Number.isFinite(v) && v > 0 ? Math.round(v * scale) : fallback;
  };
  const d = PG_TIMEOUT_DEFAULTS;
  return {
    connectionTimeoutMillis: num("connect_timeout", 1000, d.connectTimeoutMs),
    statement_timeout: num("statement_timeout", 1, d.statementTimeoutMs),
    query_timeout: num("query_timeout", 1, d.queryTimeoutMs),
    keepAlive: true,
    keepAliveInitialDelayMillis: num("keepalives_idle", 1000, d.keepAliveIdleMs),
  };
}

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
  /** The server-side names of its statements (the event store's too). */
  names: PreparedNames;
  /** Its writes outside transactions, grouped (the event store's appends too). */
  groups: StatementGroups;
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
  const config = { connectionString: url, ...pgTimeouts(url), types: numericTypes(pg.types) };
  const pool = new pg.Pool({ ...config, max: options.maxConnections ?? 10 });
  let closed: Promise<void> | undefined;
  // An idle connection that dies (server restart, network) must not crash the process; once
  // the pool is closing, its connections ending is what was asked for.
  pool.on("error", (err) => {
    if (!closed) log(`tsclaw: PostgreSQL connection lost (${where}): ${err.message}`);
  });
  const ended = countConnections(pool);
  const close = () => {
    closed ??= pool.end().then(ended);
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
    const names = new PreparedNames(log, await StatementCodec.load());
    const groups = new StatementGroups(pool, names);
    return {
      sql: new PgSql(pool, pool, names, groups),
      names,
      groups,
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

/** Most time `close` waits for the pool's connections to have closed after `pool.end()`. */
const CLOSE_WAIT_MS = 2000;

/**
 * Counts the pool's open connections; the function returned resolves once none is left (or
 * after CLOSE_WAIT_MS). `pool.end()` resolves as soon as it has asked each connection to end,
 * before their sockets close: a database dropped right after a claw closed would still find
 * their backends.
 */
function countConnections(pool: Pool): () => Promise<void> {
  let open = 0;
  let none: (() => void) | undefined;
  pool.on("connect", () => open++);
  pool.on("remove", () => {
    if (--open === 0) none?.();
  });
  return () =>
    new Promise<void>((resolve) => {
      if (open === 0) return resolve();
      const timer = setTimeout(resolve, CLOSE_WAIT_MS);
      timer.unref();
      none = () => {
        clearTimeout(timer);
        resolve();
      };
    });
}
