import { get as httpGet } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { JsonLinesSplitter } from "../../adapters/jsonl.js";
import { memClaw } from "../helpers/claw.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { WAIT } from "../helpers/wait.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface SseStream {
  status: number;
  /** Parsed events so far: {id, data} */
  events: { id?: string; data: any }[];
  comments: string[];
  close(): void;
  pause(): void;
  resume(): void;
}

/** Opens an SSE stream with node:http, so closing it really closes the connection. */
function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, { headers }, (res) => {
      const stream: SseStream = {
        status: res.statusCode!,
        events: [],
        comments: [],
        close: () => req.destroy(),
        pause: () => res.pause(),
        resume: () => res.resume(),
      };
      let current: { id?: string; data?: string } = {};
      const splitter = new JsonLinesSplitter({
        line: (line) => {
          if (line === "") {
            if (current.data !== undefined) stream.events.push({ id: current.id, data: JSON.parse(current.data) });
            current = {};
          } else if (line.startsWith(":")) stream.comments.push(line);
          else if (line.startsWith("id: ")) current.id = line.slice(4);
          else if (line.startsWith("data: ")) current.data = line.slice(6);
        },
        oversize: () => {},
      });
      res.on("data", (c: Buffer) => splitter.push(c));
      res.on("error", () => {});
      resolve(stream);
    });
    req.on("error", (err) => ((err as NodeJS.ErrnoException).code === "ECONNRESET" ? undefined : reject(err)));
  });
}

function listenerCount(s: TestServer, bus: string): number {
  return s.claw.services.bus.listenerCount(bus);
}

describe("GET /bus/<name>/events (SSE)", () => {
  it("streams events with id = seq, from ?after=, then live", async () => {
    server = await startServer(memClaw());
    for (let i = 1; i <= 3; i++) await server.claw.bus.out({ bus: "news", payload: { i } });
    const sse = await openSse(`${server.url}/bus/news/events?after=1`, server!.auth);
    expect(sse.status).toBe(200);
    await server.claw.bus.out({ bus: "news", payload: { i: 4 } });
    await vi.waitFor(() => expect(sse.events).toHaveLength(3), WAIT);
    expect(sse.events.map((e) => e.id)).toEqual(["2", "3", "4"]);
    expect(sse.events[0]!.data).toEqual({ bus: "news", seq: 2, ts: expect.any(Number), payload: { i: 2 } });
    sse.close();
  });

  it("resumes from Last-Event-ID, which wins over ?after=", async () => {
    server = await startServer(memClaw());
    for (let i = 1; i <= 5; i++) await server.claw.bus.out({ bus: "r", payload: i });
    const sse = await openSse(`${server.url}/bus/r/events?after=0`, { ...server!.auth, "Last-Event-ID": "3" });
    await vi.waitFor(() => expect(sse.events).toHaveLength(2), WAIT);
    expect(sse.events.map((e) => e.data.payload)).toEqual([4, 5]);
    sse.close();
  });

  it("without a cursor sends only new events", async () => {
    server = await startServer(memClaw());
    await server.claw.bus.out({ bus: "n", payload: "old" });
    const sse = await openSse(`${server.url}/bus/n/events`, server!.auth);
    await vi.waitFor(() => expect(sse.comments.length).toBeGreaterThan(0), WAIT); // the stream is open
    await server.claw.bus.out({ bus: "n", payload: "new" });
    await vi.waitFor(() => expect(sse.events).toHaveLength(1), WAIT);
    expect(sse.events[0]!.data.payload).toBe("new");
    sse.close();
  });

  it("sends heartbeat comments", async () => {
    server = await startServer(memClaw());
    const sse = await openSse(`${server.url}/bus/quiet/events?heartbeat=1`, server!.auth);
    await vi.waitFor(() => expect(sse.comments.some((c) => c.startsWith(": ping"))).toBe(true), {
      ...WAIT,
      timeout: 5000,
    });
    sse.close();
  });

  it("rejects a bad bus name or cursor with a 400 error envelope", async () => {
    server = await startServer(memClaw());
    const bad = await fetch(`${server.url}/bus/${encodeURIComponent("no spaces")}/events`, { headers: server.auth });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ ok: false, error: { code: "invalid_args" } });
    const cursor = await fetch(`${server.url}/bus/ok/events?after=-3`, { headers: server.auth });
    expect(cursor.status).toBe(400);
    expect(((await cursor.json()) as any).error.code).toBe("invalid_args");
  });

  it("ends the subscription when the client goes", async () => {
    server = await startServer(memClaw());
    const sse = await openSse(`${server.url}/bus/leave/events`, server!.auth);
    await vi.waitFor(() => expect(sse.comments.length).toBeGreaterThan(0), WAIT);
    expect(listenerCount(server, "leave")).toBe(1);
    sse.close();
    await vi.waitFor(() => expect(listenerCount(server!, "leave")).toBe(0), WAIT);
  });

  it("a paused reader loses nothing: the subscription pauses and catches up on drain", async () => {
    server = await startServer(memClaw());
    const sse = await openSse(`${server.url}/bus/flood/events?after=0`, server!.auth);
    sse.pause();
    const N = 6000;
    const payload = "z".repeat(1000); // ~6 MB: far past the socket buffers
    for (let i = 0; i < N; i += 500)
      await Promise.all(Array.from({ length: 500 }, () => server!.claw.bus.out({ bus: "flood", payload })));
    sse.resume();
    await vi.waitFor(() => expect(sse.events).toHaveLength(N), { ...WAIT, timeout: 30_000 });
    expect(sse.events.map((e) => Number(e.id))).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    sse.close();
  });

  it("checks access like /do: foreign Origin 403, wrong token 401", async () => {
    server = await startServer(memClaw(), { token: "s3cret" });
    const noToken = await fetch(`${server.url}/bus/x/events`);
    expect(noToken.status).toBe(401);
    const foreign = await fetch(`${server.url}/bus/x/events`, {
      headers: { origin: "https://evil.example", authorization: "Bearer s3cret" },
    });
    expect(foreign.status).toBe(403);
    const ok = await openSse(`${server.url}/bus/x/events?token=s3cret`);
    expect(ok.status).toBe(200);
    ok.close();
  });
});
