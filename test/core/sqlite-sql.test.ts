import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { numberedPlaceholders } from "../../src/store/sql.js";
import { SqliteSql } from "../../src/store/sqlite-sql.js";

describe("SqliteSql", () => {
  let db: Database.Database;
  let sql: SqliteSql;
  beforeEach(() => {
    db = new Database(":memory:");
    db.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)");
    sql = new SqliteSql(db);
  });
  afterEach(() => db.close());

  it("runs statements, gets rows and counts changes", async () => {
    expect(await sql.run("INSERT INTO t (k, v) VALUES (?, ?), (?, ?)", ["a", 1, "b", 2])).toEqual({ changes: 2 });
    expect(await sql.all("SELECT k, v FROM t ORDER BY k", [])).toEqual([
      { k: "a", v: 1 },
      { k: "b", v: 2 },
    ]);
    expect(await sql.get("SELECT v FROM t WHERE k = ?", ["b"])).toEqual({ v: 2 });
    expect(await sql.get("SELECT v FROM t WHERE k = ?", ["zz"])).toBeUndefined();
    await sql.run("INSERT INTO t (k, v) VALUES (?, ?)", ["c", true]);
    expect(await sql.get("SELECT v FROM t WHERE k = 'c'")).toEqual({ v: 1 });
  });

  it("commits a transaction that resolves and rolls back one that throws", async () => {
    await sql.tx(async (q) => {
      await q.run("INSERT INTO t (k, v) VALUES ('a', 1)");
      await q.run("INSERT INTO t (k, v) VALUES ('b', 2)");
    });
    await expect(
      sql.tx(async (q) => {
        await q.run("INSERT INTO t (k, v) VALUES ('c', 3)");
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(await sql.all("SELECT k FROM t ORDER BY k")).toEqual([{ k: "a" }, { k: "b" }]);
    expect(db.inTransaction).toBe(false);
  });

  it("rolls back a nested transaction alone (a savepoint)", async () => {
    await sql.tx(async (q) => {
      await q.run("INSERT INTO t (k, v) VALUES ('outer', 1)");
      await q
        .tx(async (inner) => {
          await inner.run("INSERT INTO t (k, v) VALUES ('inner', 2)");
          throw new Error("inner fails");
        })
        .catch(() => {});
    });
    expect(await sql.all("SELECT k FROM t")).toEqual([{ k: "outer" }]);
  });

  it("keeps statements from outside out of an open transaction, and runs them after it", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const order: string[] = [];
    const tx = sql.tx(async (q) => {
      await q.run("INSERT INTO t (k, v) VALUES ('tx', 1)");
      await gate; // only a test may wait on something else: it proves outsiders stay out
      order.push("tx body done");
      throw new Error("roll back");
    });
    const outside = sql.run("INSERT INTO t (k, v) VALUES ('outside', 2)").then(() => order.push("outside ran"));
    const exclusive = sql.exclusive(() => order.push(`exclusive saw ${db.inTransaction ? "a transaction" : "none"}`));
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual([]);
    release();
    await expect(tx).rejects.toThrow("roll back");
    await Promise.all([outside, exclusive]);
    expect(order).toEqual(["tx body done", "outside ran", "exclusive saw none"]);
    expect(await sql.all("SELECT k FROM t")).toEqual([{ k: "outside" }]);
  });

  it("serialises concurrent transactions: every read-modify-write counts", async () => {
    await sql.run("INSERT INTO t (k, v) VALUES ('n', 0)");
    await Promise.all(
      Array.from({ length: 200 }, () =>
        sql.tx(async (q) => {
          const row = await q.get<{ v: number }>("SELECT v FROM t WHERE k = 'n'");
          await q.run("UPDATE t SET v = ? WHERE k = 'n'", [row!.v + 1]);
        }),
      ),
    );
    expect(await sql.get("SELECT v FROM t WHERE k = 'n'")).toEqual({ v: 200 });
  });
});

describe("numberedPlaceholders", () => {
  it("numbers ? in order and leaves quoted ones alone", () => {
    expect(numberedPlaceholders("SELECT * FROM t WHERE a = ? AND b = '?' AND c IN (?, ?)")).toBe(
      "SELECT * FROM t WHERE a = $1 AND b = '?' AND c IN ($2, $3)",
    );
    expect(numberedPlaceholders(`SELECT "we?ird" FROM t WHERE x = ?`)).toBe(`SELECT "we?ird" FROM t WHERE x = $1`);
  });
});
