import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RowInserter } from "../../src/store/sqlite-row-inserter.js";

describe("RowInserter", () => {
  let db: Database.Database;
  let rows: RowInserter;
  beforeEach(() => {
    db = new Database(":memory:");
    db.exec("CREATE TABLE t (n INTEGER PRIMARY KEY, text TEXT NOT NULL)");
    rows = new RowInserter(db, "INSERT INTO t (n, text) VALUES", "(?, ?)");
  });
  afterEach(() => db.close());

  const valuesOf = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => [from + i, `row ${from + i}`]).flat();
  const insert = (from: number, count: number) => db.transaction(() => rows.insert(valuesOf(from, count)))();

  // Every split of the chunks (100, 10, 1): none, one of each, each one short and one past.
  it.each([0, 1, 9, 10, 11, 99, 100, 101, 111, 199, 250, 1000])("inserts %i rows, each once and in full", (count) => {
    insert(1, count);
    const got = db.prepare("SELECT n, text FROM t ORDER BY n").all() as { n: number; text: string }[];
    expect(got).toEqual(Array.from({ length: count }, (_, i) => ({ n: i + 1, text: `row ${i + 1}` })));
  });

  it("refuses values that are not whole rows, inserting none of them", () => {
    expect(() => rows.insert([1, "one", 2])).toThrow(RangeError);
    expect(db.prepare("SELECT count(*) FROM t").pluck().get()).toBe(0);
  });

  it("keeps nothing of a transaction that failed before its insert", () => {
    expect(() =>
      db.transaction(() => {
        valuesOf(1, 1);
        throw new Error("the caller failed");
      })(),
    ).toThrow("the caller failed");
    insert(2, 1);
    expect(db.prepare("SELECT n FROM t").pluck().all()).toEqual([2]);
  });

  it("keeps nothing of one transaction for the next", () => {
    insert(1, 57);
    insert(58, 143);
    expect(db.prepare("SELECT count(*) AS c, min(n) AS lo, max(n) AS hi FROM t").get()).toEqual({
      c: 200,
      lo: 1,
      hi: 200,
    });
  });

  it("rolls back with its transaction and keeps none of the failed rows", () => {
    insert(1, 5);
    // The first 100 rows go in one statement, then the duplicate key fails alone.
    expect(() => db.transaction(() => rows.insert([...valuesOf(6, 100), 1, "a duplicate key"]))()).toThrow(/UNIQUE/);
    insert(6, 3);
    expect(db.prepare("SELECT n FROM t ORDER BY n").pluck().all()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});
