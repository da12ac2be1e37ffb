/**
 * A 2025-era HTTP call whose client dropped its POST stream and did not resume it within the
 * grace is cancelled: its bash is killed (its --max-bash slot freed) instead of running to its
 * timeout. A client that resumes (GET with Last-Event-ID) keeps its call running.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { memClaw } from "../helpers/claw.js";
import { uniqueSleep, waitArgGone, waitArgPid } from "../helpers/process.js";
import { startServer, type TestServer } from "../helpers/server.js";

const TOKEN = "dropped-token";
const GRACE_MS = 1000;
let server: TestServer;
beforeAll(async () => {
  server = await startServer(memClaw(), { token: TOKEN, mcp: { resumeGraceMs: GRACE_MS } });
});
afterAll(async () => server?.close());

const headers = (session?: string): Record<string, string> => ({
  authorization: `Bearer ${TOKEN}`,
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  ...(session ? { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" } : {}),
});

async function session(): Promise<string> {
  const init = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: headers(),
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "drop", version: "1" } },
    }),
  });
  const id = init.headers.get("mcp-session-id")!;
  await init.text();
  const note = { jsonrpc: "2.0", method: "notifications/initialized" };
  await (await fetch(`${server.url}/mcp`, { method: "POST", headers: headers(id), body: JSON.stringify(note) })).text();
  return id;
}

/** Starts a bash `sleep` over MCP, reads the stream's first event id, then drops the stream. */
async function dropSleep(sid: string, marker: string): Promise<{ lastEventId: string }> {
  const abort = new AbortController();
  const call = {
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    params: { name: "bash", arguments: { script: `sleep ${marker}` } },
  };
  const res = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: headers(sid),
    body: JSON.stringify(call),
    signal: abort.signal,
  });
  const reader = res.body!.getReader();
  const first = new TextDecoder().decode((await reader.read()).value); // the priming event
  const lastEventId = /^id: *(.+)$/m.exec(first)![1]!.trim();
  expect(await waitArgPid(marker)).toBeGreaterThan(0);
  abort.abort();
  return { lastEventId };
}

describe("a 2025-era call whose client dropped its POST stream", () => {
  it("is cancelled after the grace without a resume: its bash is killed", async () => {
    const marker = uniqueSleep();
    await dropSleep(await session(), marker);
    expect(await waitArgGone(marker, 10_000)).toBe(true);
  }, 30_000);

  it("keeps running when the client resumes the stream within the grace", async () => {
    const marker = uniqueSleep();
    const sid = await session();
    const { lastEventId } = await dropSleep(sid, marker);
    const resume = new AbortController();
    // 409 until the server has seen the drop (the stream is still its own): retry, as a client does.
    const res = await vi.waitFor(async () => {
      const r = await fetch(`${server.url}/mcp`, {
        method: "GET",
        headers: { ...headers(sid), "last-event-id": lastEventId },
        signal: resume.signal,
      });
      if (r.status !== 200) throw new Error(`resume answered ${r.status}`);
      return r;
    });
    expect(res.status).toBe(200);
    expect(await waitArgGone(marker, 3 * GRACE_MS)).toBe(false); // still running past the grace
    resume.abort();
    await fetch(`${server.url}/mcp`, { method: "DELETE", headers: headers(sid) }); // ends the session and its call
    expect(await waitArgGone(marker, 10_000)).toBe(true);
  }, 30_000);
});
