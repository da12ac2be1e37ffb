/**
 * Stream tickets: a browser opens SSE or a WebSocket with a single-use, short-lived ticket
 * minted through /do, instead of the long-lived token in the URL. Real HTTP/WS server.
 */
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { StreamTickets } from "../../src/access/stream-tickets.js";
import { ClawError } from "../../src/core/errors.js";
import { memClaw } from "../helpers/claw.js";
import { startServer, type TestServer } from "../helpers/server.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function ticketOf(s: TestServer): Promise<string> {
  const r = await s.post({ op: "stream_ticket" });
  expect(r.status).toBe(200);
  expect(r.body.result.expiresInMs).toBe(60_000);
  return r.body.result.ticket;
}

/** Opens /ws at `query`; resolves with the open socket or the refusing status. */
function openWs(url: string, query: string): Promise<WebSocket | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/^http/, "ws")}/ws?${query}`);
    ws.once("open", () => resolve(ws));
    ws.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    ws.once("error", reject);
  });
}

describe("stream tickets", () => {
  it("a ticket opens one SSE stream, once; the URL never holds the token", async () => {
    server = await startServer(memClaw());
    await server.op("out", { bus: "tk", payload: { n: 1 } });
    const ticket = await ticketOf(server);
    expect(ticket).not.toContain(server.token);
    const ctl = new AbortController();
    const res = await fetch(`${server.url}/bus/tk/events?after=0&ticket=${ticket}`, { signal: ctl.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = "";
    while (!text.includes('"payload":{"n":1}')) text += new TextDecoder().decode((await reader.read()).value);
    ctl.abort();
    const again = await fetch(`${server.url}/bus/tk/events?ticket=${ticket}`);
    expect(again.status).toBe(401);
    expect(((await again.json()) as any).error.code).toBe("unauthorized");
  });

  it("a ticket opens one WebSocket, whose calls have the minter's rights; a second upgrade with it is refused", async () => {
    server = await startServer(memClaw());
    const ticket = await ticketOf(server);
    const ws = await openWs(server.url, `ticket=${ticket}`);
    if (typeof ws === "number") throw new Error(`refused with ${ws}`);
    const answer = new Promise<any>((resolve) => ws.once("message", (d) => resolve(JSON.parse(d.toString()))));
    ws.send(JSON.stringify({ op: "list_buses", id: 1 }));
    expect((await answer).ok).toBe(true);
    ws.close();
    expect(await openWs(server.url, `ticket=${ticket}`)).toBe(401);
    expect(await openWs(server.url, "ticket=clawtkt_made-up")).toBe(401);
  });

  it("a ticket is refused on /do and /mcp and used up there, and scoped tokens cannot mint one", async () => {
    server = await startServer(memClaw());
    const ticket = await ticketOf(server);
    const res = await fetch(`${server.url}/do?ticket=${ticket}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ op: "list_buses" }),
    });
    expect(res.status).toBe(401);
    // Tried once, gone: the stream it was minted for is refused too.
    const after = await fetch(`${server.url}/bus/tk/events?ticket=${ticket}`);
    expect(after.status).toBe(401);
    const mcpTicket = await ticketOf(server);
    const mcp = await fetch(`${server.url}/mcp?ticket=${mcpTicket}`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "{}",
    });
    expect(mcp.status).toBe(401);
    expect((await fetch(`${server.url}/bus/tk/events?ticket=${mcpTicket}`)).status).toBe(401);
    const scoped = server.claw.services.tokens.mint({ owner: "a test run", buses: ["thebus"] });
    const r = await server.post({ op: "stream_ticket" }, { authorization: `Bearer ${scoped.token}` });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("forbidden");
    scoped.revoke();
  });

  it("expires after its lifetime, and outstanding tickets are bounded", () => {
    let now = 1_000_000;
    const tickets = new StreamTickets({ ttlMs: 60_000, maxOutstanding: 3, now: () => now });
    const a = tickets.mint();
    expect(a.expiresAt).toBe(now + 60_000);
    const b = tickets.mint();
    now += 60_000;
    expect(tickets.consume(a.ticket)).toBe(true); // at the last millisecond
    now += 1;
    expect(tickets.consume(b.ticket)).toBe(false); // one past
    expect(tickets.size).toBe(0);
    for (let i = 0; i < 3; i++) tickets.mint();
    expect(() => tickets.mint()).toThrow(ClawError);
    now += 60_001; // the three expire, so minting works again
    expect(tickets.mint().ticket).toMatch(/^clawtkt_/);
    expect(tickets.size).toBe(1);
  });
});
