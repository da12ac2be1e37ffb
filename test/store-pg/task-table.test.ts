/**
 * The tasks table is defined once (src/tasks/task-row.ts): the table each engine's migrations
 * build has exactly its columns, in its order, with its types and nullability. SQLite in
 * memory, and a real PostgreSQL.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { openStore } from "../../src/store/open-storage.js";
import { type ColumnDef, TASK_COLUMNS } from "../../src/tasks/task-row.js";
import { createTestDatabase, type PgServer, startPgServer } from "../helpers/pg-server.js";

/** The definition as [name, type, nullable] rows. */
const DEFINED = Object.entries(TASK_COLUMNS).map(([name, c]: [string, ColumnDef]) => [name, c.type, c.nullable]);

let server: PgServer;
beforeAll(async () => {
  server = await startPgServer();
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

it("SQLite's tasks table is the definition", async () => {
  const store = openStore(":memory:");
  await store.ready;
  const cols = await store.sql.all<{ name: string; type: string; notnull: number; pk: number }>(
    "SELECT name, type, \"notnull\", pk FROM pragma_table_info('tasks') ORDER BY cid",
  );
  await store.close();
  const TYPES: Record<string, ColumnDef["type"]> = { INTEGER: "integer", TEXT: "text" };
  // An INTEGER PRIMARY KEY is the rowid: never NULL, whatever the pragma's notnull says.
  expect(cols.map((c) => [c.name, TYPES[c.type] ?? c.type, c.notnull === 0 && c.pk === 0])).toEqual(DEFINED);
});

it("PostgreSQL's tasks table is the definition", async () => {
  const store = openStore(await createTestDatabase(server.url));
  await store.ready;
  const cols = await store.sql.all<{ name: string; type: string; nullable: string }>(
    `SELECT column_name AS name, data_type AS type, is_nullable AS nullable FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = 'tasks' ORDER BY ordinal_position`,
  );
  await store.close();
  const TYPES: Record<string, ColumnDef["type"]> = { bigint: "integer", text: "text" };
  expect(cols.map((c) => [c.name, TYPES[c.type] ?? c.type, c.nullable === "YES"])).toEqual(DEFINED);
});
