/**
 * In-process `out`: N events with 1 000 in flight at a time into a file database (durable), vs raw
 * better-sqlite3 inserting the same rows into the same table in transactions of 1 000.
 */
import { join } from "node:path";
import { createClaw } from "../src/index.js";
import { now, pool, size, tempDir } from "./measure.js";
import { openRawDb, rawInserter, samplePayload } from "./raw-db.js";
import { type Row, row } from "./table.js";

const IN_FLIGHT = 1000;

/** Milliseconds for `n` in-process `out` calls, 1 000 in flight, into a fresh file database. */
export async function tsclawOut(n: number): Promise<number> {
  const tmp = tempDir();
  const claw = createClaw({ db: join(tmp.dir, "claw.db"), project: "bench" });
  try {
    const t0 = now();
    await pool(IN_FLIGHT, n, (i) => claw.bus.out({ payload: samplePayload(i) }));
    return now() - t0;
  } finally {
    await claw.close();
    tmp.remove();
  }
}

async function rawOut(n: number): Promise<number> {
  const tmp = tempDir();
  const db = openRawDb(join(tmp.dir, "raw.db"));
  try {
    const insert = rawInserter(db);
    const t0 = now();
    for (let i = 0; i < n; i += IN_FLIGHT) {
      const batch = [];
      for (let j = i; j < Math.min(n, i + IN_FLIGHT); j++) batch.push(samplePayload(j));
      insert(batch);
    }
    return now() - t0;
  } finally {
    db.close();
    tmp.remove();
  }
}

/** Runs the scenario. */
export async function run(): Promise<Row[]> {
  const n = size(100_000, 10_000);
  await tsclawOut(Math.min(n, 5000)); // warm-up: JIT, zod, the page cache
  // ts, raw, raw, ts: neither side always runs first; each side's best is kept.
  let tsMs = await tsclawOut(n);
  let rawMs = await rawOut(n);
  rawMs = Math.min(rawMs, await rawOut(n));
  tsMs = Math.min(tsMs, await tsclawOut(n));
  return [
    row({
      scenario: "bus out (in-process, durable)",
      unit: "events/s",
      tsclaw: (n / tsMs) * 1000,
      baseline: (n / rawMs) * 1000,
      target: { op: ">=", value: 0.8 },
      note: `${n} events, ${IN_FLIGHT} in flight; raw = better-sqlite3, same table, transactions of ${IN_FLIGHT}`,
    }),
  ];
}
