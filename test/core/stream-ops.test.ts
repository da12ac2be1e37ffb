/**
 * Stream operations are one mechanism: defined once in the registry (kind "stream"), their handle
 * method is derived on the local and the remote claw alike, in-process consumers open them
 * through the dispatcher (arguments validated there), and every transport's frames come from one
 * encoder, which also keeps U+2028/U+2029 out of raw frame text.
 */
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { StoredEvent } from "../../src/bus/event-store.js";
import { connectClaw } from "../../src/client.js";
import { encodeEventFrame, eventFrameParts } from "../../src/core/wire.js";
import { deriveHandles, type HandleEntry } from "../../src/handles/derive.js";
import type { Claw } from "../../src/index.js";
import { OPS } from "../../src/ops/index.js";
import { memClaw } from "../helpers/claw.js";
import { startServer, type TestServer } from "../helpers/server.js";

let claw: Claw | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  await claw?.close();
  server = undefined;
  claw = undefined;
});

describe("stream operations", () => {
  it("are marked in the registry and the catalog, and only they", () => {
    claw = memClaw();
    const streams = claw.ops().filter((e) => e.kind === "stream");
    expect(streams.map((e) => e.name)).toEqual(
      OPS.filter((o) => "kind" in o && o.kind === "stream").map((o) => o.name),
    );
    expect(streams.map((e) => [e.name, e.handle, e.streamingOnly])).toEqual([["subscribe", "bus.subscribe", true]]);
  });

  it("a new stream operation gets its handle method from derivation alone", () => {
    const entries: HandleEntry[] = [
      { name: "tail_logs", handle: "logs.tail", streamingOnly: true, kind: "stream", input: {} },
      { name: "read_logs", handle: "logs.read", streamingOnly: false, kind: "call", input: {} },
    ];
    const opened: string[] = [];
    const derived = deriveHandles(
      entries,
      async (name) => name,
      (name) => () => opened.push(name),
    );
    (derived.groups.logs!.tail as unknown as () => void)();
    expect(opened).toEqual(["tail_logs"]);
    expect(Object.keys(derived.groups.logs!)).toEqual(["tail", "read"]);
  });

  it("the local handle opens its stream through the registry: arguments are validated there", () => {
    claw = memClaw();
    expect(() => claw!.bus.subscribe({ bus: "no spaces" })).toThrow(expect.objectContaining({ code: "invalid_args" }));
    expect(() => claw!.openStream("read" as never, {} as never)).toThrow(
      expect.objectContaining({ code: "invalid_request" }),
    );
  });

  it("local and remote claws have the same stream method, delivering the same events", async () => {
    claw = memClaw();
    server = await startServer(claw);
    const remote = await connectClaw({ url: server.url, token: server.token, WebSocket });
    for (let i = 0; i < 5; i++) await claw.bus.out({ bus: "same", payload: { i, line: "a\u2028b" } });
    const local = claw.bus.subscribe({ bus: "same", after: 0 });
    const far = remote.bus.subscribe({ bus: "same", after: 0 });
    const take = async (s: AsyncIterableIterator<unknown>) => {
      const out: unknown[] = [];
      for await (const e of s) if (out.push(e) === 5) break;
      return out;
    };
    const [a, b] = await Promise.all([take(local), take(far)]);
    expect(b).toEqual(a);
    expect((a[4] as { payload: unknown }).payload).toEqual({ i: 4, line: "a\u2028b" });
    await remote.close();
  });

  it("one encoder: a stream frame and an SSE data line differ only by the stream's fields", () => {
    const e: StoredEvent = { bus: "b", seq: 7, ts: 1, payloadJson: '{"t":"x\u2029y"}' };
    const frame = encodeEventFrame("sub_1", e);
    expect(frame).not.toMatch(/[\u2028\u2029]/);
    expect(JSON.parse(frame)).toEqual({
      event: "bus",
      sub: "sub_1",
      bus: "b",
      seq: 7,
      ts: 1,
      payload: { t: "x\u2029y" },
    });
    expect(JSON.parse(eventFrameParts(e).join(""))).toEqual({
      bus: "b",
      seq: 7,
      ts: 1,
      payload: { t: "x\u2029y" },
    });
  });
});
