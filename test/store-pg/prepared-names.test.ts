/**
 * Named (server-side prepared) statements against a real PostgreSQL: PgSql's statements are
 * prepared once per connection under a name made from their text; a server that lost them (as
 * behind a pooler that switches server connections) and a schema change under a prepared
 * `SELECT *` cost nothing but one unnamed retry, outside a transaction and inside one.
 */
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PreparedNames } from "../../src/store/pg/prepared-names.js";
import { numericTypes, StatementCodec } from "../../src/store/pg/prepared-query.js";
import { PgSql } from "../../src/store/pg-sql.js";
import { createTestDatabase, type PgServer, startPgServer } from "../helpers/pg-server.js";

let server: PgServer;
let url: string;
let pool: pg.Pool;
let logged: string[];
let names: PreparedNames;
let sql: PgSql;
let codec: StatementCodec;

/** The names prepared on the pool's one connection. */
async function prepared(): Promise<string[]> {
  const { rows } = await pool.query("SELECT name FROM pg_prepared_statements ORDER BY name");
  return (rows as { name: string }[]).map((r) => r.name);
}

beforeAll(async () => {
  codec = await StatementCodec.load();
  server = await startPgServer();
  url = await createTestDatabase(server.url);
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  await setup.query("CREATE TABLE t (k TEXT PRIMARY KEY, v BIGINT NOT NULL)");
  await setup.end();
}, 60_000);

// A new pool per test (the client remembers what it prepared), of one connection: what one
// statement prepared, the next one sees.
beforeEach(async () => {
  pool = new pg.Pool({ connectionString: url, max: 1, types: numericTypes(pg.types) });
  pool.on("error", () => {});
  logged = [];
  names = new PreparedNames((m) => logged.push(m), codec);
  sql = new PgSql(pool, pool, names);
  await pool.query("DELETE FROM t");
});

afterEach(async () => {
  await pool.end();
});

afterAll(async () => {
  await server?.stop();
});

