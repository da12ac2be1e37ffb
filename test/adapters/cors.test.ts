/** CORS for --allow-origin origins: ACAO + Vary on responses, 204 preflight; other origins 403. */
import { afterEach, expect, test } from "vitest";
import { memClaw } from "../helpers/claw.js";
import { startServer, type TestServer } from "../helpers/server.js";

const ALLOWED = "http://app.example:5173";
let server: TestServer;
afterEach(async () => {
  await server?.close();
});

const preflight = (origin: string) =>
  fetch(`${server.url}/do`, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization, content-type",
    },
  });

test("an allowed origin gets a 204 preflight with methods and headers, and ACAO + Vary on the call", async () => {
  server = await startServer(memClaw(), { allowedOrigins: [ALLOWED] });
  const pre = await preflight(ALLOWED);
  expect(pre.status).toBe(204);
  expect(pre.headers.get("access-control-allow-origin")).toBe(ALLOWED);
  expect(pre.headers.get("vary")).toBe("Origin");
  expect(pre.headers.get("access-control-allow-methods")).toContain("POST");
  expect(pre.headers.get("access-control-allow-headers")).toBe("authorization, content-type");

  const res = await fetch(`${server.url}/do`, {
    method: "POST",
    headers: { origin: ALLOWED, "content-type": "application/json", authorization: `Bearer ${server.policy.token}` },
    body: JSON.stringify({ op: "out", args: { payload: 1 } }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("access-control-allow-origin")).toBe(ALLOWED);
  expect(res.headers.get("vary")).toBe("Origin");
  expect(((await res.json()) as any).result.seq).toBe(1);
});

test("another origin gets 403 on the preflight and on the call, with no ACAO", async () => {
  server = await startServer(memClaw(), { allowedOrigins: [ALLOWED] });
  const pre = await preflight("http://evil.example");
  expect(pre.status).toBe(403);
  expect(pre.headers.get("access-control-allow-origin")).toBeNull();
  expect(((await pre.json()) as any).error.code).toBe("forbidden");
  const res = await fetch(`${server.url}/do`, {
    method: "POST",
    headers: {
      origin: "http://evil.example",
      "content-type": "application/json",
      authorization: `Bearer ${server.policy.token}`,
    },
    body: JSON.stringify({ op: "out", args: { payload: 1 } }),
  });
  expect(res.status).toBe(403);
  expect(res.headers.get("access-control-allow-origin")).toBeNull();
  expect((await server.claw.bus.read({})).events).toEqual([]); // nothing was published
});
