/** Slow consumers and dead peers: the high-water mark (4008), bounded memory, resuming with `after`, pings. */
import { afterEach, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { listenHttp, type RunningHttp } from "../../adapters/http.js";
import { createAccessPolicy } from "../../adapters/security.js";
import { type BridgeSocket, bridgeSocket, SLOW_CONSUMER_CLOSE } from "../../adapters/ws-bridge.js";
import { type AttachedWebSocket, attachWebSocket } from "../../adapters/ws-server.js";
import type { Claw } from "../../src/index.js";
import { memClaw } from "../helpers/claw.js";
import { WAIT } from "../helpers/wait.js";

class FakeSocket implements BridgeSocket {
  sent: string[] = [];
  bufferedAmount = 0;
  maxBuffered = 0;
  closedWith?: { code?: number; reason?: string };
  terminated = false;
  pings = 0;
  send(data: string): void {
    this.sent.push(data);
    this.bufferedAmount += Buffer.byteLength(data); // never drains: the slowest consumer there is
    this.maxBuffered = Math.max(this.maxBuffered, this.bufferedAmount);
  }
  close(code?: number, reason?: string): void {
    this.closedWith = { code, reason };
  }
  terminate(): void {
    this.terminated = true;
  }
  ping(): void {
    this.pings++;
  }
}

const claws: Claw[] = [];
let http: RunningHttp | undefined;
let ws: AttachedWebSocket | undefined;
afterEach(async () => {
  ws?.close();
  await http?.close();
  for (const c of claws.splice(0)) await c.close();
  http = undefined;
  ws = undefined;
});

function claw(): Claw {
  const c = memClaw();
  claws.push(c);
  return c;
}

async function publish(c: Claw, bus: string, count: number, payload: unknown): Promise<void> {
  for (let i = 0; i < count; i += 500) {
    await Promise.all(Array.from({ length: Math.min(500, count - i) }, () => c.bus.out({ bus, payload })));
  }
}

describe("slow WebSocket consumer (fake socket)", () => {
  it("is closed with 4008 at the high-water mark; the buffer never grows past the mark plus one frame", async () => {
    const c = claw();
    const sock = new FakeSocket();
    const hwm = 64 * 1024;
    const bridge = bridgeSocket(c, sock, { highWaterMark: hwm });
    bridge.message(JSON.stringify({ op: "subscribe", args: { bus: "slow", after: 0 }, id: 1 }));
    const payload = "p".repeat(1000);
    await publish(c, "slow", 2000, payload); // ~2 MB, 30x the mark
    await vi.waitFor(() => expect(sock.closedWith?.code).toBe(SLOW_CONSUMER_CLOSE), WAIT);
    const events = sock.sent.map((s) => JSON.parse(s)).filter((f) => f.event === "bus");
    const closing = JSON.parse(sock.sent[sock.sent.length - 1]!);
    expect(closing).toMatchObject({ event: "closing", code: 4008, reason: "slow_consumer" });
    const last = events[events.length - 1].seq;
    expect(closing.subscriptions).toEqual([{ sub: events[0].sub, bus: "slow", lastSeq: last }]);
    expect(sock.closedWith?.reason).toBe(`slow_consumer lastSeq=${last}`);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    // Bounded: the mark, one event frame, and the closing frame.
    expect(sock.maxBuffered).toBeLessThan(hwm + 2 * 1200);
    expect(bridge.peer.streamCount).toBe(0);
  });

  it("terminates a peer that does not answer pings, and keeps one that does", async () => {
    const c = claw();
    const dead = new FakeSocket();
    const live = new FakeSocket();
    bridgeSocket(c, dead, { pingIntervalMs: 20 });
    const liveBridge = bridgeSocket(c, live, { pingIntervalMs: 20 });
    const ponger = setInterval(() => liveBridge.pong(), 5);
    // The dead one is cut at its first unanswered ping; the live one outlives several.
    await vi.waitFor(() => {
      expect(dead.terminated).toBe(true);
      expect(live.pings).toBeGreaterThan(2);
    }, WAIT);
    clearInterval(ponger);
    liveBridge.closed();
    expect(dead.terminated).toBe(true);
    expect(dead.pings).toBe(1);
    expect(live.terminated).toBe(false);
    expect(live.pings).toBeGreaterThan(2);
  });
});

describe("slow WebSocket consumer (real socket)", () => {
  it("is cut at the mark while server memory stays bounded, and resuming with after loses nothing", async () => {
    const c = claw();
    const policy = createAccessPolicy();
    http = await listenHttp(c, { host: "127.0.0.1", port: 0, policy });
    ws = attachWebSocket(c, http.server, { policy, highWaterMark: 256 * 1024 });
    const url = `${http.url.replace("http", "ws")}/ws`;

    const received: number[] = [];
    const first = new WebSocket(url, { headers: { authorization: `Bearer ${policy.token}` } });
    await new Promise((r) => first.once("open", r));
    const frames: any[] = [];
    first.on("message", (d) => frames.push(JSON.parse(d.toString())));
    first.send(JSON.stringify({ op: "subscribe", args: { bus: "firehose", after: 0 }, id: 1 }));
    await new Promise<void>((r) => first.once("message", () => r()));
    // Stop reading: the kernel buffers fill, then the server's send buffer grows.
    first.pause(); // ws's own pause: its receiver will not resume the socket behind our back

    // The server's memory at stake is its send queue for this socket: sample it while publishing.
    let peak = 0;
    const sampler = setInterval(() => {
      for (const s of ws!.wss.clients) peak = Math.max(peak, s.bufferedAmount);
    }, 1);
    const N = 30_000;
    await publish(c, "firehose", N, "x".repeat(1000)); // ~30 MB
    await vi.waitFor(() => expect([...ws!.wss.clients].map((s) => s.readyState)).toEqual([WebSocket.CLOSING]), WAIT);
    clearInterval(sampler);
    // Without the cut the queue grows to most of the 30 MB; with it, the mark plus one frame.
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThan(256 * 1024 + 64 * 1024);

    // The server has started closing the socket (it waits for the close handshake behind the queued frames).
    expect([...ws!.wss.clients].map((s) => s.readyState)).toEqual([WebSocket.CLOSING]);
    const closed = new Promise<{ code: number; reason: string }>((r) =>
      first.once("close", (code, reason) => r({ code, reason: reason.toString() })),
    );
    first.resume();
    const { code, reason } = await closed;
    expect(code).toBe(4008);
    for (const f of frames) if (f.event === "bus") received.push(f.seq);
    const closing = frames.find((f) => f.event === "closing");
    const lastSeq = received[received.length - 1]!;
    expect(closing.subscriptions[0].lastSeq).toBe(lastSeq);
    expect(reason).toBe(`slow_consumer lastSeq=${lastSeq}`);
    expect(lastSeq).toBeLessThan(N);

    // Resume where the last delivered event was.
    const second = new WebSocket(url, { headers: { authorization: `Bearer ${policy.token}` } });
    await new Promise((r) => second.once("open", r));
    const done = new Promise<void>((resolve) =>
      second.on("message", (d) => {
        const f = JSON.parse(d.toString());
        if (f.event === "bus") received.push(f.seq);
        if (f.seq === N) resolve();
      }),
    );
    second.send(JSON.stringify({ op: "subscribe", args: { bus: "firehose", after: lastSeq }, id: 2 }));
    await done;
    second.close();
    expect(received).toEqual(Array.from({ length: N }, (_, i) => i + 1));
  });
});
