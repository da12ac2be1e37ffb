/**
 * PostgreSQL schema and migrations against a real server: nodes starting at once migrate
 * exactly once (an advisory lock), the version lives in claw_meta, every SQLite table exists
 * with the same columns, and a database from a newer tsclaw is refused untouched.
 */
import pg from "pg";
import { expect, test } from "vitest";
import { openDb } from "../../src/store/db.js";
import { SCHEMA_VERSION } from "../../src/store/migrations.js";
import { openPg } from "../../src/store/pg/open-pg.js";
import { createPgEventStore } from "../../src/store/pg/pg-event-store.js";
import { PG_SCHEMA_VERSION } from "../../src/store/pg/pg-schema.js";
import { createTestDatabase } from "../helpers/pg-server.js";
import { usePgServer } from "../helpers/use-pg-server.js";

const server = usePgServer();

async function query<T>(url: string, text: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text)).rows as T[];
  } finally {
    await c.end();
  }
}

test("the PostgreSQL schema ends at the SQLite schema's version", () => {
  expect(PG_SCHEMA_VERSION).toBe(SCHEMA_VERSION);
});

test("eight nodes opening a new database at once migrate it once, to the current version", async () => {
  const url = await createTestDatabase(server.url);
  const opened = await Promise.all(Array.from({ length: 8 }, () => openPg(url, { maxConnections: 2 })));
  try {
    expect(opened.map((o) => o.schemaVersion)).toEqual(Array(8).fill(PG_SCHEMA_VERSION));
    expect(await query(url, "SELECT key, value FROM claw_meta")).toEqual([
      { key: "schema_version", value: String(PG_SCHEMA_VERSION) },
    ]);
    // A ninth opening finds it migrated and changes nothing.
    const again = await openPg(url);
    expect(again.schemaVersion).toBe(PG_SCHEMA_VERSION);
    await again.close();
  } finally {
    await Promise.all(opened.map((o) => o.close()));
  }
});

test("every SQLite table exists in PostgreSQL with the same column names", async () => {
  const url = await createTestDatabase(server.url);
  const opened = await openPg(url);
  await opened.close();
  const sqlite = openDb(":memory:");
  const tables = sqlite.db
    .prepare<[], { name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'memory_fts%' ORDER BY name",
    )
    .all()
    .map((t) => t.name);
  const expected: Record<string, string[]> = {};
  for (const t of tables)
    expected[t] = sqlite.db
      .prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${t}')`)
      .all()
      .map((c) => c.name)
      .sort();
  sqlite.close();
  const rows = await query<{ table_name: string; column_name: string }>(
    url,
    "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, column_name",
  );
  const actual: Record<string, string[]> = {};
  for (const r of rows) {
    actual[r.table_name] ??= [];
    actual[r.table_name]!.push(r.column_name);
  }
  // PostgreSQL's own additions: the version table, and the tsvector that replaces the FTS5 table.
  delete actual.claw_meta;
  actual.memory = actual.memory!.filter((c) => c !== "fts");
  // SQLite's implicit rowid, which list_sessions pages by, is a column there.
  actual.sessions = actual.sessions!.filter((c) => c !== "rowid");
  // By design the events table is keyed (bus, seq) instead of SQLite's packed rowid, so buses
  // need no integer id to pack.
  expect(expected.events).toEqual(["id", "payload", "size", "ts"]);
  expected.events = ["bus", "payload", "seq", "size", "ts"];
  expected.buses = expected.buses!.filter((c) => c !== "id");
  expect(actual).toEqual(expected);
});

test("a database written by a newer tsclaw is refused with schema_too_new and left as it was", async () => {
  const url = await createTestDatabase(server.url);
  await (await openPg(url)).close();
  await query(url, "UPDATE claw_meta SET value = '999' WHERE key = 'schema_version'");
  const refused = await openPg(url).then(
    () => null,
    (err: unknown) => err,
  );
  expect(refused).toMatchObject({
    code: "schema_too_new",
    details: { schemaVersion: 999, supported: PG_SCHEMA_VERSION },
  });
  expect((refused as Error).message).toMatch(
    /has schema version 999, newer than this tsclaw understands \(\d+\); upgrade tsclaw or use another --db/,
  );
  expect((refused as Error).message).toContain(new URL(url).pathname.slice(1)); // names the database
  expect(await query(url, "SELECT value FROM claw_meta WHERE key = 'schema_version'")).toEqual([{ value: "999" }]);
});

