/**
 * Connection limits on a real `serve` with small configured limits and a small descriptor
 * limit: a flood of idle connections is refused past the total before any work, cannot exhaust
 * descriptors, and is cut at the header timeout (then /health answers), slowloris headers are cut at the header timeout,
 * idle keep-alive connections at the idle timeout, and one WebSocket cannot hold unbounded calls.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { type ServeProcess, startServe } from "../fault/serve-process.js";
import { bodyOf, fdCount, openRaw, type RawConnection, statusOf } from "../helpers/raw-http.js";
import { WAIT } from "../helpers/wait.js";

let server: ServeProcess | undefined;
const sockets: RawConnection[] = [];
afterEach(async () => {
  for (const c of sockets.splice(0)) c.socket.destroy();
  if (server?.child.exitCode === null) await server.stop();
  server = undefined;
});

const portOf = (s: ServeProcess) => Number(new URL(s.url).port);

/** Opens `n` connections from `from`, 50 at a time; a refused one may fail to connect at all. */
async function flood(port: number, from: string, n: number): Promise<RawConnection[]> {
  const out: RawConnection[] = [];
  for (let i = 0; i < n; i += 50) {
    const batch = await Promise.allSettled(Array.from({ length: Math.min(50, n - i) }, () => openRaw(port, from)));
    for (const r of batch) if (r.status === "fulfilled") out.push(r.value);
  }
  sockets.push(...out);
  return out;
}

async function health(url: string): Promise<number> {
  const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(10_000) });
  return res.status;
}

describe("connection limits", () => {
  it("2 000 idle connections from one local peer: refused past the total limit with a clear error, the rest cut at the header timeout", async () => {
    server = await startServe(
      ":memory:",
      ["--max-connections", "100", "--max-connections-per-peer", "20", "--header-timeout", "2s"],
      {},
      { nofile: 256 },
    );
    const port = portOf(server);
    const conns = await flood(port, "127.0.0.2", 2000);
    // A local peer counts only against the total; the connections it holds without a request
    // (or a token) are closed at the header timeout, so they cannot lock others out for long.
    await vi.waitFor(() => expect(conns.every((c) => c.socket.destroyed)).toBe(true), { ...WAIT, timeout: 60_000 });
    const refused = conns.filter((c) => statusOf(c.received()) === 429);
    const timedOut = conns.filter((c) => statusOf(c.received()) === 408);
    // Slots freed by the timeout mid-flood admit later ones: every connection was one or the other.
    expect(refused.length + timedOut.length).toBeGreaterThanOrEqual(1900);
    expect(refused.length).toBeGreaterThan(1000);
    expect(JSON.parse(bodyOf(refused[0]!.received())).error).toMatchObject({
      code: "too_many_requests",
      retryable: true,
      details: { limit: 100, scope: "total" },
    });
    expect(timedOut.length).toBeGreaterThanOrEqual(100);
    expect(await health(server.url)).toBe(200);
    expect(await fdCount(server.pid)).toBeLessThan(200);
  }, 120_000);

  it("the total limit refuses the next peer with its own message", async () => {
    server = await startServe(":memory:", ["--max-connections", "30", "--max-connections-per-peer", "10"]);
    const port = portOf(server);
    for (const from of ["127.0.0.3", "127.0.0.4", "127.0.0.5"]) await flood(port, from, 10);
    const next = await openRaw(port, "127.0.0.6");
    sockets.push(next);
    await next.closed;
    expect(statusOf(next.received())).toBe(429);
    const err = JSON.parse(bodyOf(next.received())).error;
    expect(err).toMatchObject({ code: "too_many_requests", details: { limit: 30, scope: "total" } });
    expect(err.message).toMatch(/30 open connections/);
  }, 60_000);

  it("slowloris: headers trickled one byte at a time are cut at the header timeout with 408", async () => {
    server = await startServe(":memory:", ["--header-timeout", "1s"]);
    const port = portOf(server);
    const silent = await openRaw(port);
    const slow = await openRaw(port);
    sockets.push(silent, slow);
    const request = `GET /health HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${"a".repeat(10_000)}\r\n\r\n`;
    let i = 0;
    const drip = setInterval(() => {
      if (!slow.socket.destroyed) slow.socket.write(request[i++ % request.length]!);
    }, 20);
    try {
      await Promise.all([silent.closed, slow.closed]);
    } finally {
      clearInterval(drip);
    }
    for (const c of [silent, slow]) {
      expect(statusOf(c.received())).toBe(408);
      expect(JSON.parse(bodyOf(c.received())).error.code).toBe("request_timeout");
    }
    expect(i).toBeLessThan(request.length); // cut long before the headers were complete
  }, 60_000);

  it("an idle keep-alive connection is closed at the idle timeout", async () => {
    server = await startServe(":memory:", ["--idle-timeout", "1s"]);
    const c = await openRaw(portOf(server));
    sockets.push(c);
    c.socket.write("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n");
    await c.closed;
    expect(statusOf(c.received())).toBe(200);
  }, 60_000);

  it("one WebSocket holds at most --max-calls-per-connection calls; the rest get too_many_requests", async () => {
    server = await startServe(":memory:", ["--max-calls-per-connection", "10"]);
    const ws = new WebSocket(`${server.url.replace("http", "ws")}/ws`, { headers: server.auth });
    await new Promise((r) => ws.once("open", r));
    const answers = new Map<number, any>();
    ws.on("message", (d) => {
      const f = JSON.parse(d.toString());
      if (typeof f.id === "number") answers.set(f.id, f);
    });
    for (let id = 1; id <= 50; id++)
      ws.send(JSON.stringify({ op: "read", args: { bus: "quiet", waitMs: 600_000 }, id }));
    await vi.waitFor(() => expect(answers.size).toBeGreaterThanOrEqual(40), { ...WAIT, timeout: 30_000 });
    const refused = [...answers.values()];
    expect(refused.every((f) => f.ok === false && f.error.code === "too_many_requests")).toBe(true);
    expect(refused[0].error.details).toMatchObject({ limit: 10, scope: "connection" });
    // The ten that were taken are still waiting; an event answers them.
    expect((await server.op("out", { bus: "quiet", payload: 1 })).status).toBe(200);
    await vi.waitFor(() => expect(answers.size).toBe(50), { ...WAIT, timeout: 30_000 });
    expect([...answers.values()].filter((f) => f.ok).length).toBe(10);
    ws.close();
  }, 60_000);
});
