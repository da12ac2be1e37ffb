/**
 * An `IN` list's placeholders: lists of up to 128 values are padded to the next power of two
 * (at most eight statement texts for every length a page can choose), the padding repeats the
 * last value so the rows matched stay the same, and a list of none matches nothing.
 */
import Database from "better-sqlite3";
import { expect, test } from "vitest";
import { inList } from "../../src/store/in-list.js";

test("lists of 1 to 128 values use eight texts; longer ones go as they are", () => {
  const texts = new Set<string>();
  for (let n = 1; n <= 128; n++) {
    const values = Array.from({ length: n }, (_, i) => i + 1);
    const { sql, params } = inList(values);
    texts.add(sql);
    expect(sql.split("?").length - 1).toBe(params.length);
    expect(params.slice(0, n)).toEqual(values);
    expect(new Set(params.slice(n))).toEqual(n === params.length ? new Set() : new Set([n]));
  }
  expect(texts.size).toBe(8);
  expect(inList(Array.from({ length: 200 }, (_, i) => i)).params).toHaveLength(200);
});

test("a padded list matches each row once, and an empty one matches none", () => {
  const db = new Database(":memory:");
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY)");
  for (let i = 1; i <= 10; i++) db.prepare("INSERT INTO t (id) VALUES (?)").run(i);
  const ids = (values: number[]) => {
    const list = inList(values);
    return (
      db.prepare(`SELECT id FROM t WHERE id IN ${list.sql} ORDER BY id`).all(...list.params) as { id: number }[]
    ).map((r) => r.id);
  };
  expect(ids([7, 3, 9])).toEqual([3, 7, 9]);
  expect(ids([5, 6, 7, 8, 1])).toEqual([1, 5, 6, 7, 8]);
  expect(ids([])).toEqual([]);
  db.close();
});
