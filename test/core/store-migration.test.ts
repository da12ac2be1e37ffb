/** Schema migration 1 → 2 (payloads out of the clustered index, per-bus counts) on a database written in the old layout. */
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect, it } from "vitest";
import { createClaw } from "../../src/index.js";
import { SCHEMA_VERSION } from "../../src/store/migrations.js";
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
