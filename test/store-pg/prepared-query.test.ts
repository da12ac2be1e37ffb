/**
 * PreparedQuery against a real PostgreSQL: a named statement's columns are described once per
 * connection that prepares it, and its later calls there come back without a Describe, built
 * from the columns already known; a connection that prepares the text after a schema change
 * describes it again; values go out as `pg` encodes them; counts come from the command tag.
 */
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { PreparedNames } from "../../src/store/pg/prepared-names.js";
import { numericTypes, StatementCodec } from "../../src/store/pg/prepared-query.js";
import { PgSql } from "../../src/store/pg-sql.js";
import { createTestDatabase, type PgServer, startPgServer } from "../helpers/pg-server.js";

let server: PgServer;
let url: string;
const pools: pg.Pool[] = [];

/** A PgSql on a pool of its own (`connections` of them) sharing `names`. */
function sqlOn(names: PreparedNames, connections = 1): PgSql {
  const pool = new pg.Pool({ connectionString: url, max: connections, types: numericTypes(pg.types) });
  pool.on("error", () => {});
  pools.push(pool);
  return new PgSql(pool, pool, names);
}

beforeAll(async () => {
  server = await startPgServer();
  url = await createTestDatabase(server.url);
}, 60_000);

let codec: StatementCodec;
let names: PreparedNames;
let learned: ReturnType<typeof vi.spyOn>;

beforeEach(async () => {
  codec = await StatementCodec.load();
  learned = vi.spyOn(codec, "learn");
  names = new PreparedNames(() => {}, codec);
  const sql = sqlOn(names);
  await sql.run("DROP TABLE IF EXISTS q");
  await sql.run("CREATE TABLE q (k TEXT PRIMARY KEY, n BIGINT, flag BOOLEAN, tags TEXT[], data BYTEA, at TIMESTAMPTZ)");
});

afterEach(async () => {
  for (const p of pools.splice(0)) await p.end();
});

afterAll(async () => {
  await server?.stop();
});

describe("PreparedQuery", () => {
  it("describes a named statement's columns once per connection, then reads rows without a description", async () => {
    const sql = sqlOn(names);
    await sql.run("INSERT INTO q (k, n) VALUES (?, ?)", ["a", 1]);
    await sql.run("INSERT INTO q (k, n) VALUES (?, ?)", ["b", 2]);
    const select = "SELECT k, n FROM q WHERE n >= ? ORDER BY k";
    expect(await sql.all(select, [0])).toEqual([
      { k: "a", n: 1 },
      { k: "b", n: 2 },
    ]);
    const after = learned.mock.calls.length;
    expect(await sql.all(select, [2])).toEqual([{ k: "b", n: 2 }]);
    expect(await sql.all(select, [3])).toEqual([]);
    // Neither later call was described: nothing new was learned.
    expect(learned.mock.calls.length).toBe(after);
    // A statement that returns no rows is learned as such, once, as well.
    const update = "UPDATE q SET n = n + 1 WHERE k = ?";
    expect(await sql.run(update, ["a"])).toEqual({ changes: 1 });
    const afterUpdate = learned.mock.calls.length;
    expect(await sql.run(update, ["zz"])).toEqual({ changes: 0 });
    expect(learned.mock.calls.length).toBe(afterUpdate);
  });

  it("a connection that prepares the text after a column was added describes it anew", async () => {
    const first = sqlOn(names);
    await first.run("INSERT INTO q (k, n) VALUES (?, ?)", ["a", 1]);
    expect(await first.get("SELECT * FROM q WHERE k = ?", ["a"])).toMatchObject({ k: "a", n: 1 });
    await first.run("ALTER TABLE q ADD COLUMN extra INT NOT NULL DEFAULT 7");
    // Another connection (the same names and codec, as two connections of one pool) prepares
    // the same text for the first time: it sees the new column.
    const second = sqlOn(names);
    expect(await second.get("SELECT * FROM q WHERE k = ?", ["a"])).toMatchObject({ k: "a", n: 1, extra: 7 });
    expect(await second.get("SELECT * FROM q WHERE k = ?", ["a"])).toMatchObject({ k: "a", extra: 7 });
    // The first connection's statement fails for its name (its result changed), and runs unnamed.
    expect(await first.get("SELECT * FROM q WHERE k = ?", ["a"])).toMatchObject({ k: "a", extra: 7 });
  });

  it("sends values as pg encodes them and reads them back as SQLite would", async () => {
    const sql = sqlOn(names);
    const at = new Date("2026-12-05T10:00:00Z");
    const insert =
      "INSERT INTO q (k, n, flag, tags, data, at) VALUES (?, ?, ?, ?, ?, ?) RETURNING k, n, flag, tags, data, at";
    for (let i = 0; i < 2; i++) {
      const row = await sql.get<Record<string, unknown>>(insert, [
        `k${i}`,
        2n ** 40n + BigInt(i),
        true,
        ["a", 'b "quoted"', null] as never,
        Buffer.from([0, 1, 255]),
        at as never,
      ]);
      expect(row).toMatchObject({ k: `k${i}`, n: 2 ** 40 + i, flag: true, tags: ["a", 'b "quoted"', null] });
      expect(Buffer.from(row!.data as Uint8Array)).toEqual(Buffer.from([0, 1, 255]));
      expect((row!.at as Date).getTime()).toBe(at.getTime());
    }
    const nulls = await sql.get("INSERT INTO q (k, n) VALUES (?, ?) RETURNING n, flag", ["nulls", null]);
    expect(nulls).toEqual({ n: null, flag: null });
  });

  it("counts the rows a statement changed from its command tag", async () => {
    const sql = sqlOn(names);
    expect(await sql.run("INSERT INTO q (k) SELECT 'x' || g FROM generate_series(1, 5) AS g")).toEqual({ changes: 5 });
    expect(await sql.run("UPDATE q SET n = 3 WHERE k LIKE ?", ["x%"])).toEqual({ changes: 5 });
    expect(await sql.run("DELETE FROM q WHERE k IN (?, ?)", ["x1", "x2"])).toEqual({ changes: 2 });
    expect(await sql.run("SELECT k FROM q")).toEqual({ changes: 3 });
  });

  it("a value that cannot be encoded fails that statement alone, and the connection goes on", async () => {
    const sql = sqlOn(names);
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    await expect(sql.run("INSERT INTO q (k, tags) VALUES (?, ?)", ["c", circular as never])).rejects.toThrow(
      /circular/i,
    );
    expect(await sql.run("INSERT INTO q (k) VALUES (?)", ["after"])).toEqual({ changes: 1 });
    expect(await sql.all("SELECT k FROM q")).toEqual([{ k: "after" }]);
  });

  it("an error from the server fails the statement, inside a transaction as outside", async () => {
    const sql = sqlOn(names, 2);
    await sql.run("INSERT INTO q (k) VALUES (?)", ["dup"]);
    await expect(sql.run("INSERT INTO q (k) VALUES (?)", ["dup"])).rejects.toMatchObject({ code: "23505" });
    await expect(
      sql.tx(async (q) => {
        await q.run("INSERT INTO q (k) VALUES (?)", ["in-tx"]);
        await q.run("INSERT INTO q (k) VALUES (?)", ["dup"]);
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(await sql.all("SELECT k FROM q ORDER BY k")).toEqual([{ k: "dup" }]);
  });
});
