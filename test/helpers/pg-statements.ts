/**
 * Records the text of every statement `pg` clients send in this process (its whitespace runs
 * made one space), for tests that count a claw's round trips to PostgreSQL.
 */
import pg from "pg";

/** Starts recording into `sent`; returns the function that stops it. */
export function recordPgStatements(sent: string[]): () => void {
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const text = typeof args[0] === "string" ? args[0] : (args[0] as { text?: string } | undefined)?.text;
    sent.push((text ?? "").replace(/\s+/g, " ").trim());
    return query.apply(this, args);
  } as typeof pg.Client.prototype.query;
  return () => {
    pg.Client.prototype.query = query as typeof pg.Client.prototype.query;
  };
}
