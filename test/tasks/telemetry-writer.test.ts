/**
 * The telemetry writer's statements: on SQLite a batch of any size goes as statements of four
 * sizes (every prepared text is kept for good, so one per batch size held native memory for
 * each size that ever occurred), every row written in order; on PostgreSQL one per 64 rows.
 */
import { afterEach, expect, test } from "vitest";
import { type OpenedDb, openDb } from "../../src/store/db.js";
import type { Sql, SqlValue } from "../../src/store/sql.js";
import { SqliteSql } from "../../src/store/sqlite-sql.js";
import { TELEMETRY_COLUMNS, TelemetryWriter } from "../../src/tasks/telemetry-writer.js";

let opened: OpenedDb | undefined;
afterEach(() => {
  opened?.close();
  opened = undefined;
});

/** `sql`, recording the text of every statement it runs. */
function recording(sql: Sql, texts: string[]): Sql {
  return {
    dialect: sql.dialect,
    all: (text, params) => sql.all(text, params),
    get: (text, params) => sql.get(text, params),
    run: (text, params) => {
      texts.push(text);
      return sql.run(text, params);
    },
    tx: (fn) => sql.tx(fn),
  };
}

/** One telemetry row (TELEMETRY_COLUMNS order) whose `ts` is `i`. */
const row = (i: number): SqlValue[] => [i, "check_task", `task_${i}`, i, 0, 0, "todo", 1, 0, 0, null, null];
const rowsIn = (text: string) => text.split("), (").length;

test("on SQLite, batches of 1 to 70 rows use statements of 64, 16, 4 and 1 rows only, and keep every row's order", async () => {
  expect(row(0)).toHaveLength(TELEMETRY_COLUMNS.length);
  opened = openDb(":memory:");
  const texts: string[] = [];
  const writer = new TelemetryWriter(recording(new SqliteSql(opened.db), texts));
  let n = 0;
  for (let batch = 1; batch <= 70; batch++) {
    for (let k = 0; k < batch; k++) writer.add(row(n++));
    await writer.settled();
  }
  expect([...new Set(texts.map(rowsIn))].sort((a, b) => a - b)).toEqual([1, 4, 16, 64]);
  // 63 rows: three statements of 16, three of 4, three of 1.
  const stored = opened.db.prepare("SELECT ts FROM telemetry ORDER BY id").all() as { ts: number }[];
  expect(stored.map((r) => r.ts)).toEqual(Array.from({ length: n }, (_, i) => i));
});

test("on PostgreSQL a batch goes as statements of up to 64 rows", async () => {
  const texts: string[] = [];
  const values: SqlValue[][] = [];
  const fake: Sql = {
    dialect: "postgres",
    all: async () => [],
    get: async () => undefined,
    run: async (text, params) => {
      texts.push(text);
      values.push([...(params ?? [])]);
      return { changes: rowsIn(text) };
    },
    tx: (fn) => fn(fake),
  };
  const writer = new TelemetryWriter(fake);
  for (let i = 0; i < 70; i++) writer.add(row(i));
  await writer.settled();
  expect(texts.map(rowsIn)).toEqual([64, 6]);
  expect(values.flat().filter((_, i) => i % TELEMETRY_COLUMNS.length === 0)).toEqual(
    Array.from({ length: 70 }, (_, i) => i),
  );
});
