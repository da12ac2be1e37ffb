/**
 * A 50 MB event (written straight into a version-1 database, as older builds and bash line
 * events could store one) must cost nothing to lookups on other buses: after the migration,
 * `seq 1 300` with a line event per line on another bus, list_buses and reads of neighbouring
 * buses read a few pages, not the big row's 12 800-page overflow chain per lookup (the old
 * layout read 50 MB per seek once the row had become a b-tree divider).
 */
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { type Claw, createClaw } from "../../src/index.js";
import { tempDir } from "../helpers/claw.js";
import { bytesRead, createV1Database, type RawEvent } from "./old-schema.js";

let claw: Claw | undefined;
afterEach(async () => {
  await claw?.close();
  claw = undefined;
});

function small(bus: string, n: number): RawEvent[] {
  return Array.from({ length: n }, (_, i) => ({ bus, seq: i + 1, payload: JSON.stringify({ i, t: "x".repeat(100) }) }));
}

it("bash line events, list_buses and reads on other buses never read a 50 MB row", async () => {
  const file = join(tempDir("tsclaw-bigrow-"), "claw.db");
  const big = JSON.stringify("y".repeat(50_000_000));
  createV1Database(file, [...small("aaa", 1000), { bus: "big", seq: 1, payload: big }, ...small("zzz", 1000)]);
  claw = createClaw({ db: file, project: "bigrow", env: { PATH: process.env.PATH } });

  const before = bytesRead();
  const r = await claw.bash({
    script: "seq 1 300",
    stdoutLineEvent: { template: { line: "{payload}" }, bus: "lines" },
  });
  expect(r.exitCode).toBe(0);
  const lines = await claw.bus.read({ bus: "lines", after: 0, limit: 1000 });
  expect(lines.events.map((e) => (e.payload as { line: string }).line)).toEqual(
    Array.from({ length: 300 }, (_, i) => String(i + 1)),
  );
  const zzz = await claw.bus.read({ bus: "zzz", after: 990, limit: 1000 });
  expect(zzz.events.map((e) => e.seq)).toEqual([991, 992, 993, 994, 995, 996, 997, 998, 999, 1000]);
  const { buses } = await claw.bus.list();
  expect(buses).toEqual([
    { bus: "aaa", firstSeq: 1, lastSeq: 1000, count: 1000 },
    { bus: "big", firstSeq: 1, lastSeq: 1, count: 1 },
    { bus: "lines", firstSeq: 1, lastSeq: 300, count: 300 },
    { bus: "zzz", firstSeq: 1, lastSeq: 1000, count: 1000 },
  ]);
  const read = bytesRead() - before;
  process.stderr.write(`large rows: ${(read / 1e6).toFixed(2)} MB read for 300 line events and the lookups\n`);
  // The old layout read ≥50 MB per lookup near the big row (≈1 GB for 20 lookups); a page is 4 KiB.
  expect(read).toBeLessThan(8 * 1024 * 1024);

  // The big row itself is still there, whole, and reading it is what reads it.
  const got = await claw.bus.read({ bus: "big", after: 0, limit: 10 });
  expect(got.events).toHaveLength(1);
  expect((got.events[0]!.payload as string).length).toBe(50_000_000);
}, 60_000);