test("a database at an older version gets only the steps past it", async () => {
  const url = await createTestDatabase(server.url);
  await (await openPg(url)).close();
  await query(url, "INSERT INTO meta (key, value) VALUES ('kept', 'yes')");
  // As a version-3 database was: without what versions 4 (nodes) and 5 (owners, leases) add.
  await query(url, "DROP TABLE nodes");
  await query(url, "DROP TABLE session_leases");
  await query(url, "ALTER TABLE tasks DROP COLUMN run_node");
  await query(url, "ALTER TABLE runs DROP COLUMN node");
  await query(url, "ALTER TABLE session_queue DROP COLUMN node");
  await query(url, "DROP INDEX events_bus_ts"); // version 6
  await dropSchedules(url); // version 9
  await query(url, "DROP TABLE approvals; DROP TABLE approval_policies"); // version 8
  await query(url, "DROP INDEX tasks_open_runs"); // version 11
  await query(url, "DROP INDEX tasks_handoffs; CREATE INDEX tasks_updated ON tasks (project, updated_at)"); // version 12
  await query(url, "UPDATE claw_meta SET value = '3' WHERE key = 'schema_version'");
  const opened = await openPg(url);
  await opened.close();
  expect(opened.schemaVersion).toBe(PG_SCHEMA_VERSION);
  expect(PG_SCHEMA_VERSION).toBe(12);
  expect(await query(url, "SELECT value FROM meta WHERE key = 'kept'")).toEqual([{ value: "yes" }]);
  expect(await query(url, "SELECT COUNT(*)::int AS n FROM nodes")).toEqual([{ n: 0 }]);
  expect(await query(url, "SELECT COUNT(*)::int AS n FROM session_leases")).toEqual([{ n: 0 }]);
  expect(await query(url, "SELECT COUNT(run_node)::int AS n FROM tasks")).toEqual([{ n: 0 }]);
  expect(await query(url, "SELECT indexname FROM pg_indexes WHERE indexname = 'events_bus_ts'")).toHaveLength(1);
  expect(await query(url, "SELECT indexname FROM pg_indexes WHERE indexname = 'tasks_updated'")).toHaveLength(0);
});

test("a version-5 database gets the (bus, ts) index, and trim_bus beforeTs uses it instead of walking the bus", async () => {
  const url = await createTestDatabase(server.url);
  await (await openPg(url)).close();
  await query(url, "DROP INDEX events_bus_ts");
  await dropSchedules(url);
  await query(url, "DROP TABLE approvals; DROP TABLE approval_policies"); // version 8
  await query(url, "DROP INDEX tasks_open_runs"); // version 11
  await query(url, "UPDATE claw_meta SET value = '5' WHERE key = 'schema_version'");
  await query(
    url,
    `INSERT INTO events (bus, seq, ts, size, payload)
       SELECT b, s, s, 1, '1' FROM unnest(ARRAY['a', 'b']) AS b, generate_series(1, 20000) AS s`,
  );
  await query(
    url,
    "INSERT INTO buses (bus, last_seq, first_seq, count) VALUES ('a', 20000, 1, 20000), ('b', 20000, 1, 20000)",
  );
  await query(url, "ANALYZE events");
  const opened = await openPg(url);
  await opened.close();
  expect(opened.schemaVersion).toBe(PG_SCHEMA_VERSION);
  const plan = await query<{ "QUERY PLAN": string }>(url, "EXPLAIN DELETE FROM events WHERE bus = 'a' AND ts < 10");
  expect(plan.map((r) => r["QUERY PLAN"]).join("\n")).toMatch(/Index (Only )?Scan using events_bus_ts on events/);
  const again = await openPg(url);
  const store = createPgEventStore(again);
  try {
    expect(await store.trim("a", { beforeTs: 10 })).toBe(9);
    expect((await store.list()).find((b) => b.bus === "a")).toEqual({
      bus: "a",
      firstSeq: 10,
      lastSeq: 20000,
      count: 19991,
    });
  } finally {
    await again.close();
  }
});

