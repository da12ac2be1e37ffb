/**
 * BusService.enqueueJson / committed(): the promise-free publishing path for hot producers (bash
 * line events). Same order and seqs as outJson, one wait for all, and a storage failure reaches
 * every event's onError while committed() still settles.
 */
import { afterEach, expect, test } from "vitest";
import { BusService } from "../../src/bus/bus-service.js";
import type { EventStore } from "../../src/bus/event-store.js";
import type { Claw } from "../../src/index.js";
import { memClaw } from "../helpers/claw.js";

let claw: Claw | undefined;
afterEach(async () => {
  await claw?.close().catch(() => {});
  claw = undefined;
});

test("enqueued events commit in order with contiguous seqs, interleaved with outJson, and committed() waits for them", async () => {
  claw = memClaw();
  const bus = claw.services.bus;
  const errors: unknown[] = [];
  const acks: Promise<{ seq: number }>[] = [];
  for (let i = 0; i < 1000; i++) {
    if (i % 100 === 0) acks.push(bus.outJson("q", JSON.stringify({ out: i })));
    else bus.enqueueJson("q", JSON.stringify({ enq: i }), (e) => errors.push(e));
  }
  expect(await bus.store.lastSeq("q")).toBe(0); // nothing committed before the flush
  await bus.committed();
  expect(await bus.lastSeq("q")).toBe(1000);
  expect((await Promise.all(acks)).map((a) => a.seq)).toEqual([1, 101, 201, 301, 401, 501, 601, 701, 801, 901]);
  const events = await bus.store.read("q", 0, 1000, 1 << 30, 0);
  expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
  expect(JSON.parse(events[1]!.payloadJson)).toEqual({ enq: 1 });
  expect(errors).toEqual([]);
  await expect(bus.committed()).resolves.toBeUndefined(); // nothing pending: at once
});

test("a failing commit reaches every enqueued event's onError, and committed() still settles", async () => {
  claw = memClaw();
  const bus = claw.services.bus;
  claw.services.db.close(); // the storage goes away underneath the bus
  const errors: unknown[] = [];
  for (let i = 0; i < 5; i++) bus.enqueueJson("q", `{"i":${i}}`, (e) => errors.push(e));
  await bus.committed();
  expect(errors).toHaveLength(5);
  expect(errors[0]).toBeInstanceOf(Error);
});

test("group commits are bounded: at most 10 000 events and 16 MiB of payload each, in order", async () => {
  claw = memClaw();
  const inner = claw.services.bus.store;
  const batches: { n: number; bytes: number }[] = [];
  const counting: EventStore = {
    ...inner,
    append: (batch) => {
      batches.push({ n: batch.length, bytes: batch.reduce((sum, e) => sum + e.size, 0) });
      return inner.append(batch);
    },
  };
  const bus = new BusService(counting, { maxPayloadBytes: 2 * 1024 * 1024 });
  for (let i = 0; i < 25_000; i++) bus.enqueueJson("many", `{"i":${i}}`, () => {});
  const big = JSON.stringify("x".repeat(1024 * 1024));
  const acks = Array.from({ length: 20 }, () => bus.outJson("big", big));
  await bus.committed();
  expect(batches.map((b) => b.n).reduce((a, b) => a + b, 0)).toBe(25_020);
  expect(Math.max(...batches.map((b) => b.n))).toBe(10_000);
  expect(Math.max(...batches.map((b) => b.bytes))).toBeLessThanOrEqual(16 * 1024 * 1024);
  expect((await Promise.all(acks)).map((a) => a.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  expect(await bus.lastSeq("many")).toBe(25_000);
  const last = await inner.read("many", 24_999, 10, 1 << 20, 0);
  expect(last.map((e) => JSON.parse(e.payloadJson))).toEqual([{ i: 24_999 }]);
  await bus.close();
});

/** Stored size of each event of `bus`, with the UTF-8 length of its payload text. */
function storedSizes(c: Claw, bus: string): { size: number; bytes: number }[] {
  const rows = c.services.db
    .prepare("SELECT size, payload FROM events WHERE id >> 40 = (SELECT id FROM buses WHERE bus = ?) ORDER BY id")
    .all(bus) as { size: number; payload: string }[];
  return rows.map((r) => ({ size: r.size, bytes: Buffer.byteLength(r.payload) }));
}

test("enqueueJsonMany: in order with enqueueJson, sizes exact (ASCII or counted), one event over the limit fails alone", async () => {
  claw = memClaw();
  const bus = new BusService(claw.services.bus.store, { maxPayloadBytes: 100 });
  const errors: unknown[] = [];
  const onError = (e: unknown) => errors.push(e);
  bus.enqueueJson("m", '"first"', onError);
  bus.enqueueJsonMany("m", ['"a"', '"bb"', JSON.stringify("x".repeat(200)), '"ccc"'], true, onError);
  bus.enqueueJsonMany("m", ['"é"', '"日本"', JSON.stringify("é".repeat(60))], false, onError);
  bus.enqueueJsonMany("m", [], true, onError);
  await bus.committed();
  expect(errors).toHaveLength(2);
  expect(errors.map((e) => (e as { code?: string }).code)).toEqual(["payload_too_large", "payload_too_large"]);
  const events = await bus.store.read("m", 0, 100, 1 << 20, 0);
  expect(events.map((e) => JSON.parse(e.payloadJson))).toEqual(["first", "a", "bb", "ccc", "é", "日本"]);
  expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  expect(new Set(events.slice(1, 4).map((e) => e.ts)).size).toBe(1); // one chunk, one time
  for (const s of storedSizes(claw, "m")) expect(s.size).toBe(s.bytes);
  await bus.close();
  bus.enqueueJsonMany("m", ['"late"'], true, onError);
  expect(errors).toHaveLength(3);
  expect((errors[2] as { code?: string }).code).toBe("shutting_down");
});
