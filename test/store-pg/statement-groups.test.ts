/**
 * Writes outside a transaction go to PostgreSQL in groups while one is on its way
 * (pg/statement-groups.ts, group-query.ts), against a real server: each caller gets its own
 * statement's rows, many writes cost few round trips, a statement that fails fails alone and
 * its group's other writes are each written exactly once, and writes never wait behind reads.
 */
import { beforeAll, expect, test, vi } from "vitest";
import { openPg } from "../../src/store/pg/open-pg.js";
import { isWrite } from "../../src/store/pg/statement-groups.js";
import { useOpenedPg } from "../helpers/use-pg-server.js";

const pg = useOpenedPg();

beforeAll(async () => {
  await pg.db.sql.run(
    "CREATE TABLE grouped (id INTEGER PRIMARY KEY, note TEXT NOT NULL, n INTEGER NOT NULL DEFAULT 0)",
  );
});

test("writes are told from reads by their text", () => {
  expect(isWrite("INSERT INTO t (a) VALUES (?)")).toBe(true);
  expect(isWrite("  update t SET a = 1")).toBe(true);
  expect(isWrite("DELETE FROM t")).toBe(true);
  expect(isWrite("WITH c AS (SELECT 1) UPDATE t SET a = 1")).toBe(true);
  expect(isWrite("WITH m AS (INSERT INTO t VALUES (1) RETURNING *) SELECT * FROM m")).toBe(true);
  expect(isWrite("SELECT * FROM t WHERE note = 'INSERT'")).toBe(false);
  expect(isWrite("SELECT pg_sleep(1)")).toBe(false);
});

test("writes at once go in few round trips, each answered with its own rows", async () => {
  const queries = vi.spyOn(pg.db.pool, "query");
  try {
    const written = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        pg.db.sql.get<{ id: number; note: string }>("INSERT INTO grouped (id, note) VALUES (?, ?) RETURNING id, note", [
          i,
          `note ${i} ü`,
        ]),
      ),
    );
    expect(written).toEqual(Array.from({ length: 40 }, (_, i) => ({ id: i, note: `note ${i} ü` })));
    // The first went alone; the 39 that came while it was on its way went as one group.
    expect(queries.mock.calls.length).toBeLessThanOrEqual(3);
  } finally {
    queries.mockRestore();
  }
  const changed = await Promise.all(
    Array.from({ length: 40 }, (_, i) => pg.db.sql.run("UPDATE grouped SET n = n + 1 WHERE id = ?", [i % 20])),
  );
  expect(changed.map((c) => c.changes)).toEqual(Array(40).fill(1));
  const rows = await pg.db.sql.all<{ n: number }>("SELECT n FROM grouped WHERE id < 20 ORDER BY id");
  expect(rows.map((r) => r.n)).toEqual(Array(20).fill(2));
});

test("a statement that fails fails alone: the others of its group are written once each", async () => {
  await pg.db.sql.run("DELETE FROM grouped");
  await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      pg.db.sql.run("INSERT INTO grouped (id, note) VALUES (?, ?)", [101 + i, "ok"]),
    ),
  );
  const outcomes = await Promise.allSettled([
    pg.db.sql.run("INSERT INTO grouped (id, note) VALUES (?, ?)", [100, "first"]),
    ...Array.from({ length: 10 }, (_, i) =>
      pg.db.sql.run("INSERT INTO grouped (id, note) VALUES (?, ?)", [111 + i, "new"]),
    ),
    // A duplicate key and a value the column refuses, in the middle of the group.
    pg.db.sql.run("INSERT INTO grouped (id, note) VALUES (?, ?)", [101, "again"]),
    pg.db.sql.run("INSERT INTO grouped (id, note) VALUES (?, ?)", [200, null]),
    ...Array.from({ length: 10 }, (_, i) => pg.db.sql.run("UPDATE grouped SET n = n + 1 WHERE id = ?", [101 + i])),
  ]);
  const failed = outcomes.flatMap((o, i) =>
    o.status === "rejected" ? [[i, (o.reason as { code?: string }).code]] : [],
  );
  expect(failed).toEqual([
    [11, "23505"],
    [12, "23502"],
  ]);
  const rows = await pg.db.sql.all<{ id: number; n: number; note: string }>(
    "SELECT id, n, note FROM grouped ORDER BY id",
  );
  expect(rows).toEqual([
    { id: 100, n: 0, note: "first" },
    ...Array.from({ length: 10 }, (_, i) => ({ id: 101 + i, n: 1, note: "ok" })),
    ...Array.from({ length: 10 }, (_, i) => ({ id: 111 + i, n: 0, note: "new" })),
  ]);
  // The store goes on serving.
  expect((await pg.db.sql.run("UPDATE grouped SET n = 5 WHERE id = 100")).changes).toBe(1);
});

