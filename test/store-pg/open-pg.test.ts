/**
 * Closing a PostgreSQL store against a real server: `close` resolves once the pool's
 * connections have really closed, so whatever comes next (dropping the database, stopping the
 * server, the process exiting) finds none of their backends.
 */
import pg from "pg";
import { expect, test } from "vitest";
import { openPg } from "../../src/store/pg/open-pg.js";
import { createTestDatabase } from "../helpers/pg-server.js";
import { usePgServer } from "../helpers/use-pg-server.js";

const server = usePgServer();

/** Backends connected to `database`, seen from a connection to another one. */
async function backends(watcher: pg.Client, database: string): Promise<number> {
  const { rows } = await watcher.query("SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE datname = $1", [
    database,
  ]);
  return (rows[0] as { n: number }).n;
}

test("close resolves only once every pooled connection has closed", async () => {
  // Connected beforehand: the count is taken the moment close resolves.
  const watcher = new pg.Client({ connectionString: server.url });
  await watcher.connect();
  for (let round = 0; round < 5; round++) {
    const url = await createTestDatabase(server.url);
    const database = new URL(url).pathname.slice(1);
    const logged: string[] = [];
    const db = await openPg(url, { maxConnections: 6, log: (m) => logged.push(m) });
    // Six statements at once: six connections, idle in the pool afterwards.
    await Promise.all(Array.from({ length: 6 }, () => db.sql.get("SELECT pg_sleep(0.02) AS slept")));
    expect(db.pool.totalCount).toBe(6);
    await db.close();
    expect(await backends(watcher, database)).toBe(0);
    expect(logged).toEqual([]);
  }
  await watcher.end();
});
