/**
 * SSE polling on /mcp: sessions of 2025-11-25 get a priming event (id, empty data, retry) on
 * every POST stream, whatever a later request's MCP-Protocol-Version header says; long calls
 * have their stream closed every pollAfterMs and the official client reconnects with
 * Last-Event-ID and gets every progress report and the answer; an answer that came while the
 * client was away ends the resumed stream; sessions of older revisions get neither.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memClaw } from "../helpers/claw.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { envelopeOf } from "./clients.js";

const TOKEN = "mcp-polling-token";
const auth = { authorization: `Bearer ${TOKEN}` };

let polled: TestServer;
let unpolled: TestServer;
beforeAll(async () => {
  polled = await startServer(memClaw(), {
    token: TOKEN,
    mcp: { pollAfterMs: 150, retryIntervalMs: 50, testTools: true },
  });
  unpolled = await startServer(memClaw(), { token: TOKEN, mcp: { pollAfterMs: 0, retryIntervalMs: 50 } });
});
afterAll(async () => {
  await polled?.close();
  await unpolled?.close();
});

interface SseEvent {
  id?: string;
  retry?: number;
  data: string;
}

/** Every SSE event of a body, to its end. */
async function eventsOf(res: Response): Promise<SseEvent[]> {
  const text = await res.text();
  return text
    .split("\n\n")
    .filter((block) => /^(id|data|retry):/m.test(block))
    .map((block) => {
      const retry = /^retry: (\d+)$/m.exec(block)?.[1];
      return {
        id: /^id: (.*)$/m.exec(block)?.[1],
        ...(retry ? { retry: Number(retry) } : {}),
        data: [...block.matchAll(/^data: ?(.*)$/gm)].map((m) => m[1]).join("\n"),
      };
    });
}

function post(url: string, headers: Record<string, string>, body: unknown) {
  return fetch(`${url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...auth, ...headers },
    body: JSON.stringify(body),
  });
}

/** A raw session that negotiated `version`; returns the headers of its later requests. */
async function rawSession(url: string, version: string): Promise<Record<string, string>> {
  const init = await post(
    url,
    {},
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    },
  );
  const answer = JSON.parse((await eventsOf(init)).at(-1)!.data);
  expect(answer.result.protocolVersion).toBe(version);
  const headers = { "mcp-session-id": init.headers.get("mcp-session-id")!, "mcp-protocol-version": version };
  await (await post(url, headers, { jsonrpc: "2.0", method: "notifications/initialized" })).text();
  return headers;
}

/** The official client, recording the requests it makes. */
async function recordingClient(url: string) {
  const requests: { method: string; lastEventId: string | null }[] = [];
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: auth },
    fetch: (input, init) => {
      const headers = new Headers(init?.headers);
      requests.push({ method: init?.method ?? "GET", lastEventId: headers.get("last-event-id") });
      return fetch(input, init);
    },
  });
  const client = new Client({ name: "tsclaw-polling-test", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  return { client, resumes: () => requests.filter((r) => r.method === "GET" && r.lastEventId !== null).length };
}

const LINES = "for i in 1 2 3 4 5 6; do echo line$i; sleep 0.12; done";

async function longBash(client: Client) {
  const reports: string[] = [];
  const r = await client.callTool(
    { name: "bash", arguments: { script: LINES, stdoutLineEvent: { template: { line: "{payload}" }, bus: "poll" } } },
    CallToolResultSchema,
    { onprogress: (p) => p.message?.includes("line") && reports.push(p.message) },
  );
  return { result: envelopeOf(r as never).result, reports };
}

describe("/mcp SSE polling", () => {
  it("closes a long call's stream and the official client resumes it with every event and the answer", async () => {
    const { client, resumes } = await recordingClient(polled.url);
    const { result, reports } = await longBash(client);
    expect(result).toMatchObject({ stdout: "line1\nline2\nline3\nline4\nline5\nline6\n", exitCode: 0 });
    expect(reports).toEqual([1, 2, 3, 4, 5, 6].map((i) => `{"line":"line${i}"}`));
    expect(resumes()).toBeGreaterThan(0);
    // the session goes on serving
    expect(envelopeOf((await client.callTool({ name: "list_buses", arguments: {} })) as never).ok).toBe(true);
    await client.close();
  });

  it("keeps a long call's stream open to the end with pollAfterMs 0", async () => {
    const { client, resumes } = await recordingClient(unpolled.url);
    const { result, reports } = await longBash(client);
    expect(result.stdout).toBe("line1\nline2\nline3\nline4\nline5\nline6\n");
    expect(reports).toHaveLength(6);
    expect(resumes()).toBe(0);
    await client.close();
  });

  it("primes a 2025-11-25 session's POST stream even when the request's header names 2025-03-26", async () => {
    const headers = await rawSession(polled.url, "2025-11-25");
    const res = await post(
      polled.url,
      { ...headers, "mcp-protocol-version": "2025-03-26" },
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "test_reconnection", arguments: {} } },
    );
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const first = await eventsOf(res);
    // the priming event, then the server closed the stream before the answer
    expect(first).toEqual([{ id: expect.any(String), retry: 50, data: "" }]);
    // The answer comes while the client is away (a deliberate absence: time passes without a
    // stream); it is replayed and ends the resumed stream.
    await new Promise((r) => setTimeout(r, 200));
    const resumed = await fetch(`${polled.url}/mcp`, {
      headers: { ...auth, ...headers, accept: "text/event-stream", "last-event-id": first[0]!.id! },
    });
    expect(resumed.status).toBe(200);
    const events = await eventsOf(resumed); // ends: the stream is closed once its answer is out
    const answer = JSON.parse(events.at(-1)!.data);
    expect(answer).toMatchObject({
      id: 1,
      result: { content: [{ type: "text", text: "Reconnection test completed successfully" }] },
    });
  });

  it("sends no priming event and never closes early in a 2025-06-18 session", async () => {
    const headers = await rawSession(polled.url, "2025-06-18");
    const res = await post(polled.url, headers, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "bash", arguments: { script: "sleep 0.4; echo done" } },
    });
    const events = await eventsOf(res);
    expect(events.every((e) => e.data !== "")).toBe(true);
    const answer = JSON.parse(events.at(-1)!.data);
    expect(answer.id).toBe(2);
    expect(answer.result.structuredContent).toMatchObject({ stdout: "done\n", exitCode: 0 });
  });

  it("lists test_reconnection only where testTools is set", async () => {
    const withProbe = await recordingClient(polled.url);
    const without = await recordingClient(unpolled.url);
    const names = async (c: Client) => (await c.listTools()).tools.map((t) => t.name);
    expect(await names(withProbe.client)).toContain("test_reconnection");
    expect(await names(without.client)).not.toContain("test_reconnection");
    const refused = await without.client.callTool({ name: "test_reconnection", arguments: {} }).catch((e) => e);
    expect(String(refused)).toContain("test_reconnection not found");
    await withProbe.client.close();
    await without.client.close();
  });
});