test("a row held by another transaction holds up its own write only, not the rest of its group", async () => {
  await pg.db.sql.run("INSERT INTO grouped (id, note) VALUES (?, ?) ON CONFLICT (id) DO NOTHING", [400, "held"]);
  const holder = await pg.db.pool.connect();
  try {
    await holder.query("BEGIN");
    await holder.query("UPDATE grouped SET n = n + 100 WHERE id = 400");
    const t0 = performance.now();
    const first = pg.db.sql.run("UPDATE grouped SET note = 'x' WHERE id = 100");
    // These come while the first is on its way: one group, one of them on the held row.
    const blocked = pg.db.sql
      .run("UPDATE grouped SET n = n + 1 WHERE id = ?", [400])
      .then(() => performance.now() - t0);
    const others = Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        pg.db.sql.run("INSERT INTO grouped (id, note) VALUES (?, ?)", [410 + i, "free"]),
      ),
    ).then(() => performance.now() - t0);
    await first;
    expect(await others).toBeLessThan(900);
    setTimeout(() => void holder.query("COMMIT"), 1200 - (performance.now() - t0));
    expect(await blocked).toBeGreaterThanOrEqual(1100);
  } finally {
    holder.release();
  }
  expect((await pg.db.sql.get<{ n: number }>("SELECT n FROM grouped WHERE id = 400"))!.n).toBe(101);
  expect((await pg.db.sql.all("SELECT id FROM grouped WHERE note = 'free'")).length).toBe(5);
});

test("a write never waits behind a long read (reads are not grouped)", async () => {
  const slow = pg.db.sql.get("SELECT pg_sleep(0.5) AS slept");
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 10 }, (_, i) => pg.db.sql.run("UPDATE grouped SET n = ? WHERE id = 100", [i])),
  );
  expect(performance.now() - t0).toBeLessThan(400);
  await slow;
});

test("a group whose answer does not come in time is not sent again: each write is made once", async () => {
  // query_timeout: the client stops waiting at 300 ms while the server goes on and commits.
  const impatient = await openPg(`${pg.url}${pg.url.includes("?") ? "&" : "?"}query_timeout=300`);
  try {
    await impatient.sql.run("INSERT INTO grouped (id, note) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET n = 0", [
      300,
      "slow",
    ]);
    const first = impatient.sql.run("UPDATE grouped SET note = 'first' WHERE id = ?", [300]);
    // These two come while the first is on its way: one group, answered after the timeout.
    const outcomes = await Promise.allSettled([
      impatient.sql.run("UPDATE grouped SET n = n + 1 WHERE id = ? AND pg_sleep(0.6) IS NOT NULL", [300]),
      impatient.sql.run("UPDATE grouped SET n = n + 10 WHERE id = ?", [300]),
    ]);
    await first;
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
    expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/timeout|unavailable/i);
    // The server committed the group once (both updates at once: 0 → 11), and nothing sent it
    // again (a second send would have gone on to 12 and 22).
    await vi.waitFor(
      async () => expect((await pg.db.sql.get<{ n: number }>("SELECT n FROM grouped WHERE id = 300"))!.n).toBe(11),
      { timeout: 10_000, interval: 50 },
    );
  } finally {
    await impatient.close();
  }
});
