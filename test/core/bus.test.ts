import { afterEach, describe, expect, it, vi } from "vitest";
import type { BusEvent, Claw } from "../../src/index.js";
import { apiClaw } from "../helpers/claw.js";

let claw: Claw;
afterEach(async () => {
  await claw?.close();
});

describe("bus", () => {
  it("gives 300 concurrent out calls unique contiguous seqs matching read", async () => {
    claw = await apiClaw();
    const acks = await Promise.all(Array.from({ length: 300 }, (_, i) => claw.bus.out({ bus: "c", payload: { i } })));
    const seqs = acks.map((a) => a.seq).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    const events: BusEvent[] = [];
    let after = 0;
    for (;;) {
      const page = await claw.bus.read({ bus: "c", after, limit: 1000 });
      if (page.events.length === 0) break;
      events.push(...(page.events as BusEvent[]));
      after = page.next;
    }
    expect(events.map((e) => e.seq)).toEqual(seqs);
    // Each ack names the event that read returns at that seq.
    for (const [i, ack] of acks.entries()) expect(events[ack.seq - 1]!.payload).toEqual({ i });
  });

  it("defaults to thebus and reports lastSeq and next", async () => {
    claw = await apiClaw();
    const ack = await claw.bus.out({ payload: 1 });
    expect(ack.bus).toBe("thebus");
    const r = await claw.bus.read({});
    expect(r).toMatchObject({ bus: "thebus", lastSeq: 1, next: 1 });
    expect((await claw.bus.read({ after: 1 })).next).toBe(1);
  });

  it("round-trips U+2028, emoji and nested JSON exactly", async () => {
    claw = await apiClaw();
    const payload = {
      s: 'a\u2028b\u2029c 🎉 \u0000 "q" \\',
      nested: { arr: [1, 2.5, null, true, { deep: ["x"] }] },
      n: -0.000123,
    };
    await claw.bus.out({ bus: "u", payload });
    const r = await claw.bus.read({ bus: "u" });
    expect(r.events[0]!.payload).toEqual(payload);
    const env = await claw.do({ op: "read", args: { bus: "u" } });
    expect(env.ok && (env.result as { events: BusEvent[] }).events[0]!.payload).toEqual(payload);
  });

  it("wakes a waiting read as soon as an event is committed", async () => {
    claw = await apiClaw();
    const started = Date.now();
    const pending = claw.bus.read({ bus: "w", waitMs: 10_000 });
    // A deliberate delay: the event comes while the read waits (waking it is what is tested).
    setTimeout(() => void claw.bus.out({ bus: "w", payload: "now" }), 50);
    const r = await pending;
    expect(r.events.map((e) => e.payload)).toEqual(["now"]);
    expect(Date.now() - started).toBeLessThan(5000); // far below the 10 s wait: woken, not timed out
  });

  it("ends a waiting read at waitMs with no events", async () => {
    claw = await apiClaw();
    const r = await claw.bus.read({ bus: "empty", waitMs: 50 });
    expect(r.events).toEqual([]);
    expect(r.next).toBe(0);
  });

  it("delivers backlog then live to a subscriber started mid-stream, each event exactly once", async () => {
    claw = await apiClaw();
    for (let i = 1; i <= 50; i++) await claw.bus.out({ bus: "s", payload: i });
    const seen: number[] = [];
    // Publish concurrently with the subscription's catch-up (all sent before it starts, acknowledged after).
    const writes = Array.from({ length: 2450 }, (_, i) => claw.bus.out({ bus: "s", payload: 51 + i }));
    const unsubscribe = claw.bus.subscribe({ bus: "s", after: 20 }, (e) => seen.push(e.seq));
    await Promise.all(writes);
    const more = Array.from({ length: 100 }, (_, i) => claw.bus.out({ bus: "s", payload: 2501 + i }));
    await Promise.all(more);
    // Wait for delivery to reach the last seq (no fixed sleep: loaded machines are slow), then
    // a little longer so a duplicate after the end would still be caught.
    await vi.waitFor(() => expect(seen.at(-1)).toBe(2600), { timeout: 20_000, interval: 20 });
    await new Promise((r) => setTimeout(r, 50));
    unsubscribe();
    expect(seen).toEqual(Array.from({ length: 2600 - 20 }, (_, i) => 21 + i));
  }, 60_000); // 2 600 HTTP calls in the remote project

  it("iterates with an async iterator with bounded buffering and resumes from storage", async () => {
    claw = await apiClaw();
    const stream = claw.bus.subscribe({ bus: "it", after: 0 });
    await Promise.all(Array.from({ length: 3000 }, (_, i) => claw.bus.out({ bus: "it", payload: i })));
    const got: number[] = [];
    for await (const e of stream) {
      got.push(e.seq);
      if (got.length === 3000) break;
    }
    expect(got).toEqual(Array.from({ length: 3000 }, (_, i) => i + 1));
  });

  it("only delivers new events without after", async () => {
    claw = await apiClaw();
    await claw.bus.out({ bus: "n", payload: "old" });
    const seen: unknown[] = [];
    const stop = claw.bus.subscribe({ bus: "n" }, (e) => seen.push(e.payload));
    await claw.bus.out({ bus: "n", payload: "new" });
    // Delivery takes a moment on a network store; then a little longer, so a late "old" is caught.
    await vi.waitFor(() => expect(seen).toContain("new"), { timeout: 10_000, interval: 10 });
    await new Promise((r) => setTimeout(r, 50));
    stop();
    expect(seen).toEqual(["new"]);
  });

  it("lists buses and trims them without reusing seqs", async () => {
    claw = await apiClaw();
    for (let i = 0; i < 10; i++) await claw.bus.out({ bus: "t", payload: i });
    await claw.bus.out({ bus: "other", payload: 1 });
    expect((await claw.bus.list()).buses).toEqual([
      { bus: "other", firstSeq: 1, lastSeq: 1, count: 1 },
      { bus: "t", firstSeq: 1, lastSeq: 10, count: 10 },
    ]);
    expect(await claw.bus.trim({ bus: "t", keepLast: 3 })).toEqual({ deleted: 7 });
    const r = await claw.bus.read({ bus: "t" });
    expect(r.events.map((e) => e.seq)).toEqual([8, 9, 10]);
    expect((await claw.bus.out({ bus: "t", payload: "x" })).seq).toBe(11);
    expect(await claw.bus.trim({ bus: "t", beforeTs: Date.now() + 1000 })).toEqual({ deleted: 4 });
    expect((await claw.bus.list()).buses.find((b) => b.bus === "t")).toEqual({
      bus: "t",
      firstSeq: 12,
      lastSeq: 11,
      count: 0,
    });
  });

  it("applies maxEvents retention", async () => {
    claw = await apiClaw({ retention: { maxEvents: 100 } });
    await Promise.all(Array.from({ length: 1000 }, (_, i) => claw.bus.out({ bus: "r", payload: i })));
    const [info] = (await claw.bus.list()).buses;
    expect(info!.lastSeq).toBe(1000);
    expect(info!.count).toBeLessThanOrEqual(200);
    expect(info!.count).toBeGreaterThanOrEqual(100);
  });

  it("rejects bad bus names, missing and oversized payloads with invalid_args / payload_too_large", async () => {
    claw = await apiClaw({ limits: { maxPayloadBytes: 1000 } });
    const bad = await claw.do({ op: "out", args: { bus: "has space", payload: 1 }, id: "a" });
    expect(bad).toMatchObject({
      id: "a",
      ok: false,
      error: { code: "invalid_args", details: { issues: [{ path: "bus" }] } },
    });
    expect(await claw.do({ op: "out", args: { bus: "x".repeat(201), payload: 1 } })).toMatchObject({
      ok: false,
      error: { code: "invalid_args" },
    });
    expect(await claw.do({ op: "out", args: {} })).toMatchObject({
      ok: false,
      error: { code: "invalid_args", details: { issues: [{ path: "payload" }] } },
    });
    expect(await claw.do({ op: "out", args: { payload: "x".repeat(2000) } })).toMatchObject({
      ok: false,
      error: { code: "payload_too_large" },
    });
    expect(await claw.do({ op: "read", args: { limit: 5000 } })).toMatchObject({
      ok: false,
      error: { code: "invalid_args", details: { issues: [{ path: "limit" }] } },
    });
    expect(await claw.do({ op: "trim_bus", args: { bus: "x" } })).toMatchObject({
      ok: false,
      error: { code: "invalid_args" },
    });
  });

  it("refuses subscribe without a streaming connection", async () => {
    claw = await apiClaw();
    expect(await claw.do({ op: "subscribe", args: {} })).toMatchObject({
      ok: false,
      error: { code: "unsupported_on_transport" },
    });
  });
});

