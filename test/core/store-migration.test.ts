/** Schema migrations on databases written in older layouts: 1 → 2 (payloads out of the clustered index, per-bus counts), 5 → 6 (the (bus, ts) index), 6 → 7 (the ts index dropped), 11 → 12 (narrower task indexes). */
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect, it } from "vitest";
import { createClaw } from "../../src/index.js";
import { MIGRATIONS, SCHEMA_VERSION } from "../../src/store/migrations.js";
import { TRIM_BEFORE_SQL } from "../../src/store/sqlite-event-store.js";
import { createV1Database } from "../hardening/old-schema.js";
import { tempDir } from "../helpers/claw.js";

it("moves a version-1 database forward: events, gaps, last seqs and payloads kept; counts filled in", async () => {
  const file = join(tempDir("tsclaw-migrate-"), "claw.db");
  const unicode = JSON.stringify({ text: "żółw 🐢 \u2028", n: [1, 2, { k: null }] });
  createV1Database(
    file,
    [
      ...Array.from({ length: 5 }, (_, i) => ({ bus: "a", seq: i + 1, payload: JSON.stringify(i) })),
      // bus "t" was trimmed: seqs 1-7 are gone, its last seq is 9
      { bus: "t", seq: 8, payload: unicode },
      { bus: "t", seq: 9, payload: '"nine"' },
    ],
    { emptied: 4 }, // every event trimmed; seq must still continue after 4
  );
  const claw = createClaw({ db: file, project: "m", env: {} });
  try {
    expect(claw.services.db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    expect((await claw.bus.list()).buses).toEqual([
      { bus: "a", firstSeq: 1, lastSeq: 5, count: 5 },
      { bus: "emptied", firstSeq: 5, lastSeq: 4, count: 0 },
      { bus: "t", firstSeq: 8, lastSeq: 9, count: 2 },
    ]);
    const t = await claw.bus.read({ bus: "t", after: 0 });
    expect(t.events.map((e) => [e.seq, e.payload])).toEqual([
      [8, JSON.parse(unicode)],
      [9, "nine"],
    ]);
    expect(t.events[0]!.ts).toBe(1_700_000_000_008);
    const sizes = claw.services.db
      .prepare(
        "SELECT id & 1099511627775 AS seq, size FROM events WHERE id >> 40 = (SELECT id FROM buses WHERE bus = 't') ORDER BY id",
      )
      .all();
    expect(sizes).toEqual([
      { seq: 8, size: Buffer.byteLength(unicode) },
      { seq: 9, size: 6 },
    ]);
    expect((await claw.bus.out({ bus: "emptied", payload: 1 })).seq).toBe(5);
    expect((await claw.bus.out({ bus: "t", payload: 1 })).seq).toBe(10);
    expect((await claw.bus.trim({ bus: "t", keepLast: 1 })).deleted).toBe(2);
    expect((await claw.bus.list()).buses).toContainEqual({ bus: "t", firstSeq: 10, lastSeq: 10, count: 1 });
  } finally {
    await claw.close();
  }
  // The old table is gone; payloads live in a rowid table (no WITHOUT ROWID clustering).
  const raw = new Database(file, { readonly: true });
  const sql = (raw.prepare("SELECT sql FROM sqlite_master WHERE name = 'events'").get() as { sql: string }).sql;
  raw.close();
  expect(sql).not.toMatch(/WITHOUT ROWID/i);
  expect(sql).toMatch(/id\s+INTEGER PRIMARY KEY/);
  expect(sql).not.toMatch(/bus/);
});

/** The indexes a migration made on `table` (not SQLite's own), by name: their SQL. */
function indexesOf(db: Database.Database, table: string): Record<string, string> {
  const rows = db
    .prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name",
    )
    .all(table) as { name: string; sql: string }[];
  return Object.fromEntries(rows.map((r) => [r.name, r.sql]));
}

/** A database file written by the first `version` migration steps, as that tsclaw left it. */
function databaseAt(file: string, version: number): Database.Database {
  const raw = new Database(file);
  raw.pragma("journal_mode = WAL");
  raw.transaction(() => {
    for (const step of MIGRATIONS.slice(0, version)) raw.exec(step);
    raw.pragma(`user_version = ${version}`);
  })();
  return raw;
}

