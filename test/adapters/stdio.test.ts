import { afterEach, describe, expect, it } from "vitest";
import type { Claw } from "../../src/index.js";
import { memClaw } from "../helpers/claw.js";
import { stdioClient } from "./clients.js";

const claws: Claw[] = [];
afterEach(async () => {
  for (const c of claws.splice(0)) await c.close();
});
function claw(options = {}): Claw {
  const c = memClaw(options);
  claws.push(c);
  return c;
}

describe("stdio JSON lines", () => {
  it("keeps U+2028 and U+2029 inside a string through a round trip", async () => {
    const s = stdioClient(claw());
    // Raw (unescaped) separators inside the request line: readline would cut it here.
    s.raw(`{"op":"out","args":{"bus":"u","payload":{"t":"a\u2028b\u2029c"}},"id":1}`);
    await s.until((f) => f.length === 1); // requests are pipelined: let the out commit first
    const read = await s.request("read", { bus: "u" });
    expect(read.result.events[0].payload).toEqual({ t: "a\u2028b\u2029c" });
    expect(s.frames[0]).toMatchObject({ id: 1, ok: true });
    // Event lines carry them intact too.
    await s.request("subscribe", { bus: "u", after: 0 });
    await s.until((f) => f.some((x) => x.event === "bus"));
    expect(s.frames.find((x) => x.event === "bus").payload).toEqual({ t: "a\u2028b\u2029c" });
    // Output lines escape them, so line-splitting readers downstream are safe too.
    expect(s.lines.every((l) => !l.includes("\u2028") && !l.includes("\u2029"))).toBe(true);
    await s.close();
  });

  it("at EOF during a running bash, still writes its result before resolving", async () => {
    const s = stdioClient(claw());
    s.raw(JSON.stringify({ op: "bash", args: { script: "sleep 0.5; echo finished" }, id: "b" }));
    s.end();
    await s.done;
    expect(s.frames).toEqual([
      { id: "b", ok: true, result: { stdout: "finished\n", stderr: "", exitCode: 0, timeout: false, sandbox: "none" } },
    ]);
  });

  it("answers a bad line with an error line and goes on", async () => {
    const s = stdioClient(claw());
    s.input.write("not json\n\n   \n[1,2]\n");
    const ok = await s.request("list_buses");
    expect(s.frames.map((f) => f.error?.code ?? "ok")).toEqual(["invalid_json", "invalid_request", "ok"]);
    expect(ok.ok).toBe(true);
    await s.close();
  });

  it("answers an oversized line with payload_too_large and reads the next", async () => {
    const s = stdioClient(claw(), { maxLineBytes: 1024 });
    s.raw(JSON.stringify({ op: "out", args: { payload: "x".repeat(5000) }, id: 1 }));
    const next = await s.request("out", { payload: "small" });
    expect(s.frames[0]).toMatchObject({ id: null, ok: false, error: { code: "payload_too_large" } });
    expect(next).toMatchObject({ ok: true, result: { seq: 1 } });
    await s.close();
  });

  it("pipelines: a quick request is answered while a slow one runs", async () => {
    const s = stdioClient(claw());
    const slow = s.request("bash", { script: "sleep 1; echo slow" });
    await s.request("out", { payload: 1 });
    expect(s.frames).toHaveLength(1);
    await slow;
    expect(s.frames).toHaveLength(2);
    await s.close();
  });

  it("streams subscription events as lines, backlog then live", async () => {
    const c = claw();
    const s = stdioClient(c);
    await c.bus.out({ bus: "ev", payload: "old" });
    const sub = await s.request("subscribe", { bus: "ev", after: 0 });
    await c.bus.out({ bus: "ev", payload: "new" });
    await s.until((f) => f.filter((x) => x.event === "bus").length === 2);
    expect(s.frames.filter((x) => x.event === "bus")).toEqual([
      { event: "bus", sub: sub.result.sub, bus: "ev", seq: 1, ts: expect.any(Number), payload: "old" },
      { event: "bus", sub: sub.result.sub, bus: "ev", seq: 2, ts: expect.any(Number), payload: "new" },
    ]);
    await s.close();
  });

  it("cuts a subscription whose reader falls behind and says where to resume", async () => {
    const c = claw();
    const s = stdioClient(c, { highWaterMark: 32 * 1024 });
    s.output.pause(); // nobody reads
    const sub = s.request("subscribe", { bus: "fast", after: 0 });
    for (let i = 0; i < 20; i++)
      await Promise.all(Array.from({ length: 50 }, () => c.bus.out({ bus: "fast", payload: "y".repeat(500) })));
    s.output.resume();
    await sub;
    await s.until((f) => f.some((x) => x.event === "subscription_closed"));
    const events = s.frames.filter((x) => x.event === "bus");
    const notice = s.frames.find((x) => x.event === "subscription_closed");
    expect(notice).toMatchObject({ bus: "fast", lastSeq: events[events.length - 1].seq, reason: "slow_consumer" });
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: events.length }, (_, i) => i + 1));
    expect(events.length).toBeLessThan(1000);
    // Resuming with after = lastSeq delivers the rest.
    await s.request("subscribe", { bus: "fast", after: notice.lastSeq });
    await s.until((f) => f.filter((x) => x.event === "bus").length === 1000);
    expect(s.frames.filter((x) => x.event === "bus").map((e) => e.seq)).toEqual(
      Array.from({ length: 1000 }, (_, i) => i + 1),
    );
    await s.close();
  });
});
