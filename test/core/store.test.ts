import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it, vi } from "vitest";
import { createClaw } from "../../src/index.js";
import { SCHEMA_VERSION } from "../../src/store/migrations.js";
import { tempDir } from "../helpers/claw.js";

describe("store", () => {
  it("uses WAL with synchronous=NORMAL by default and FULL on request", async () => {
    const dir = tempDir();
    const claw = createClaw({ db: join(dir, "a.db") });
    expect(claw.services.db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(claw.services.db.pragma("synchronous", { simple: true })).toBe(1);
    expect(claw.services.db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    await claw.close();
    const full = createClaw({ db: join(dir, "a.db"), durability: "full" });
    expect(full.services.db.pragma("synchronous", { simple: true })).toBe(2);
    await full.close();
  });

  it("keeps events and the instance id across a reopen", async () => {
    const db = join(tempDir(), "keep.db");
    const first = createClaw({ db });
    await Promise.all(Array.from({ length: 50 }, (_, i) => first.bus.out({ bus: "k", payload: i })));
    const instance = first.identity.instance;
    await first.close();
    const second = createClaw({ db });
    await second.ready();
    expect(second.identity.instance).toBe(instance);
    const r = await second.bus.read({ bus: "k", limit: 1000 });
    expect(r.events.map((e) => e.payload)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect((await second.bus.out({ bus: "k", payload: "next" })).seq).toBe(51);
    await second.close();
  });

  it("refuses a database from a newer schema version with a clear message", async () => {
    const db = join(tempDir(), "new.db");
    const raw = new Database(db);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 5}`);
    raw.close();
    expect(() => createClaw({ db })).toThrow(/newer than this tsclaw understands/);
    // The failed open released its lock: a later open (after fixing the file) is not blocked by us.
    expect(() => createClaw({ db })).toThrow(expect.objectContaining({ code: "schema_too_new" }));
  });

  it("allows one process per database file and says why", async () => {
    const db = join(tempDir(), "one.db");
    const first = createClaw({ db });
    expect(() => createClaw({ db })).toThrow(expect.objectContaining({ code: "database_locked" }));
    await first.close();
    const again = createClaw({ db });
    await again.close();
  });

  it("works on :memory: with independent databases", async () => {
    const a = createClaw({ db: ":memory:" });
    const b = createClaw({ db: ":memory:" });
    await a.bus.out({ payload: 1 });
    expect((await b.bus.read({})).events).toEqual([]);
    await a.close();
    await b.close();
  });
});

describe("WAL checkpointer", () => {
  it("copies committed pages into the database file off the commit path", async () => {
    const { statSync } = await import("node:fs");
    const db = join(tempDir(), "ckpt.db");
    const claw = createClaw({ db });
    try {
      const before = statSync(db).size;
      // ~2 MiB of events: far below the 10 000-page autocheckpoint backstop, so only the worker moves them.
      await Promise.all(
        Array.from({ length: 2000 }, (_, i) => claw.bus.out({ bus: "c", payload: { i, pad: "x".repeat(1000) } })),
      );
      await vi.waitFor(() => expect(statSync(db).size).toBeGreaterThan(before + 1024 * 1024), {
        timeout: 5000,
        interval: 50,
      });
    } finally {
      await claw.close();
    }
  });

  it("checkpoints under writers that keep a write group open at almost every moment", async () => {
    const { statSync } = await import("node:fs");
    const { openStore } = await import("../../src/store/open-storage.js");
    const path = join(tempDir(), "groups.db");
    const store = openStore(path);
    store.db!.pragma("wal_autocheckpoint = 0"); // no backstop: only the checkpointer copies pages
    const { sql } = store;
    try {
      await sql.run("CREATE TABLE g (w INTEGER, i INTEGER, pad TEXT)");
      const before = statSync(path).size;
      // Each writer writes again as soon as its write is acknowledged, a different number of
      // steps later: a group is open whenever the checkpointer's tick comes round.
      let stop = false;
      const writer = async (w: number) => {
        for (let i = 0; !stop; i++) {
          await sql.run("INSERT INTO g VALUES (?, ?, ?)", [w, i, "x".repeat(200)]);
          for (let hop = 0; hop < w; hop++) await null;
        }
      };
      const writers = Array.from({ length: 8 }, (_, w) => writer(w));
      try {
        await vi.waitFor(() => expect(statSync(path).size).toBeGreaterThan(before), { timeout: 10_000, interval: 20 });
      } finally {
        stop = true;
        await Promise.all(writers);
      }
    } finally {
      await store.close();
    }
  });

  it("starts the WAL over itself after a checkpoint, so the next commit does not, and stays still when idle (schema version unchanged)", async () => {
    const { readFileSync } = await import("node:fs");
    const { openDb } = await import("../../src/store/db.js");
    const path = join(tempDir(), "restart.db");
    // The bare database, no claw: nothing but the checkpointer writes to it after these rows.
    const opened = openDb(path);
    try {
      opened.db.exec("CREATE TABLE r (v TEXT)");
      for (let i = 0; i < 50; i++) opened.db.prepare("INSERT INTO r VALUES (?)").run("x".repeat(500));
      // Bytes 12–23 of the WAL header: checkpoint sequence and salts, new each time the WAL starts over.
      const header = () => readFileSync(`${path}-wal`).subarray(12, 24).toString("hex");
      const before = header();
      await vi.waitFor(() => expect(header()).not.toBe(before), { timeout: 10_000, interval: 20 });
      // Idle from here: the restart's own write is not copied and restarted again, tick after tick.
      const restarted = header();
      await new Promise((r) => setTimeout(r, 600)); // deliberately idle for several ticks: nothing may happen
      expect(header()).toBe(restarted);
      expect(opened.db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
      expect(opened.db.prepare("SELECT count(*) AS n FROM r").get()).toEqual({ n: 50 });
    } finally {
      opened.close();
    }
  });

  it("checkpoints a trickle of small commits every ~1000 pages, not every tick, and the rest once it stops", async () => {
    const { readFileSync } = await import("node:fs");
    const { openDb } = await import("../../src/store/db.js");
    const path = join(tempDir(), "trickle.db");
    const opened = openDb(path);
    try {
      opened.db.exec("CREATE TABLE r (v TEXT)");
      const insert = opened.db.prepare("INSERT INTO r VALUES (?)");
      const header = () => readFileSync(`${path}-wal`).subarray(12, 24).toString("hex");
      // 150 one-row commits, one every 10 ms (a page or two each): at one checkpoint a tick
      // (100 ms) the WAL would start over ~15 times; at ~1000 pages, once or twice.
      const seen = new Set([header()]);
      for (let i = 0; i < 150; i++) {
        insert.run(`row ${i}`);
        await new Promise((r) => setTimeout(r, 10)); // the trickle itself: a commit every 10 ms
        seen.add(header());
      }
      expect(seen.size - 1).toBeLessThanOrEqual(4);
      // Quiet now: what is left is copied (the first quiet tick checkpoints).
      const last = header();
      // Generous: in CI this file also runs on Node 22/26 beside lint and the bench smoke.
      await vi.waitFor(() => expect(header()).not.toBe(last), { timeout: 25_000, interval: 20 });
      const [r] = opened.db.pragma("wal_checkpoint(PASSIVE)") as { log: number; checkpointed: number }[];
      expect(r?.checkpointed).toBe(r?.log);
    } finally {
      opened.close();
    }
  }, 45_000);
});
