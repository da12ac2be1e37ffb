/**
 * Records the text of every statement `pg` clients send in this process (its whitespace runs
 * made one space), for tests that count a claw's round trips to PostgreSQL; and such a claw.
 */
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { type Claw, type ClawOptions, createClaw } from "../../src/index.js";
import { createTestDatabase, dropTestDatabase } from "./pg-server.js";
import { usePgServer } from "./use-pg-server.js";

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

/**
 * A claw on a fresh database of the file's PostgreSQL server (usePgServer), for the file's tests,
 * with every statement sent while it lives recorded in `sent`. Read `.claw` inside a test.
 */
export function useRecordedPgClaw(options: Omit<ClawOptions, "db">): { readonly claw: Claw; readonly sent: string[] } {
  const server = usePgServer();
  const sent: string[] = [];
  let url: string | undefined;
  let claw: Claw | undefined;
  let stop = () => {};
  beforeAll(async () => {
    url = await createTestDatabase(server.url);
    stop = recordPgStatements(sent);
    claw = createClaw({ ...options, db: url });
    await claw.ready();
  }, 60_000);
  afterAll(async () => {
    stop();
    await claw?.close();
    if (url) await dropTestDatabase(url);
  });
  return {
    get claw() {
      if (!claw) throw new Error("useRecordedPgClaw: the claw is made in beforeAll (read .claw inside a test)");
      return claw;
    },
    sent,
  };
}
