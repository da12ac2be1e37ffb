/**
 * A payload nested thousands deep is refused by `out` (invalid_args) on every transport, so no
 * bus holds an event that JSON.stringify cannot write back: before, `out` stored one 4 100 deep
 * and an MCP `read` of its bus never answered (the stream ended on a stack overflow).
 */
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_PAYLOAD_DEPTH } from "../../src/bus/bus-service.js";
import { memClaw } from "../helpers/claw.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { envelopeOf, httpMcpClient } from "./clients.js";

const TOKEN = "deep-token";

/** Arrays and objects alternating, `n` levels deep. */
function nested(n: number): unknown {
  let v: unknown = "bottom";
  for (let i = 0; i < n; i++) v = i % 2 ? { a: v } : [v];
  return v;
}

/** The JSON text of {@link nested}`(n)`, built without JSON.stringify (which overflows near 4 000 levels). */
function nestedText(n: number): string {
  const open: string[] = [];
  for (let i = n - 1; i >= 0; i--) open.push(i % 2 ? '{"a":' : "[");
  const close: string[] = [];
  for (let i = 0; i < n; i++) close.push(i % 2 ? "}" : "]");
  return `${open.join("")}"bottom"${close.join("")}`;
}

let server: TestServer;
beforeAll(async () => {
  server = await startServer(memClaw(), { token: TOKEN });
});
afterAll(async () => server?.close());

describe("payload depth", () => {
  it("out refuses a payload deeper than the limit over /do, with invalid_args naming the limit", async () => {
    for (const depth of [MAX_PAYLOAD_DEPTH + 1, 4_100, 200_000]) {
      const r = await server.post(`{"op":"out","args":{"bus":"deep-do","payload":${nestedText(depth)}}}`);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe("invalid_args");
      expect(r.body.error.message).toContain(`${MAX_PAYLOAD_DEPTH} levels`);
      expect(r.body.error.details.limit).toBe(MAX_PAYLOAD_DEPTH);
    }
    expect(JSON.parse(nestedText(7))).toEqual(nested(7));
    const ok = await server.post({ op: "out", args: { bus: "deep-do", payload: nested(MAX_PAYLOAD_DEPTH) } });
    expect(ok.status).toBe(200);
    expect((await server.op("read", { bus: "deep-do" })).result.events).toHaveLength(1);
  });

  it("MCP out refuses it too, and read of a bus at the limit answers in both eras", async () => {
    const v1 = await httpMcpClient(server.url, TOKEN);
    const refused = envelopeOf(
      (await v1.callTool({ name: "out", arguments: { bus: "deep-mcp", payload: nested(4_100) } })) as never,
    );
    expect(refused.ok).toBe(false);
    expect(refused.error.code).toBe("invalid_args");
    const stored = envelopeOf(
      (await v1.callTool({ name: "out", arguments: { bus: "deep-mcp", payload: nested(MAX_PAYLOAD_DEPTH) } })) as never,
    );
    expect(stored.ok).toBe(true);
    const read = envelopeOf((await v1.callTool({ name: "read", arguments: { bus: "deep-mcp" } })) as never);
    expect(read.result.events.map((e: { payload: unknown }) => e.payload)).toEqual([nested(MAX_PAYLOAD_DEPTH)]);
    await v1.close();

    const v2 = new ClientV2({ name: "deep", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await v2.connect(
      new HttpV2(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
    );
    const modern = await v2.callTool({ name: "read", arguments: { bus: "deep-mcp" } });
    expect(modern.isError).toBeFalsy();
    expect((modern.structuredContent as { events: { payload: unknown }[] }).events[0]!.payload).toEqual(
      nested(MAX_PAYLOAD_DEPTH),
    );
    const modernRefused = await v2.callTool({ name: "out", arguments: { bus: "deep-mcp", payload: nested(4_100) } });
    expect(modernRefused.isError).toBe(true);
    expect(JSON.parse((modernRefused.content[0] as { text: string }).text).error.code).toBe("invalid_args");
    await v2.close();
  });
});
