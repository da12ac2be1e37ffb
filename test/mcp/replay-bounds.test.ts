/**
 * What MCP keeps per client is bounded: the replay store in bytes (per session and over every
 * session of a mount), and a 2025-era session's initialize params (kept for its lifetime).
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryEventStore, ReplayBudget } from "../../adapters/mcp/event-store.js";
import { memClaw } from "../helpers/claw.js";
import { startServer, type TestServer } from "../helpers/server.js";

const MB = 1024 * 1024;
const big = (i: number): JSONRPCMessage => ({ jsonrpc: "2.0", id: i, result: { text: "x".repeat(MB) } });

async function replayedAfter(store: MemoryEventStore, id: string): Promise<number> {
  let n = 0;
  await store.replayEventsAfter(id, { send: async () => void n++ });
  return n;
}

describe("the replay store", () => {
  it("keeps at most its byte bound of one session's events", async () => {
    const store = new MemoryEventStore(1000, 10_000, 4 * MB);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await store.storeEvent("s", big(i)));
    expect(store.bytes).toBeLessThanOrEqual(4 * MB);
    expect(await replayedAfter(store, ids[0]!)).toBe(3); // the newest three (each a little over 1 MB)
    store.close();
  });

  it("keeps at most the shared bound over every session", async () => {
    const budget = new ReplayBudget(6 * MB);
    const stores = Array.from({ length: 5 }, () => new MemoryEventStore(1000, 10_000, 4 * MB, budget));
    for (const [n, store] of stores.entries()) for (let i = 0; i < 4; i++) await store.storeEvent(`s${n}`, big(i));
    expect(budget.used).toBeLessThanOrEqual(6 * MB);
    expect(stores.reduce((sum, s) => sum + s.bytes, 0)).toBe(budget.used);
    for (const s of stores) s.close();
    expect(budget.used).toBe(0);
  });
});

describe("2025-era initialize", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(memClaw(), { token: "t" });
  });
  afterAll(async () => server?.close());

  it("refuses initialize params over the cap: no session keeps them", async () => {
    const capabilities = { experimental: { junk: Array.from({ length: 200_000 }, () => ({})) } };
    const res = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: "Bearer t",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "big", version: "1" } },
      }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32602);
    expect(res.headers.get("mcp-session-id")).toBeNull();
  });
});
