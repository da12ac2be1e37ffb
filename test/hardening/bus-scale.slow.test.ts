/**
 * Bus listing at scale: list_buses and trim_bus on a real SQLite file holding
 * over a million events read almost nothing (per-bus counts live in `buses`, trimming deletes a
 * rowid range, or by timestamp a range of the (bus, ts) index), so their cost does not grow
 * with the bus. Measured as bytes the process reads
 * (`rchar` of /proc/self/io) on a freshly opened database, not as time. (The bus-name cache:
 * bus-cache.slow.test.ts.)
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createClaw } from "../../src/index.js";
import { openDb } from "../../src/store/db.js";
import { createSqliteEventStore } from "../../src/store/sqlite-event-store.js";
import { SqliteSql } from "../../src/store/sqlite-sql.js";
import { tempDir } from "../helpers/claw.js";

const MiB = 1024 * 1024;

/** Bytes this process has read through read(2) and friends so far. */
function rchar(): number {
  return Number(/^rchar: (\d+)$/m.exec(readFileSync("/proc/self/io", "utf8"))![1]);
}

/** Bytes read while `fn` runs. */
async function bytesRead<T>(fn: () => Promise<T>): Promise<{ value: T; bytes: number }> {
  const before = rchar();
  const value = await fn();
  return { value, bytes: rchar() - before };
}

/** Appends `count` small events to `bus` through the store, 20 000 per transaction, timestamps from `ts0`, 1 ms apart. */
async function bulk(
  store: ReturnType<typeof createSqliteEventStore>,
  bus: string,
  count: number,
  ts0: number,
): Promise<void> {
  for (let done = 0; done < count; ) {
    const n = Math.min(20_000, count - done);
    const batch = Array.from({ length: n }, (_, i) => {
      const payloadJson = `{"n":${done + i}}`;
      return { bus, ts: ts0 + done + i, payloadJson, size: payloadJson.length };
    });
    await store.append(batch);
    done += n;
  }
}

describe("buses at scale", () => {
  // The sizes: a walk of either bus reads far more than the 1 MiB bound (the walk that trim by
  // timestamp did before schema 6 read 33 bytes an event: 16 MB for "second"), and filling the
  // file is most of the test's time (2 and 1 million events took twice as long, for the same
  // verdicts).
  it("list_buses and trim_bus (keepLast and beforeTs) read under 1 MiB of a database of 1.5 million events", async () => {
    const db = join(tempDir(), "big.db");
    const ts0 = Date.now() - 10_000_000;
    {
      const opened = openDb(db);
      const store = createSqliteEventStore(new SqliteSql(opened.db));
      await bulk(store, "big", 1_000_000, ts0);
      await bulk(store, "second", 500_000, ts0);
      for (let i = 0; i < 100; i++) await bulk(store, `small-${i}`, 10, ts0);
      opened.db.pragma("wal_checkpoint(TRUNCATE)");
      opened.close();
    }
    const claw = createClaw({ db, env: {} });
    try {
      await claw.call("server_identity", {}); // schema and identity pages read once
      const list = await bytesRead(() => claw.services.bus.store.list());
      expect(list.value).toHaveLength(102);
      expect(list.value.find((b) => b.bus === "big")).toEqual({
        bus: "big",
        firstSeq: 1,
        lastSeq: 1_000_000,
        count: 1_000_000,
      });
      expect(list.bytes).toBeLessThan(1 * MiB);
      const viaOp = await claw.call("list_buses", {});
      expect(viaOp.buses.find((b: { bus: string }) => b.bus === "second")).toMatchObject({ count: 500_000 });

      const keep = await bytesRead(() => claw.services.bus.store.trim("big", { keepLast: 1_000_000 - 10 }));
      expect(keep.value).toBe(10);
      expect(keep.bytes).toBeLessThan(1 * MiB);
      const before = await bytesRead(() => claw.services.bus.store.trim("second", { beforeTs: ts0 + 25 }));
      expect(before.value).toBe(25);
      // A range of the (bus, ts) index: before schema 6 this walked the whole bus (33 MB read).
      expect(before.bytes).toBeLessThan(1 * MiB);
      const after = await claw.call("list_buses", {});
      expect(after.buses.find((b: { bus: string }) => b.bus === "big")).toEqual({
        bus: "big",
        firstSeq: 11,
        lastSeq: 1_000_000,
        count: 999_990,
      });
      expect(after.buses.find((b: { bus: string }) => b.bus === "second")).toMatchObject({
        firstSeq: 26,
        count: 499_975,
      });
      const page = await claw.call("read", { bus: "big", after: 0, limit: 2 });
      expect(page.events.map((e: { seq: number }) => e.seq)).toEqual([11, 12]);
    } finally {
      await claw.close();
    }
  }, 300_000);
});
