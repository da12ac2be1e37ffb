/**
 * Bytes that are not valid HTTP, and WebSocket handshakes that are not valid, against a real
 * `serve`: every answer is a plain status with a JSON error envelope (never Node's bare reply,
 * never a stack, never a 5xx), and the process keeps serving. Thousands of generated cases.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServeProcess, startServe } from "../fault/serve-process.js";
import { bodyOf, exchange, statusOf } from "../helpers/raw-http.js";

let server: ServeProcess;
let port: number;
beforeAll(async () => {
  server = await startServe(":memory:", ["--header-timeout", "5s"]);
  port = Number(new URL(server.url).port);
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

/** A small deterministic generator, so a failing case can be found again by its index. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

const KEY = "dGhlIHNhbXBsZSBub25jZQ==";

/** Malformed requests: each breaks one rule of HTTP/1.1 (request line, headers, framing). */
function httpCase(i: number, rand: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const host = "Host: localhost\r\n";
  const auth = `Authorization: Bearer ${server.token}\r\n`;
  const json = "Content-Type: application/json\r\n";
  const body = '{"op":"list_buses"}';
  const junk = () =>
    Array.from({ length: 1 + Math.floor(rand() * 40) }, () => String.fromCharCode(Math.floor(rand() * 256))).join("");
  const cases: (() => string)[] = [
    () => `${junk()}\r\n\r\n`,
    () => `GET / HTTP/9.9\r\n${host}\r\n`,
    () => `GET\r\n${host}\r\n`,
    () => `GET /health\r\n\r\n`,
    () => `G ET /health HTTP/1.1\r\n${host}\r\n`,
    () => `GET /he alth HTTP/1.1\r\n${host}\r\n`,
    () =>
      `POST /do HTTP/1.1\r\n${host}${auth}${json}Content-Length: ${body.length}\r\nContent-Length: ${body.length + 1}\r\n\r\n${body}`,
    () => `POST /do HTTP/1.1\r\n${host}${auth}${json}Content-Length: -1\r\n\r\n${body}`,
    () => `POST /do HTTP/1.1\r\n${host}${auth}${json}Content-Length: 1x\r\n\r\n${body}`,
    () =>
      `POST /do HTTP/1.1\r\n${host}${auth}${json}Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n${body}`,
    () => `POST /do HTTP/1.1\r\n${host}${auth}${json}Transfer-Encoding: chunked\r\n\r\nzz\r\n${body}\r\n0\r\n\r\n`,
    () => `POST /do HTTP/1.1\r\n${host}${auth}${json}Transfer-Encoding: gzip, chunked, identity\r\n\r\n0\r\n\r\n`,
    () => `POST /do HTTP/1.1\r\n${host}${auth}${json}Content-Length: 100\r\n\r\n${body}`,
    () => `GET /health HTTP/1.1\r\nBad Header Name: x\r\n\r\n`,
    () => `GET /health HTTP/1.1\r\n${host}X-Null: a\u0000b\r\n\r\n`,
    () => `GET /health HTTP/1.1\r\n${host} folded: continuation\r\n\r\n`,
    () => `GET /health HTTP/1.1\r\n${host}X-Big: ${"b".repeat(20_000 + Math.floor(rand() * 60_000))}\r\n\r\n`,
    () => `GET /health HTTP/1.1\n${host}\n`,
    () => `GET /health HTTP/1.1\r${host}\r\r`,
    () => `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`,
    () =>
      `${pick(["GET", "POST", "PUT", "BREW", "get"])} ${pick(["/do", "/ws", "*", "http://x/do", "/%zz"])} HTTP/1.1\r\n${pick([host, "", "Host: a\r\nHost: b\r\n"])}${junk().replace(/[\r\n]/g, "")}\r\n\r\n`,
    () => `GET /health HTTP/1.1\r\n${host}`, // cut off before the blank line
  ];
  return cases[i % cases.length]!();
}

/** Upgrade requests that are not a valid WebSocket handshake (or not allowed). */
function wsCase(i: number, rand: () => number): string {
  const auth = `Authorization: Bearer ${server.token}\r\n`;
  const up = "Upgrade: websocket\r\nConnection: Upgrade\r\n";
  const cases = [
    `GET /ws HTTP/1.1\r\nHost: localhost\r\n${auth}${up}Sec-WebSocket-Version: 13\r\n\r\n`,
    `GET /ws HTTP/1.1\r\nHost: localhost\r\n${auth}${up}Sec-WebSocket-Key: short\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    `GET /ws HTTP/1.1\r\nHost: localhost\r\n${auth}${up}Sec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 8\r\n\r\n`,
    `GET /ws HTTP/1.1\r\nHost: localhost\r\n${auth}${up}Sec-WebSocket-Key: ${KEY}\r\n\r\n`,
    `POST /ws HTTP/1.1\r\nHost: localhost\r\n${auth}${up}Sec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    `GET /ws HTTP/1.1\r\nHost: localhost\r\n${auth}Upgrade: h2c\r\nConnection: Upgrade\r\n\r\n`,
    `GET /elsewhere HTTP/1.1\r\nHost: localhost\r\n${auth}${up}Sec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    `GET /ws HTTP/1.1\r\nHost: localhost\r\n${up}Sec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    `GET /ws HTTP/1.1\r\nHost: evil.example\r\n${auth}${up}Sec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    `GET /ws HTTP/1.1\r\nHost: localhost\r\n${auth}${up}Sec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Extensions: ${"x".repeat(Math.floor(rand() * 200))}=\r\n\r\n`,
  ];
  return cases[i % cases.length]!;
}

/** Checks one answer: a status line and (for an error) a JSON envelope, or a silent close; no 5xx, no stack. */
function check(label: string, response: string): number | undefined {
  expect(response, label).not.toMatch(/\n\s+at \S+ \(|node:internal|Error: /);
  const status = statusOf(response);
  if (response === "") return undefined; // closed without a word: allowed (e.g. the socket was reset)
  expect(status, `${label}: ${response.slice(0, 200)}`).toBeDefined();
  expect(status! < 500 || status === 503, `${label}: ${response.slice(0, 200)}`).toBe(true);
  if (status! < 400) return status; // a generated case that happens to be valid (or a lenient parse)
  const body = JSON.parse(bodyOf(response));
  expect(body, label).toMatchObject({ ok: false, error: { code: expect.any(String), retryable: expect.any(Boolean) } });
  return status;
}

async function run(count: number, make: (i: number, rand: () => number) => string): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const bytes = make(i, rng(i + 1));
      const status = check(
        `case ${i}: ${JSON.stringify(bytes.slice(0, 120))}`,
        await exchange(port, Buffer.from(bytes, "latin1")),
      );
      statuses.set(status ?? 0, (statuses.get(status ?? 0) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return statuses;
}

describe("malformed HTTP and WebSocket handshakes", () => {
  it("2 200 malformed HTTP requests: each a plain 4xx with an error envelope; the server keeps serving", async () => {
    const statuses = await run(2200, httpCase);
    expect(statuses.get(400)).toBeGreaterThan(1000);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect((await server.op("list_buses")).status).toBe(200);
  }, 300_000);

  it("1 000 bad WebSocket handshakes: each refused cleanly with an error envelope", async () => {
    const statuses = await run(1000, wsCase);
    for (const s of statuses.keys()) expect([101, 400, 401, 403, 404, 426]).toContain(s);
    expect(statuses.get(400)).toBeGreaterThan(300);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  }, 300_000);
});