test("a version-10 database gets the index of open run tasks, and a session lease's check of earlier tasks uses it", async () => {
  const url = await createTestDatabase(server.url);
  await (await openPg(url)).close();
  await query(url, "DROP INDEX tasks_open_runs");
  await query(url, "UPDATE claw_meta SET value = '10' WHERE key = 'schema_version'");
  // Work tasks stay todo for as long as nobody updates them: thousands of them, and a few run tasks.
  await query(
    url,
    `INSERT INTO tasks (id, kind, title, project, status, phase, version, created_at, updated_at, session_id)
       SELECT 'task_' || i, CASE WHEN i % 1000 = 0 THEN 'run' ELSE 'work' END, 't', 'p', 'todo', 'queued', 1, 0, 0,
              CASE WHEN i % 1000 = 0 THEN 'ses_' || (i / 1000) END
         FROM generate_series(1, 5000) AS i`,
  );
  await query(url, "ANALYZE tasks");
  const opened = await openPg(url);
  await opened.close();
  expect(opened.schemaVersion).toBe(PG_SCHEMA_VERSION);
  // The condition LeaseGate's take adds for a task's run (session-gate.ts).
  const plan = await query<{ "QUERY PLAN": string }>(
    url,
    `EXPLAIN SELECT 1 FROM tasks WHERE session_id = 'ses_3' AND kind = 'run'
       AND status IN ('todo', 'in_progress') AND seq < 4500`,
  );
  expect(plan.map((r) => r["QUERY PLAN"]).join("\n")).toMatch(/Index (Only )?Scan using tasks_open_runs on tasks/);
});

/** Takes a database back from version 8 (schedules) to 7. */
async function dropSchedules(url: string): Promise<void> {
  await query(url, "DROP TABLE schedule_firings");
  await query(url, "DROP TABLE schedules");
  await query(url, "ALTER TABLE tasks DROP COLUMN schedule_id");
  await query(url, "ALTER TABLE tasks DROP COLUMN firing_at");
}

test("a version-11 database gets the narrower task indexes, and continuity's handoff list reads the one of tasks with a handoff", async () => {
  const url = await createTestDatabase(server.url);
  await (await openPg(url)).close();
  await query(url, "DROP INDEX tasks_handoffs");
  await query(url, "DROP INDEX tasks_run_node");
  await query(url, "CREATE INDEX tasks_run_node ON tasks (status, run_node)");
  await query(url, "CREATE INDEX tasks_updated ON tasks (project, updated_at)");
  await query(url, "UPDATE claw_meta SET value = '11' WHERE key = 'schema_version'");
  // Thousands of tasks, one in a hundred with a handoff.
  await query(
    url,
    `INSERT INTO tasks (id, kind, title, project, status, phase, version, created_at, updated_at, handoff)
       SELECT 'task_' || i, 'work', 't', 'p', 'done', 'ended', 1, i, i,
              CASE WHEN i % 100 = 0 THEN '{"completed":"c","next":"n","blockers":""}' END
         FROM generate_series(1, 5000) AS i`,
  );
  await query(url, "ANALYZE tasks");
  const opened = await openPg(url);
  await opened.close();
  expect(opened.schemaVersion).toBe(PG_SCHEMA_VERSION);
  const indexes = await query<{ indexname: string; indexdef: string }>(
    url,
    "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'tasks'",
  );
  const byName = Object.fromEntries(indexes.map((i) => [i.indexname, i.indexdef]));
  expect(byName.tasks_updated).toBeUndefined();
  expect(byName.tasks_run_node).toMatch(/WHERE \(kind = 'run'::text\)$/);
  expect(byName.tasks_handoffs).toMatch(/WHERE \(handoff IS NOT NULL\)$/);
  const plan = await query<{ "QUERY PLAN": string }>(
    url,
    "EXPLAIN SELECT updated_at, seq FROM tasks WHERE project = 'p' AND handoff IS NOT NULL ORDER BY updated_at DESC, seq DESC LIMIT 5",
  );
  expect(plan.map((r) => r["QUERY PLAN"]).join("\n")).toMatch(
    /Index (Only )?Scan( Backward)? using tasks_handoffs on tasks/,
  );
});
