/**
 * Age retention across many buses on SQLite: the sweep walks the buses holding events (in pages
 * of a thousand) and deletes each one's old range of the (bus, ts) index, so it must delete
 * exactly the events older than the cut on every bus, whatever their order, and leave each
 * bus's count, first seq and last seq right.
 */
import { join } from "node:path";
import { expect, it } from "vitest";
import type { PendingEvent } from "../../src/bus/event-store.js";
import { createClaw } from "../../src/index.js";
import { tempDir } from "../helpers/claw.js";

const BUSES = 2500; // more than two pages of the sweep
const CUT = 10_000;

/** Bus i's events' timestamps: a varying number of old and young ones, some buses out of order. */
function timestamps(i: number): number[] {
  const old = i % 4; // 0-3 old events
  const young = i % 3; // 0-2 young ones
  const ts = [
    ...Array.from({ length: old }, (_, k) => CUT - 100 + k),
    ...Array.from({ length: young }, (_, k) => CUT + k),
  ];
  if (i % 5 === 0) ts.reverse(); // young first: the sweep is by age, not a prefix of seqs
  if (i % 7 === 0) ts.push(CUT - 1); // an old event after young ones
  return ts;
}

it("the age sweep over 2 500 buses deletes exactly the old events and keeps every bus's count and first seq", async () => {
  const claw = createClaw({ db: join(tempDir("tsclaw-age-"), "claw.db"), project: "age", env: {} });
  try {
    const store = claw.services.bus.store;
    const batch: PendingEvent[] = [];
    for (let i = 0; i < BUSES; i++) {
      for (const [k, ts] of timestamps(i).entries()) {
        const payloadJson = JSON.stringify({ i, k, ts });
        batch.push({ bus: `b${i}`, ts, payloadJson, size: payloadJson.length });
      }
      if (timestamps(i).length === 0) {
        // a bus emptied by an earlier trim: nothing to sweep, and it must stay as it is
        batch.push({ bus: `b${i}`, ts: CUT + 5, payloadJson: "0", size: 1 });
      }
    }
    await store.append(batch);
    for (let i = 0; i < BUSES; i++) if (timestamps(i).length === 0) await store.trim(`b${i}`, { keepLast: 0 });

    const expectedOld = Array.from({ length: BUSES }, (_, i) => timestamps(i).filter((t) => t < CUT).length);
    expect(await store.trimAllBefore(CUT)).toBe(expectedOld.reduce((a, b) => a + b, 0));

    const listed = new Map((await claw.bus.list()).buses.map((b) => [b.bus, b]));
    expect(listed.size).toBe(BUSES);
    for (let i = 0; i < BUSES; i++) {
      const ts = timestamps(i);
      const kept = ts.flatMap((t, k) => (t >= CUT ? [k + 1] : [])); // seqs start at 1
      const last = Math.max(ts.length, 1);
      const info = listed.get(`b${i}`)!;
      expect(info).toEqual({ bus: `b${i}`, count: kept.length, lastSeq: last, firstSeq: kept[0] ?? last + 1 });
      const events = (await claw.bus.read({ bus: `b${i}`, after: 0, limit: 10 })).events;
      expect(events.map((e) => e.seq)).toEqual(kept);
      expect(events.every((e) => e.ts >= CUT)).toBe(true);
    }
    // A second sweep finds nothing, and seqs go on from each bus's last one.
    expect(await store.trimAllBefore(CUT)).toBe(0);
    expect((await claw.bus.out({ bus: "b3", payload: "next" })).seq).toBe(timestamps(3).length + 1);
  } finally {
    await claw.close();
  }
});
