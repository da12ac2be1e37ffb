/**
 * Server-side prepared statements for the texts tsclaw sends over and over: a named statement
 * is parsed and planned once per connection, where an unnamed one is parsed and planned at
 * every call (a run task is ~50 statements, most of them the same dozen texts).
 *
 * A name is a hash of its text, so in every process a name means one statement. Behind a
 * pooler that hands a client's statements to several server connections (PgBouncer in
 * transaction mode without `max_prepared_statements`), a Bind that lands where another process
 * prepared the same name runs the same text, never another one; where nobody did, the server
 * answers "does not exist" (or "already exists" for a Parse), nothing ran, and naming stops for
 * this database (said once in the log) and the statement is sent again unnamed. A schema
 * change made by another node under a prepared `SELECT *` ("cached plan must not change result
 * type") stops naming that one text.
 */
import { createHash } from "node:crypto";
import { PreparedQuery, type PreparedResult, type StatementCodec } from "./prepared-query.js";

/** At most this many texts get names (server memory per connection); the rest go unnamed. */
const MAX_NAMED = 1000;

/** Something that runs queries: the pool, or one connection of it (both take a callback). */
export interface Queryable {
  query(
    query: PreparedQuery,
    values: undefined,
    callback: (err: Error | null, result?: PreparedResult) => void,
  ): unknown;
}

/** Runs `query` on `target`. */
export function send(target: Queryable, query: PreparedQuery): Promise<PreparedResult> {
  return new Promise((resolve, reject) => {
    target.query(query, undefined, (err, result) => (err ? reject(err) : resolve(result!)));
  });
}

/** The names of one database's statements, and whether naming still works there. */
export class PreparedNames {
  /** A text's name, or null for a text that must go unnamed. */
  private readonly names = new Map<string, string | null>();
  private naming = true;

  constructor(
    private readonly log: (message: string) => void,
    /** How the database's statements are encoded and their rows decoded. */
    readonly codec: StatementCodec,
  ) {}

  /** The query to send for `text`: named while naming works, else unnamed. */
  prepared(text: string, values: readonly unknown[]): PreparedQuery {
    return new PreparedQuery(this.nameOf(text), text, values, this.codec);
  }

  /**
   * Runs `text` on `target` outside a transaction; a statement that failed only for its name
   * (nothing ran) runs once more, unnamed.
   */
  async query(target: Queryable, text: string, values: readonly unknown[]): Promise<PreparedResult> {
    const query = this.prepared(text, values);
    try {
      return await send(target, query);
    } catch (err) {
      if (!this.failedForName(err, query)) throw err;
      return send(target, new PreparedQuery(undefined, text, values, this.codec));
    }
  }

  /**
   * Looks at the error of `query`: true when it failed only for its name (nothing ran), in
   * which case naming stops for the database or for this text.
   */
  failedForName(err: unknown, query: PreparedQuery): boolean {
    if (!query.name || typeof err !== "object" || err === null) return false;
    const code = (err as { code?: unknown }).code;
    if (code === "26000" || code === "42P05") {
      if (this.naming)
        this.log(
          `tsclaw: PostgreSQL lost a prepared statement (${code}: ${(err as Error).message}); a pooler is likely handing statements to other server connections: statements are sent unnamed from now on`,
        );
      this.naming = false;
    } else if (code === "0A000" && /cached plan must not change result type/.test((err as Error).message ?? "")) {
      this.names.set(query.text, null);
    } else return false;
    return true;
  }

  private nameOf(text: string): string | undefined {
    if (!this.naming) return undefined;
    let name = this.names.get(text);
    if (name === undefined) {
      if (this.names.size >= MAX_NAMED) return undefined;
      name = `tsclaw_${createHash("sha1").update(text).digest("hex")}`;
      this.names.set(text, name);
    }
    return name ?? undefined;
  }
}
