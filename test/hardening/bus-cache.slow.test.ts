/**
 * Bus names are not cached forever: a server that is only read from, naming any number of
 * buses (that exist in its database, or never did), keeps state of at most BUS_CACHE_LIMIT of
 * them, on a real SQLite file; a bus pushed out of the cache still continues its seqs
 * contiguously when written again.
 */
import { join } from "node:path";
import { expect, it } from "vitest";
import { BUS_CACHE_LIMIT } from "../../src/bus/event-store.js";
import { createClaw } from "../../src/index.js";
import { openDb } from "../../src/store/db.js";
import { createSqliteEventStore } from "../../src/store/sqlite-event-store.js";
import { SqliteSql } from "../../src/store/sqlite-sql.js";
import { tempDir } from "../helpers/claw.js";

/** Buses written by an earlier process, each with two events: more than the cache holds. */
const WRITTEN = BUS_CACHE_LIMIT + 2_000;
/** Names read that no one ever wrote. */
const NEVER_WRITTEN = 50_000;

it("read-only calls over 62 000 bus names keep at most BUS_CACHE_LIMIT of them; an evicted bus continues its seqs", async () => {
  const db = join(tempDir(), "buses.db");
  {
    const opened = openDb(db);
    const store = createSqliteEventStore(new SqliteSql(opened.db));
    const batch = Array.from({ length: WRITTEN * 2 }, (_, i) => {
      const payloadJson = `{"i":${i}}`;
      return { bus: `old-${i % WRITTEN}`, ts: 1_700_000_000_000 + i, payloadJson, size: payloadJson.length };
    });
    await store.append(batch);
    opened.close();
  }
  const claw = createClaw({ db, env: {} });
  try {
    const store = claw.services.bus.store;
    expect(store.cachedBuses?.()).toBe(0);
    for (let i = 0; i < NEVER_WRITTEN; i++) {
      const page = await claw.call("read", { bus: `never-${i}`, after: 0, limit: 1 });
      expect(page.events).toEqual([]);
    }
    // A name that does not exist costs a lookup, never memory.
    expect(store.cachedBuses?.()).toBe(0);
    for (let i = 0; i < WRITTEN; i++) {
      const page = await claw.call("read", { bus: `old-${i}`, after: 1, limit: 5 });
      expect(
        page.events.map((e: { seq: number }) => e.seq),
        `old-${i}`,
      ).toEqual([2]);
    }
    expect(store.cachedBuses?.()).toBe(BUS_CACHE_LIMIT);
    // The first buses read were pushed out by the later ones; they are read again from the database.
    for (const bus of ["old-0", "old-1", "never-0"]) {
      const acks = [await claw.bus.out({ bus, payload: "a" }), await claw.bus.out({ bus, payload: "b" })];
      const base = bus === "never-0" ? 0 : 2;
      expect(acks.map((a) => a.seq)).toEqual([base + 1, base + 2]);
      const page = await claw.bus.read({ bus, after: 0 });
      expect(page.events.map((e) => e.seq)).toEqual(Array.from({ length: base + 2 }, (_, k) => k + 1));
      expect(page.events.slice(-2).map((e) => e.payload)).toEqual(["a", "b"]);
    }
    expect(store.cachedBuses?.()).toBeLessThanOrEqual(BUS_CACHE_LIMIT);
    // Bus ids past 8191 put rowids past 2^53: cursors and trims there are exact to the seq.
    const far = `old-${WRITTEN - 1}`;
    for (let k = 0; k < 6; k++) await claw.bus.out({ bus: far, payload: k });
    expect((await claw.bus.read({ bus: far, after: 3, limit: 2 })).events.map((e) => e.seq)).toEqual([4, 5]);
    expect((await claw.bus.read({ bus: far, after: 6 })).events.map((e) => e.seq)).toEqual([7, 8]);
    expect((await claw.bus.trim({ bus: far, keepLast: 3 })).deleted).toBe(5);
    expect((await claw.bus.read({ bus: far, after: 0 })).events.map((e) => e.seq)).toEqual([6, 7, 8]);
    const listed = (await claw.bus.list()).buses;
    expect(listed).toHaveLength(WRITTEN + 1);
    expect(listed.find((b) => b.bus === "old-0")).toEqual({ bus: "old-0", firstSeq: 1, lastSeq: 4, count: 4 });
  } finally {
    await claw.close();
  }
}, 120_000);