it("moves a version-5 database forward to the (bus, ts) index; trim_bus beforeTs searches it instead of walking the bus", async () => {
  const file = join(tempDir("tsclaw-migrate-"), "claw.db");
  {
    const raw = databaseAt(file, 5);
    const bus = raw.prepare("INSERT INTO buses (bus, last_seq, first_seq, count) VALUES (?, 3, 1, 3) RETURNING id");
    const event = raw.prepare("INSERT INTO events (id, ts, size, payload) VALUES ((? << 40) | ?, ?, 1, ?)");
    for (const name of ["early", "late"]) {
      const { id } = bus.get(name) as { id: number };
      for (let seq = 1; seq <= 3; seq++) event.run(id, seq, (name === "early" ? 1000 : 5000) + seq, String(seq));
    }
    expect(raw.prepare("SELECT name FROM sqlite_master WHERE name = 'events_bus_ts'").all()).toEqual([]);
    raw.close();
  }
  const claw = createClaw({ db: file, project: "m", env: {} });
  try {
    const db = claw.services.db;
    expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBe(12);
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN ${TRIM_BEFORE_SQL}`)
      .all(2, 5002)
      .map((r) => (r as { detail: string }).detail);
    // A search of the (bus, ts) index, not a search of the bus's rowid range with a filter.
    expect(plan).toEqual(["SEARCH events USING INDEX events_bus_ts (<expr>=? AND ts<?)"]);
    expect((await claw.bus.trim({ bus: "late", beforeTs: 5003 })).deleted).toBe(2);
    expect((await claw.bus.trim({ bus: "early", beforeTs: 5003 })).deleted).toBe(3);
    expect((await claw.bus.list()).buses).toEqual([
      { bus: "early", firstSeq: 4, lastSeq: 3, count: 0 },
      { bus: "late", firstSeq: 3, lastSeq: 3, count: 1 },
    ]);
    expect((await claw.bus.out({ bus: "early", payload: 4 })).seq).toBe(4);
    expect((await claw.bus.read({ bus: "late", after: 0 })).events.map((e) => [e.seq, e.payload])).toEqual([[3, 3]]);
  } finally {
    await claw.close();
  }
});

it("moves a version-6 database forward to one event index; the age sweep uses the (bus, ts) index and keeps counts", async () => {
  const file = join(tempDir("tsclaw-migrate-"), "claw.db");
  {
    const raw = databaseAt(file, 6);
    const bus = raw.prepare("INSERT INTO buses (bus, last_seq, first_seq, count) VALUES (?, 4, 1, 4) RETURNING id");
    const event = raw.prepare("INSERT INTO events (id, ts, size, payload) VALUES ((? << 40) | ?, ?, 1, ?)");
    for (const [name, base] of [
      ["a", 1000],
      ["b", 3000],
    ] as const) {
      const { id } = bus.get(name) as { id: number };
      for (let seq = 1; seq <= 4; seq++) event.run(id, seq, base + seq, String(seq));
    }
    expect(raw.prepare("SELECT name FROM sqlite_master WHERE name = 'events_ts'").all()).toHaveLength(1);
    raw.close();
  }
  const claw = createClaw({ db: file, project: "m", env: {} });
  try {
    const db = claw.services.db;
    expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    expect(Object.keys(indexesOf(db, "events"))).toEqual(["events_bus_ts"]);
    // Before 3003: all of "a" and b's first two.
    expect(await claw.services.bus.store.trimAllBefore(3003)).toBe(6);
    expect((await claw.bus.list()).buses).toEqual([
      { bus: "a", firstSeq: 5, lastSeq: 4, count: 0 },
      { bus: "b", firstSeq: 3, lastSeq: 4, count: 2 },
    ]);
    expect((await claw.bus.out({ bus: "a", payload: 5 })).seq).toBe(5);
    expect((await claw.bus.read({ bus: "b", after: 0 })).events.map((e) => e.payload)).toEqual([3, 4]);
  } finally {
    await claw.close();
  }
});

it("moves a version-11 database forward to narrower task indexes; continuity's handoffs are read through the new one, newest first", async () => {
  const file = join(tempDir("tsclaw-migrate-"), "claw.db");
  {
    const raw = databaseAt(file, 11);
    const task = raw.prepare(
      `INSERT INTO tasks (id, kind, title, project, status, phase, version, created_at, updated_at, handoff, run_node)
         VALUES (?, ?, ?, 'm', ?, ?, 1, 1, ?, ?, ?)`,
    );
    const handoff = (next: string) => JSON.stringify({ completed: "c", next, blockers: "" });
    task.run("task_old", "work", "old handoff", "done", "ended", 10, handoff("old"), null);
    task.run("task_none", "work", "no handoff", "todo", "open", 30, null, null);
    task.run("task_new", "work", "new handoff", "done", "ended", 20, handoff("new"), null);
    task.run("task_queued", "run", "queued run", "todo", "queued", 5, null, "gone-node");
    raw.close();
  }
  const claw = createClaw({ db: file, project: "m", env: {} });
  try {
    const db = claw.services.db;
    expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    const byName = indexesOf(db, "tasks");
    expect(byName.tasks_updated).toBeUndefined();
    expect(byName.tasks_run_node).toMatch(/WHERE kind = 'run'$/);
    expect(byName.tasks_handoffs).toMatch(/WHERE handoff IS NOT NULL$/);
    // Only the tasks with a handoff are in its index.
    const inHandoffs = db.prepare(
      "SELECT id FROM tasks INDEXED BY tasks_handoffs WHERE project = 'm' AND handoff IS NOT NULL",
    );
    expect(inHandoffs.all()).toHaveLength(2);
    const plan = db
      .prepare(
        "EXPLAIN QUERY PLAN SELECT updated_at, seq FROM tasks WHERE project = ? AND handoff IS NOT NULL ORDER BY updated_at DESC, seq DESC LIMIT 5",
      )
      .all("m")
      .map((r) => (r as { detail: string }).detail);
    expect(plan).toEqual(["SEARCH tasks USING INDEX tasks_handoffs (project=?)"]);
    const ctx = await claw.call("continuity_context", {});
    expect(ctx.recentHandoffs.map((t) => t.taskId)).toEqual(["task_new", "task_old"]);
    expect(ctx.openTasks.map((t) => t.taskId)).toContain("task_none");
    // A handoff written now joins the index; the newest first.
    const later = await claw.task.create({ title: "later" });
    await claw.task.update({
      taskId: later.taskId,
      expectedVersion: later.version,
      handoff: { completed: "c", next: "later", blockers: "" },
    });
    expect((await claw.call("continuity_context", {})).recentHandoffs.map((t) => t.taskId)).toEqual([
      later.taskId,
      "task_new",
      "task_old",
    ]);
  } finally {
    await claw.close();
  }
});