describe("prepared statement names", () => {
  it("prepares each text once, under a name made from the text alone", async () => {
    await sql.run("INSERT INTO t (k, v) VALUES (?, ?)", ["a", 1]);
    await sql.run("INSERT INTO t (k, v) VALUES (?, ?)", ["b", 2]);
    expect(await sql.get("SELECT v FROM t WHERE k = ?", ["b"])).toEqual({ v: 2 });
    const got = await prepared();
    expect(got).toHaveLength(2);
    for (const name of got) expect(name).toMatch(/^tsclaw_[0-9a-f]{40}$/);
    // Another process names the same text the same way, and another text otherwise.
    const other = new PreparedNames(() => {}, codec);
    expect(other.prepared("INSERT INTO t (k, v) VALUES ($1, $2)", []).name).toBe(
      names.prepared("INSERT INTO t (k, v) VALUES ($1, $2)", []).name,
    );
    expect(other.prepared("SELECT 1", []).name).not.toBe(other.prepared("SELECT 2", []).name);
  });

  it("a server that lost its statements: the statement runs again unnamed, and naming stops", async () => {
    await sql.run("INSERT INTO t (k, v) VALUES (?, ?)", ["a", 1]);
    // The server forgets; the client still takes the statement for prepared and sends a Bind.
    await pool.query("DEALLOCATE ALL");
    expect(await sql.run("INSERT INTO t (k, v) VALUES (?, ?)", ["b", 2])).toEqual({ changes: 1 });
    expect(await sql.all("SELECT k FROM t ORDER BY k")).toEqual([{ k: "a" }, { k: "b" }]);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/26000.*unnamed from now on/);
    expect(await prepared()).toEqual([]);
  });

  it("inside a transaction: the transaction runs again, once, and commits everything once", async () => {
    await sql.get("SELECT v FROM t WHERE k = ?", ["x"]);
    await pool.query("DEALLOCATE ALL");
    let runs = 0;
    await sql.tx(async (q) => {
      runs++;
      await q.run("INSERT INTO t (k, v) VALUES (?, ?)", ["in-tx", 1]);
      return q.get("SELECT v FROM t WHERE k = ?", ["in-tx"]);
    });
    expect(runs).toBe(2);
    expect(await sql.all("SELECT k, v FROM t")).toEqual([{ k: "in-tx", v: 1 }]);
    expect(logged).toHaveLength(1);
  });

  it("inside a savepoint: the savepoint runs again, and the transaction around it once", async () => {
    await sql.get("SELECT v FROM t WHERE k = ?", ["x"]);
    await pool.query("DEALLOCATE ALL");
    let outer = 0;
    let inner = 0;
    await sql.tx(async (q) => {
      outer++;
      await q.run("INSERT INTO t (k, v) VALUES ('outer', 1)");
      await q.tx(async (s) => {
        inner++;
        await s.get("SELECT v FROM t WHERE k = ?", ["outer"]);
        await s.run("INSERT INTO t (k, v) VALUES ('inner', 2)");
      });
    });
    // The outer INSERT was never prepared, so it is parsed anew; the savepoint's SELECT, which
    // the server forgot, is the first statement to fail.
    expect([outer, inner]).toEqual([1, 2]);
    expect(await sql.all("SELECT k FROM t ORDER BY k")).toEqual([{ k: "inner" }, { k: "outer" }]);
  });

  it("a name failure the transaction's own code caught: the transaction still runs again (COMMIT would roll it back)", async () => {
    await sql.get("SELECT v FROM t WHERE k = ?", ["x"]);
    await pool.query("DEALLOCATE ALL");
    let runs = 0;
    const result = await sql.tx(async (q) => {
      runs++;
      const found = await q.get("SELECT v FROM t WHERE k = ?", ["x"]).catch(() => "caught");
      await q.run("INSERT INTO t (k, v) VALUES ('kept', 1)").catch(() => {});
      return found;
    });
    expect(runs).toBe(2);
    expect(result).toBeUndefined();
    expect(await sql.all("SELECT k FROM t")).toEqual([{ k: "kept" }]);
  });

  it("a column added under a prepared SELECT *: answered with the new shape, that text unnamed from then on", async () => {
    await pool.query("CREATE TABLE wide (k TEXT PRIMARY KEY)");
    try {
      await sql.run("INSERT INTO wide (k) VALUES (?)", ["a"]);
      expect(await sql.get("SELECT * FROM wide WHERE k = ?", ["a"])).toEqual({ k: "a" });
      await pool.query("ALTER TABLE wide ADD COLUMN extra INT NOT NULL DEFAULT 7");
      expect(await sql.get("SELECT * FROM wide WHERE k = ?", ["a"])).toEqual({ k: "a", extra: 7 });
      expect(await sql.get("SELECT * FROM wide WHERE k = ?", ["a"])).toEqual({ k: "a", extra: 7 });
      expect(names.prepared("SELECT * FROM wide WHERE k = $1", []).name).toBeUndefined();
      // Other texts keep their names, and nothing was logged.
      expect(names.prepared("INSERT INTO wide (k) VALUES ($1)", []).name).toMatch(/^tsclaw_/);
      expect(logged).toEqual([]);
    } finally {
      await pool.query("DROP TABLE wide");
    }
  });

  it("errors that have nothing to do with names are not retried", async () => {
    await sql.run("INSERT INTO t (k, v) VALUES (?, ?)", ["a", 1]);
    await expect(sql.run("INSERT INTO t (k, v) VALUES (?, ?)", ["a", 2])).rejects.toMatchObject({ code: "23505" });
    let runs = 0;
    await expect(
      sql.tx(async (q) => {
        runs++;
        await q.run("INSERT INTO t (k, v) VALUES (?, ?)", ["a", 3]);
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(runs).toBe(1);
    expect(await sql.all("SELECT k, v FROM t")).toEqual([{ k: "a", v: 1 }]);
  });
});
