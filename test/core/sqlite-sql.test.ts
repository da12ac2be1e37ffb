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
    const exclusive = sql.exclusive(() => {
      const rows = db.prepare("SELECT k FROM t").all();
      order.push(`exclusive saw ${db.inTransaction ? "a transaction" : "none"} and ${JSON.stringify(rows)}`);
    });
    // Deliberately let time pass: nothing outside may run while the transaction is open.
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual([]);
    release();
    await expect(tx).rejects.toThrow("roll back");
    await Promise.all([outside, exclusive]);
    // The outside write runs first (its group commits before exclusive work may start); the two
    // settle at that one commit, in either order.
    expect(order[0]).toBe("tx body done");
    expect(order.slice(1).sort()).toEqual(['exclusive saw none and [{"k":"outside"}]', "outside ran"]);
    expect(await sql.all("SELECT k FROM t")).toEqual([{ k: "outside" }]);
  });

  it("group-commits the writes of one turn: one COMMIT, and each write resolves only after it", async () => {
    let commits = 0;
    const exec = db.exec.bind(db);
    db.exec = (text: string) => {
      if (text === "COMMIT") commits++;
      return exec(text);
    };
    const writes = Array.from({ length: 50 }, (_, i) => sql.run("INSERT INTO t (k, v) VALUES (?, ?)", [`k${i}`, i]));
    const tx = sql.tx(async (q) => {
      await q.run("INSERT INTO t (k, v) VALUES ('tx', 1)");
      return "tx done";
    });
    expect(db.inTransaction).toBe(true); // executed, not yet committed
    const acked: boolean[] = [];
    for (const w of writes) void w.then(() => acked.push(!db.inTransaction));
    expect(await tx).toBe("tx done");
    await Promise.all(writes);
    expect(acked).toEqual(Array(50).fill(true));
    expect(commits).toBe(1);
    expect(await sql.get("SELECT COUNT(*) AS n FROM t")).toEqual({ n: 51 });
  });

  it("a read made while writes wait for their commit runs after it, and sees them", async () => {
    const write = sql.run("INSERT INTO t (k, v) VALUES ('w', 7)");
    const read = sql.get<{ v: number }>("SELECT v FROM t WHERE k = 'w'").then((row) => ({
      row,
      open: db.inTransaction,
    }));
    expect(await read).toEqual({ row: { v: 7 }, open: false });
    await write;
  });

  it("exclusive work never runs inside a group, even one opened the moment the previous one committed", async () => {
    const seen: boolean[] = [];
    // Writers that write again as soon as their write is acknowledged: a group is open at
    // almost every moment, and exclusive work must still find the connection free (and run).
    let stop = false;
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        await sql.run("INSERT INTO t (k, v) VALUES (?, ?)", [`w${w}-${i}`, i]);
        for (let hop = 0; hop < w; hop++) await null; // each writer comes back a different number of steps later
      }
    };
    const writers = Array.from({ length: 8 }, (_, w) => writer(w));
    for (let i = 0; i < 50; i++) await sql.exclusive(() => seen.push(db.inTransaction));
    const reads = await Promise.all(Array.from({ length: 20 }, () => sql.get("SELECT COUNT(*) AS n FROM t")));
    stop = true;
    await Promise.all(writers);
    expect(seen).toEqual(Array(50).fill(false));
    expect(reads).toHaveLength(20);
  });

  it("a write that fails fails alone: the others of its group commit", async () => {
    await sql.run("INSERT INTO t (k, v) VALUES ('dup', 0)");
    const results = await Promise.allSettled([
      sql.run("INSERT INTO t (k, v) VALUES ('a', 1)"),
      sql.run("INSERT INTO t (k, v) VALUES ('dup', 2)"),
      sql.run("INSERT INTO t (k, v) VALUES ('b', 3)"),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(await sql.all("SELECT k, v FROM t ORDER BY k")).toEqual([
      { k: "a", v: 1 },
      { k: "b", v: 3 },
      { k: "dup", v: 0 },
    ]);
  });

  it("flush commits the open group at once (before the connection closes)", async () => {
    const write = sql.run("INSERT INTO t (k, v) VALUES ('last', 1)");
    sql.flush();
    expect(db.inTransaction).toBe(false);
    await write;
    expect(await sql.get("SELECT v FROM t WHERE k = 'last'")).toEqual({ v: 1 });
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

  it("work for a free connection (a checkpoint) runs at once, or after the open group's writers are answered and before the next work", async () => {
    const order: string[] = [];
    await sql.beforeNextWork(() => order.push("free"));
    expect(order).toEqual(["free"]);

    const a = sql.run("INSERT INTO t (k, v) VALUES ('a', 1)").then(() => order.push("a answered"));
    const deferred = sql.beforeNextWork(() => order.push("deferred"));
    expect(order).toEqual(["free"]); // the group is open: it waits
    await a;
    expect(order).toEqual(["free", "a answered"]);
    const b = sql.run("INSERT INTO t (k, v) VALUES ('b', 2)"); // the next group: the deferred work goes first
    expect(order).toEqual(["free", "a answered", "deferred"]);
    await Promise.all([b, deferred]);

    // Nothing after the group: it runs on the turn after the commit, once the writer was answered.
    const c = sql.run("INSERT INTO t (k, v) VALUES ('c', 3)").then(() => order.push("c answered"));
    const last = sql.beforeNextWork(() => order.push("after c"));
    await last;
    await c;
    expect(order.slice(3)).toEqual(["c answered", "after c"]);

    // A transaction body holding the connection: after its commit, before the next transaction.
    const tx = sql.tx(async (q) => {
      await q.run("INSERT INTO t (k, v) VALUES ('d', 4)");
      void sql.beforeNextWork(() => order.push("after tx"));
      await new Promise((r) => setTimeout(r, 5)); // the body holds the connection a while: "after tx" must wait
      order.push("tx body done");
    });
    await tx;
    await new Promise((r) => setImmediate(r));
    expect(order.slice(5)).toEqual(["tx body done", "after tx"]);
    expect(await sql.all("SELECT k FROM t ORDER BY k")).toHaveLength(4);
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
