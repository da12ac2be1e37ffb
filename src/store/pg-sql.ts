/**
 * The PostgreSQL implementation of Sql over a `pg` pool. `pg` is loaded only here, and this
 * module only for a postgres:// URL. Integers come back as JS numbers (int8 and numeric
 * included: seqs, counts and epoch milliseconds all stay below 2^53), so rows look the same as
 * SQLite's. Statements are prepared on the server by name (pg/prepared-names.ts). A
 * transaction that loses a serialization or deadlock race, or whose statement failed only for
 * its name, is retried.
 */
import type { Pool } from "pg";
import { ClawError } from "../core/errors.js";
import { type CheckedOut, checkout } from "./pg/pool-checkout.js";
import { type PreparedNames, type Queryable, send } from "./pg/prepared-names.js";
import type { StatementGroups } from "./pg/statement-groups.js";
import { numberedPlaceholders, type Sql, type SqlRunResult, type SqlValue } from "./sql.js";

/** SQLSTATEs after which a whole transaction may simply be run again. */
const RETRYABLE = new Set(["40001", "40P01"]);
const MAX_ATTEMPTS = 5;
/** `?` texts already turned into `$n` ones, shared by every executor. */
const TEXTS = new Map<string, string>();

/** Sql over a pool (statements) or one of its clients (a transaction). */
export class PgSql implements Sql {
  readonly dialect = "postgres" as const;
  private savepoints = 0;
  /**
   * In a transaction: a statement failed only for its name, and no savepoint has run again
   * since. The transaction is aborted then (even if its code caught the error and went on, when
   * COMMIT would quietly roll it back), and runs again.
   */
  private nameFailed = false;

  constructor(
    private readonly target: Queryable & { query(text: string): Promise<unknown> },
    private readonly pool: Pool | null,
    /** Shared by every executor of one database (open-pg.ts makes it). */
    private readonly names: PreparedNames,
    /** The pool's writes, grouped while one group is on its way (with the pool only). */
    private readonly groups?: StatementGroups,
  ) {}

  async all<T>(text: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return (await this.query(text, params)).rows as T[];
  }

  async get<T>(text: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return (await this.all<T>(text, params))[0];
  }

  async run(text: string, params: readonly SqlValue[] = []): Promise<SqlRunResult> {
    return { changes: (await this.query(text, params)).rowCount ?? 0 };
  }

  private async query(text: string, params: readonly SqlValue[]) {
    try {
      // Outside a transaction a statement that failed for its name runs again unnamed; inside
      // one the failure ended the transaction, which `tx` runs again.
      if (this.groups) return await this.groups.query(this.text(text), params);
      if (this.pool) return await this.names.query(this.target, this.text(text), params);
      const query = this.names.prepared(this.text(text), params);
      try {
        return await send(this.target, query);
      } catch (err) {
        // Remembered here, not on the error: the transaction's code may catch it and go on.
        if (this.names.failedForName(err, query)) this.nameFailed = true;
        throw err;
      }
    } catch (err) {
      throw unavailable(err) ?? err;
    }
  }

  async tx<T>(fn: (q: Sql) => Promise<T>): Promise<T> {
    if (!this.pool) return this.savepoint(fn);
    for (let attempt = 1; ; attempt++) {
      let out: CheckedOut;
      try {
        out = await checkout(this.pool);
      } catch (err) {
        throw unavailable(err) ?? err;
      }
      const { client } = out;
      let broken: Error | undefined;
      const inner = new PgSql(client, null, this.names);
      try {
        await client.query("BEGIN");
        const result = await fn(inner);
        if (inner.nameFailed) throw new Error("a statement failed for its name");
        await client.query("COMMIT");
        return result;
      } catch (err) {
        await client.query("ROLLBACK").catch((e: Error) => {
          broken = e;
        });
        const again = RETRYABLE.has((err as { code?: string }).code ?? "") || inner.nameFailed;
        if (attempt < MAX_ATTEMPTS && again) continue;
        throw unavailable(err) ?? err;
      } finally {
        out.release(broken);
      }
    }
  }

  private async savepoint<T>(fn: (q: Sql) => Promise<T>): Promise<T> {
    const name = `sp${++this.savepoints}`;
    try {
      for (;;) {
        const failedBefore = this.nameFailed;
        await this.target.query(`SAVEPOINT ${name}`);
        try {
          const result = await fn(this);
          await this.target.query(`RELEASE SAVEPOINT ${name}`);
          return result;
        } catch (err) {
          await this.target.query(`ROLLBACK TO SAVEPOINT ${name}`);
          // A statement of this savepoint failed for its name: it runs again, unnamed.
          if (this.nameFailed && !failedBefore) {
            this.nameFailed = false;
            continue;
          }
          throw err;
        }
      }
    } finally {
      this.savepoints--;
    }
  }

  private text(text: string): string {
    let t = TEXTS.get(text);
    if (t === undefined) {
      t = numberedPlaceholders(text);
      TEXTS.set(text, t);
    }
    return t;
  }
}

/**
 * The database cannot be reached or cannot take writes (connection lost or refused, server
 * shutting down, too many connections, disk full, read-only): `storage_unavailable`, which
 * tells clients nothing was written and to retry later. Other errors stay as they are.
 */
export function unavailable(err: unknown): ClawError | undefined {
  if (err instanceof ClawError) return undefined;
  const code = String((err as { code?: unknown } | null)?.code ?? "");
  const message = (err as Error | null)?.message ?? "";
  const lost =
    /^(08|53|57P|58)/.test(code) ||
    code === "25006" ||
    /^E(CONNREFUSED|CONNRESET|PIPE|TIMEDOUT|HOSTUNREACH|NETUNREACH|AI_AGAIN)$|^ENOTFOUND$/.test(code) ||
    code === "57014" || // statement_timeout: the server did not finish in time
    /Connection terminated|connection timeout|Client has encountered a connection error|Query read timeout|timeout exceeded when trying to connect/i.test(
      message,
    );
  if (!lost) return undefined;
  return new ClawError(
    "storage_unavailable",
    `the PostgreSQL database is unavailable (${code || message}); nothing was written, retry later`,
    {
      postgres: code || "connection",
    },
  );
}