describe("every event is bounded", () => {
  it("refuses any event over the payload limit whoever publishes it: out, outJson, enqueueJson", async () => {
    const claw = await apiClaw({ limits: { maxPayloadBytes: 1000 } });
    try {
      const bus = claw.services.bus;
      await expect(claw.bus.out({ bus: "b", payload: "x".repeat(999) })).rejects.toMatchObject({
        code: "payload_too_large",
      });
      // Publishers holding JSON text already (bash line events, session events) hit the same wall.
      await expect(bus.outJson("b", JSON.stringify("é".repeat(600)))).rejects.toMatchObject({
        code: "payload_too_large",
      });
      const errors: unknown[] = [];
      bus.enqueueJson("b", JSON.stringify("y".repeat(5000)), (e) => errors.push(e));
      bus.enqueueJson("b", JSON.stringify("fits"), (e) => errors.push(e));
      await bus.committed();
      expect(errors).toMatchObject([{ code: "payload_too_large" }]);
      const r = await claw.bus.read({ bus: "b" });
      expect(r.events.map((e) => e.payload)).toEqual(["fits"]);
      expect((await claw.bus.out({ bus: "b", payload: "z".repeat(998) })).seq).toBe(2); // exactly 1000 bytes
    } finally {
      await claw.close();
    }
  });

  it("bounds a read page at 4 MiB of event text, at least one event, and continues from next", async () => {
    const claw = await apiClaw();
    try {
      const big = "b".repeat(1024 * 1024 - 2);
      for (let i = 0; i < 9; i++) await claw.bus.out({ bus: "big", payload: big });
      const pages: number[][] = [];
      let after = 0;
      for (;;) {
        const r = await claw.bus.read({ bus: "big", after, limit: 1000 });
        if (r.events.length === 0) break;
        pages.push(r.events.map((e) => e.seq));
        after = r.next;
      }
      expect(pages).toEqual([
        [1, 2, 3],
        [4, 5, 6],
        [7, 8, 9],
      ]);
      const frames: number[] = [];
      for await (const e of claw.bus.subscribe({ bus: "big", after: 0 })) {
        frames.push(e.seq);
        if (e.seq === 9) break;
      }
      expect(frames).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    } finally {
      await claw.close();
    }
  });

  it("refuses nonsense retention: 0.0001 ns, NaN, fractional or negative counts", async () => {
    for (const retention of [{ maxAgeMs: 1e-10 }, { maxAgeMs: Number.NaN }, { maxEvents: 1.5 }, { maxEvents: -1 }]) {
      await expect(apiClaw({ retention })).rejects.toThrow(/bus retention/);
    }
  });
});
