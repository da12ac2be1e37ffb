/**
 * One table of cases (test/parity-cases.ts) through the typed API, POST /do, WebSocket, stdio and
 * MCP (the SDK's client over Streamable HTTP): identical envelopes, modulo times, generated ids
 * and the server URL.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Claw, ClawError } from "../src/index.js";
import { OPS } from "../src/ops/index.js";
import { type StreamClient, stdioClient, wsClient } from "./adapters/clients.js";
import { type FakeResponses, startFakeResponses } from "./fixtures/fake-responses.js";
import { memClaw } from "./helpers/claw.js";
import { startServer, type TestServer } from "./helpers/server.js";
import { WAIT } from "./helpers/wait.js";
import { envelopeOf, httpMcpClient } from "./mcp/clients.js";
import { caseName, type Earlier, normalize, PARITY_CASES } from "./parity-cases.js";

type Envelope = { ok: boolean; result?: any; error?: any };
interface Transport {
  call(op: string, args: unknown): Promise<Envelope>;
  /** Event frames pushed so far (streaming transports). */
  events(): any[];
  close(): Promise<void>;
}

const TRANSPORTS = ["api", "http", "ws", "stdio", "mcp"] as const;
type TransportName = (typeof TRANSPORTS)[number];

function strip(e: any): Envelope {
  return e.ok ? { ok: true, result: e.result } : { ok: false, error: e.error };
}

async function open(name: TransportName, fake: FakeResponses): Promise<Transport> {
  // The same URL shape everywhere, so doc and CLAW_URL normalise alike.
  const claw: Claw = memClaw({
    baseURL: fake.url,
    url: "http://127.0.0.1:1",
    modelRetry: { maxRetries: 1, baseDelayMs: 5, maxDelayMs: 20 },
  } as never);
  if (name === "api") {
    return {
      call: (op, args) =>
        (claw.call as (op: string, args: unknown) => Promise<unknown>)(op, args).then(
          (result) => ({ ok: true, result }),
          (err) => {
            if (!(err instanceof ClawError)) throw err;
            return { ok: false, error: err.toWire() };
          },
        ),
      events: () => [],
      close: () => claw.close(),
    };
  }
  if (name === "stdio") {
    const s = stdioClient(claw);
    return {
      call: async (op, args) => strip(await s.request(op, args)),
      events: () => s.frames.filter((f) => f.event),
      close: async () => {
        await s.close();
        await claw.close();
      },
    };
  }
  const server: TestServer = await startServer(claw);
  if (name === "http") {
    return {
      call: async (op, args) => strip((await server.post({ op, args, id: 1 })).body),
      events: () => [],
      close: () => server.close(),
    };
  }
  if (name === "mcp") {
    const mcp = await httpMcpClient(server.url, server.policy.token);
    return {
      // Streaming operations are not tools: the SDK client rejects the call (a protocol error).
      call: (op, args) =>
        mcp.callTool({ name: op, arguments: (args ?? {}) as Record<string, unknown> }).then(
          (r) => envelopeOf(r as never),
          (err: Error) => ({ ok: false, error: { code: "not_a_tool", message: err.message } }),
        ),
      events: () => [],
      close: async () => {
        await mcp.close();
        await server.close();
      },
    };
  }
  const c: StreamClient = await wsClient(server);
  return {
    call: async (op, args) => strip(await c.request(op, args)),
    events: () => c.frames.filter((f) => f.event),
    close: async () => {
      await c.close();
      await server.close();
    },
  };
}

let fake: FakeResponses;
const results = {} as Record<TransportName, Envelope[]>;
const events = {} as Record<TransportName, any[]>;

beforeAll(async () => {
  fake = await startFakeResponses();
  await Promise.all(
    TRANSPORTS.map(async (name) => {
      const t = await open(name, fake);
      const earlier: Earlier = {};
      const out: Envelope[] = [];
      try {
        for (const c of PARITY_CASES) {
          const args = typeof c.args === "function" ? c.args(earlier) : c.args;
          const env = await t.call(c.op, args);
          if (env.ok) earlier[caseName(c)] = env.result;
          out.push(env);
        }
        // The pushing transports: the subscription's event (bus "p" holds one event when it subscribes).
        if (name === "ws" || name === "stdio") await vi.waitFor(() => expect(t.events()).not.toEqual([]), WAIT);
        events[name] = t.events();
      } finally {
        await t.close();
      }
      results[name] = out;
    }),
  );
}, 120_000);

afterAll(async () => {
  await fake?.close();
});

describe("parity: typed API, /do, WebSocket, stdio and MCP give identical results", () => {
  PARITY_CASES.forEach((c, i) => {
    it(`${caseName(c)} → ${c.expect}`, () => {
      const outcome = (e: Envelope) => (e.ok ? "ok" : e.error.code);
      if (c.streaming) {
        for (const t of ["api", "http"] as const) expect(outcome(results[t][i]!)).toBe("unsupported_on_transport");
        expect(outcome(results.ws[i]!)).toBe(c.expect);
        expect(normalize(results.stdio[i])).toEqual(normalize(results.ws[i]));
        expect(outcome(results.mcp[i]!)).toBe("not_a_tool");
        return;
      }
      expect(outcome(results.api[i]!), JSON.stringify(results.api[i]).slice(0, 500)).toBe(c.expect);
      const reference = normalize(results.api[i]);
      for (const t of ["http", "ws", "stdio"] as const) expect(normalize(results[t][i]), t).toEqual(reference);
      // MCP has no unknown operations, only unknown tools: tools/call answers with a protocol error.
      if (c.expect === "unknown_op") expect(outcome(results.mcp[i]!)).toBe("not_a_tool");
      else expect(normalize(results.mcp[i]), "mcp").toEqual(reference);
    });
  });

  it("covers every registered operation", () => {
    const covered = new Set(PARITY_CASES.map((c) => c.op));
    expect(OPS.map((o) => o.name).filter((n) => !covered.has(n))).toEqual([]);
  });

  it("subscription event frames are identical over WebSocket and stdio", () => {
    expect(events.ws.length).toBeGreaterThan(0);
    expect(normalize(events.stdio)).toEqual(normalize(events.ws));
  });
});
