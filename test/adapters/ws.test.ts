import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { memClaw, tempDir } from "../helpers/claw.js";
import { pidFromFile, processAlive, waitProcessGone } from "../helpers/process.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { wsClient } from "./clients.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("WebSocket bridge", () => {
  it("answers each envelope, matched by id (string or number)", async () => {
    server = await startServer(memClaw());
    const c = await wsClient(server);
    const out = await c.request("out", { bus: "b1", payload: { n: 1 } });
    expect(out).toMatchObject({ ok: true, result: { bus: "b1", seq: 1 } });
    c.raw(JSON.stringify({ op: "read", args: { bus: "b1" }, id: 42 }));
    await c.until((f) => f.some((x) => x.id === 42));
    const read = c.frames.find((x) => x.id === 42);
    expect(read.result.events.map((e: any) => e.payload)).toEqual([{ n: 1 }]);
    await c.close();
  });

  it("is pipelined: a long bash does not delay a quick out on the same socket", async () => {
    server = await startServer(memClaw());
    const c = await wsClient(server);
    const slow = c.request("bash", { script: "sleep 1.5; echo slow" });
    const quick = await c.request("out", { payload: "quick" });
    expect(quick.ok).toBe(true);
    // The quick answer arrived while bash was still running.
    expect(c.frames.some((f) => f.result?.stdout === "slow\n")).toBe(false);
    expect((await slow).result.stdout).toBe("slow\n");
    const order = c.frames.map((f) => (f.result?.seq ? "out" : "bash"));
    expect(order).toEqual(["out", "bash"]);
    await c.close();
  });

  it("subscribe pushes the backlog, then live events, with no gap or duplicate", async () => {
    server = await startServer(memClaw());
    const c = await wsClient(server);
    for (let i = 1; i <= 5; i++) await server.claw.bus.out({ bus: "s", payload: i });
    const sub = await c.request("subscribe", { bus: "s", after: 2 });
    expect(sub).toMatchObject({ ok: true, result: { bus: "s", lastSeq: 5 } });
    for (let i = 6; i <= 8; i++) await server.claw.bus.out({ bus: "s", payload: i });
    await c.until((f) => f.filter((x) => x.event === "bus").length >= 6);
    const events = c.frames.filter((x) => x.event === "bus");
    expect(events.map((e) => e.seq)).toEqual([3, 4, 5, 6, 7, 8]);
    expect(events[0]).toEqual({
      event: "bus",
      sub: sub.result.sub,
      bus: "s",
      seq: 3,
      ts: expect.any(Number),
      payload: 3,
    });
    // The subscribe response precedes its first event.
    expect(c.frames.findIndex((f) => f.result?.sub)).toBeLessThan(c.frames.findIndex((f) => f.event === "bus"));

    expect(await c.request("unsubscribe", { sub: sub.result.sub })).toMatchObject({ ok: true, result: { ok: true } });
    await server.claw.bus.out({ bus: "s", payload: 9 });
    const check = await c.request("read", { bus: "s", after: 8 }); // a round trip after the publish
    expect(check.result.events).toHaveLength(1);
    expect(c.frames.filter((x) => x.event === "bus")).toHaveLength(6);
    await c.close();
  });

  it("answers invalid JSON with an error frame and keeps the socket open", async () => {
    server = await startServer(memClaw());
    const c = await wsClient(server);
    c.raw("{not json");
    c.raw('{"op": 5}');
    c.raw('{"op": "nope", "id": 7}');
    await c.until((f) => f.length >= 3);
    expect(c.frames.map((f) => f.error?.code)).toEqual(["invalid_json", "invalid_request", "unknown_op"]);
    expect(c.frames[2].id).toBe(7);
    expect((await c.request("list_buses")).ok).toBe(true);
    await c.close();
  });

  it("answers an 11 MiB message with payload_too_large and serves the next one", async () => {
    server = await startServer(memClaw());
    const c = await wsClient(server);
    c.raw(JSON.stringify({ op: "out", args: { payload: "x".repeat(11 * 1024 * 1024) }, id: "big" }));
    await c.until((f) => f.length >= 1, 20_000);
    expect(c.frames[0]).toMatchObject({ ok: false, error: { code: "payload_too_large" } });
    expect((await c.request("out", { payload: 1 })).ok).toBe(true);
    await c.close();
  });

  it("closing the socket cancels its subscriptions and kills its running bash", async () => {
    server = await startServer(memClaw());
    const dir = tempDir();
    const c = await wsClient(server);
    await c.request("subscribe", { bus: "gone" });
    void c.request("bash", { script: `echo $$ > ${join(dir, "pid")}; sleep 30; touch ${join(dir, "finished")}` });
    const pid = await pidFromFile(join(dir, "pid"));
    expect(processAlive(pid)).toBe(true);
    await c.close();
    expect(await waitProcessGone(pid)).toBe(true);
    expect(existsSync(join(dir, "finished"))).toBe(false);
    // The subscription is gone: publishing has no listener left to deliver to.
    await server.claw.bus.out({ bus: "gone", payload: 1 });
    expect(server.claw.services.bus.listenerCount("gone")).toBe(0);
  });

  it("over the subscription limit answers too_many_requests", async () => {
    server = await startServer(memClaw({ limits: { maxSubscriptions: 2 } }));
    const c = await wsClient(server);
    expect((await c.request("subscribe", {})).ok).toBe(true);
    expect((await c.request("subscribe", {})).ok).toBe(true);
    expect((await c.request("subscribe", {})).error.code).toBe("too_many_requests");
    await c.close();
  });
});
