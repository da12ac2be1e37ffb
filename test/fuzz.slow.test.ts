/**
 * Thousands of malformed frames at POST /do, WebSocket and stdio: each one is answered with an
 * error envelope carrying a known code, never a 5xx, never a stack trace, and the server keeps
 * serving.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { idOf } from "../src/core/wire.js";
import { ERROR_TABLE } from "../src/index.js";
import { stdioClient, wsClient } from "./adapters/clients.js";
import { malformedFrames } from "./fuzz-frames.js";
import { memClaw } from "./helpers/claw.js";
import { startServer, type TestServer } from "./helpers/server.js";

const PER_TRANSPORT = 1500;
const FRAMES = malformedFrames(PER_TRANSPORT, 20240601);
const STACK = /\n\s+at |^\s+at .+:\d+:\d+\)?$| {4}at /m;

let server: TestServer;
beforeAll(async () => {
  server = await startServer(memClaw());
});
afterAll(async () => {
  await server?.close();
});

function checkEnvelope(text: string): any {
  expect(text).not.toMatch(STACK);
  const body = JSON.parse(text);
  expect(body.ok, text.slice(0, 300)).toBe(false);
  expect(Object.keys(ERROR_TABLE), text.slice(0, 300)).toContain(body.error.code);
  expect(typeof body.error.message).toBe("string");
  expect(typeof body.error.retryable).toBe("boolean");
  return body;
}

function expectedIds(frames: string[]): string[] {
  return frames
    .map((f) => {
      try {
        return JSON.stringify(idOf(JSON.parse(f)));
      } catch {
        return "null";
      }
    })
    .sort();
}

describe("fuzz: malformed frames", () => {
  it(`POST /do: ${PER_TRANSPORT} bodies, each an error envelope, none a 5xx`, async () => {
    const statuses = new Map<number, number>();
    let next = 0;
    const worker = async () => {
      while (next < FRAMES.length) {
        const frame = FRAMES[next++]!;
        const res = await fetch(`${server.url}/do`, {
          method: "POST",
          headers: { "content-type": "application/json", ...server.auth },
          body: frame,
        });
        const text = await res.text();
        expect(res.status, text.slice(0, 300)).toBeLessThan(500);
        expect(res.status).toBeGreaterThanOrEqual(400);
        checkEnvelope(text);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBe(PER_TRANSPORT);
    // Bytes that are not UTF-8 at all, and a body of the wrong type.
    for (const body of [Buffer.from([0xff, 0xfe, 0x7b, 0x80]), Buffer.from([0xc3, 0x28, 0x0a])]) {
      const res = await fetch(`${server.url}/do`, {
        method: "POST",
        headers: { "content-type": "application/json", ...server.auth },
        body,
      });
      expect(res.status).toBe(400);
      checkEnvelope(await res.text());
    }
    expect((await server.op("list_buses", {})).ok).toBe(true);
  }, 120_000);

  it(`WebSocket: ${PER_TRANSPORT} messages on one socket, one error frame each, the socket stays open`, async () => {
    const c = await wsClient(server);
    for (const frame of FRAMES) c.raw(frame);
    c.ws.send(Buffer.from([0xff, 0xfe, 0x7b]), { binary: true }); // not UTF-8, as a binary message
    await c.until((f) => f.length >= PER_TRANSPORT + 1, 60_000);
    expect(c.frames).toHaveLength(PER_TRANSPORT + 1);
    for (const f of c.frames) checkEnvelope(JSON.stringify(f));
    expect(c.frames.map((f) => JSON.stringify(f.id)).sort()).toEqual([...expectedIds(FRAMES), "null"].sort());
    expect((await c.request("list_buses")).ok).toBe(true);
    await c.close();
  }, 120_000);

  it(`stdio: ${PER_TRANSPORT} lines, one error line each, the stream goes on`, async () => {
    const s = stdioClient(server.claw);
    s.input.write(`${FRAMES.join("\n")}\n`);
    s.input.write(Buffer.from([0xff, 0xfe, 0x7b, 0x0a])); // a line that is not UTF-8
    await s.until((f) => f.length >= PER_TRANSPORT + 1, 60_000);
    for (const line of s.lines) checkEnvelope(line);
    expect(s.frames.map((f) => JSON.stringify(f.id)).sort()).toEqual([...expectedIds(FRAMES), "null"].sort());
    expect((await s.request("list_buses")).ok).toBe(true);
    await s.close();
  }, 120_000);
});
