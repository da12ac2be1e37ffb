/**
 * PostgreSQL hung (every postgres process stopped with SIGSTOP) and then stopped: calls answer
 * 503 `storage_unavailable` (retryable) within the configured timeouts instead of waiting for
 * ever or answering 500 `internal`, and `GET /health` answers 503 in both cases (so a load
 * balancer stops sending traffic), 200 again once the database answers.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createClaw } from "../../src/index.js";
import { createTestDatabase, type PgServer, startPgServer } from "../helpers/pg-server.js";
import { startServer, type TestServer } from "../helpers/server.js";

let pgServer: PgServer;
let server: TestServer;

beforeAll(async () => {
  pgServer = await startPgServer();
  const db = await createTestDatabase(pgServer.url);
  // Short timeouts, given the way PostgreSQL users give them: in the URL.
  const url = `${db}${db.includes("?") ? "&" : "?"}connect_timeout=1&statement_timeout=1000&query_timeout=1500`;
  server = await startServer(createClaw({ db: url, token: "pg-outage-token-0123456789", log: () => {} }));
  await server.claw.ready();
}, 60_000);

afterAll(async () => {
  signalPostgres("SIGCONT");
  await server?.close().catch(() => {});
  await pgServer?.stop().catch(() => {});
}, 60_000);

/** Sends `signal` to the postmaster and every backend it started. */
function signalPostgres(signal: "SIGSTOP" | "SIGCONT"): void {
  if (!pgServer) return;
  let postmaster: number;
  try {
    postmaster = Number(readFileSync(join(pgServer.dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
  } catch {
    return; // stopped already
  }
  const children = execFileSync("pgrep", ["-P", String(postmaster)], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
  for (const pid of [postmaster, ...children.map(Number)]) process.kill(pid, signal);
}

async function health(): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}/health`);
  return { status: res.status, body: await res.json() };
}

it("hung: out and list_tasks answer 503 storage_unavailable within the timeouts, /health 503; back to 200 after", async () => {
  expect((await health()).status).toBe(200);
  expect((await server.post({ op: "out", args: { bus: "b", payload: 1 } })).status).toBe(200);
  signalPostgres("SIGSTOP");
  try {
    const asked = Date.now();
    const h = await health();
    expect(h.status).toBe(503);
    expect(h.body.error.code).toBe("storage_unavailable");
    for (const [op, args] of [
      ["out", { bus: "b", payload: 2 }],
      ["list_tasks", {}],
    ] as const) {
      const r = await server.post({ op, args });
      expect(r.status, `${op}: ${JSON.stringify(r.body)}`).toBe(503);
      expect(r.body.error).toMatchObject({ code: "storage_unavailable", retryable: true });
    }
    console.log(`hung PostgreSQL: three calls answered 503 within ${Date.now() - asked} ms`);
  } finally {
    signalPostgres("SIGCONT");
  }
  await expect.poll(async () => (await health()).status, { timeout: 20_000, interval: 200 }).toBe(200);
  await expect
    .poll(async () => (await server.post({ op: "out", args: { bus: "b", payload: 3 } })).status, { timeout: 20_000 })
    .toBe(200);
}, 60_000);

it("stopped: out answers 503 storage_unavailable (not 500 internal), /health 503", async () => {
  await pgServer.stop();
  const r = await server.post({ op: "out", args: { bus: "b", payload: 4 } });
  expect(r.status, JSON.stringify(r.body)).toBe(503);
  expect(r.body.error).toMatchObject({ code: "storage_unavailable", retryable: true });
  const h = await health();
  expect(h.status).toBe(503);
  expect(h.body.error.code).toBe("storage_unavailable");
}, 60_000);
