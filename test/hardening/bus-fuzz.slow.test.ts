/**
 * Fuzz over the bus operations' arguments (out, read, list_buses, trim_bus, subscribe over
 * WebSocket): thousands of generated calls, well-formed and not, through the dispatcher and over
 * HTTP POST /do. Every answer is a result that keeps the bus's invariants or an error with a known
 * client code — never `internal`, a 5xx or a stack — and nothing acknowledged is lost: every
 * acknowledged `out` reads back at its seq with its payload, byte for byte.
 */
import { afterAll, describe, expect, it } from "vitest";
import { ERROR_TABLE } from "../../src/index.js";
import { wsClient } from "../adapters/clients.js";
import { memClaw } from "../helpers/claw.js";
import { pool, rng } from "../helpers/fuzz.js";
import { startServer } from "../helpers/server.js";

const STACK = /\n\s+at |^\s+at .+:\d+:\d+\)?$| {4}at /m;
const LIMIT = 2048;
const BUSES = ["f1", "f.2", "f:3", "F-4_x"] as const;

function generator(seed: number) {
  const r = rng(seed);
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const chance = (p: number) => r() < p;
  const text = (max: number) => {
    const alphabet = ["a", " ", '"', "\\", "\n", "\0", "é", "🎉", "\u2028", "\ud800", "{", "'", "<", "%"];
    let s = "";
    for (let i = int(max); i > 0; i--) s += pick(alphabet);
    return s;
  };
  const payload = (depth: number): unknown => {
    if (depth > 8 || chance(0.35))
      return pick([0, -0.5, 1e308, 2 ** 53 + 2, null, true, false, text(12), "", "x".repeat(int(LIMIT * 1.5))]);
    if (chance(0.03)) {
      let deep: unknown = 1; // deep nesting, still a small payload (the raw-text test goes far deeper)
      for (let i = int(1000); i > 0; i--) deep = [deep];
      return deep;
    }
    if (chance(0.5)) return Array.from({ length: int(4) }, () => payload(depth + 1));
    const o: Record<string, unknown> = {};
    for (let i = int(4); i > 0; i--) o[text(6)] = payload(depth + 1);
    return o;
  };
  const badBus = () => pick(["", " ", "a b", "x".repeat(201), "ü", "../etc", "a\0b", 5, null, {}, ["f1"]]);
  const busArg = () => (chance(0.85) ? pick(BUSES) : badBus());
  const seqArg = () =>
    chance(0.8)
      ? int(60)
      : pick([-1, 1.5, 2 ** 53, 2 ** 63, Number.MAX_SAFE_INTEGER, "3", null, Number.NaN, Number.POSITIVE_INFINITY, -0]);
  return (): { op: string; args: unknown } => {
    const k = r();
    if (k < 0.5) {
      const args: Record<string, unknown> = { bus: busArg(), payload: payload(0) };
      if (chance(0.05)) delete args.payload;
      if (chance(0.03)) args.extra = 1;
      return { op: "out", args };
    }
    if (k < 0.8) {
      const args: Record<string, unknown> = { bus: busArg(), after: seqArg() };
      if (chance(0.5)) args.limit = chance(0.8) ? int(1000) + 1 : pick([0, -3, 1001, 1e9, 2.5, "10"]);
      if (chance(0.15)) args.waitMs = chance(0.7) ? int(30) : pick([-1, 600_001, 1.5, "5"]);
      return { op: "read", args };
    }
    if (k < 0.9) return { op: "list_buses", args: chance(0.9) ? {} : pick([{ x: 1 }, [], "a", 5]) };
    const args: Record<string, unknown> = { bus: busArg() };
    if (chance(0.6)) args.keepLast = chance(0.8) ? int(80) + 40 : pick([-1, 1.5, "2", 2 ** 60]);
    if (chance(0.3)) args.beforeTs = pick([0, 1, -5, "now", 1e15]);
    return { op: "trim_bus", args };
  };
}

/** What the fuzz expects the bus to hold: every acknowledged payload's JSON text by bus and seq. */
class Ledger {
  readonly acked = new Map<string, Map<number, string>>();
  note(bus: string, seq: number, payload: unknown): void {
    const of = this.acked.get(bus) ?? new Map<number, string>();
    this.acked.set(bus, of);
    expect(of.has(seq), `seq ${seq} on ${bus} acknowledged twice`).toBe(false);
    of.set(seq, JSON.stringify(payload));
  }
}

const CLIENT_CODES = ["invalid_args", "payload_too_large", "unknown_op", "invalid_request"];

function checkAnswer(res: { ok: boolean; result?: any; error?: any }, call: { op: string; args: any }, ledger: Ledger) {
  const ctx = `${call.op} ${JSON.stringify(call.args)?.slice(0, 200)}`;
  if (!res.ok) {
    expect(Object.keys(ERROR_TABLE), ctx).toContain(res.error.code);
    expect(CLIENT_CODES, ctx).toContain(res.error.code);
    expect(res.error.message, ctx).not.toMatch(STACK);
    return;
  }
  const result = res.result;
  if (call.op === "out") {
    expect(result.bus, ctx).toBe(call.args.bus);
    expect(Buffer.byteLength(JSON.stringify(call.args.payload))).toBeLessThanOrEqual(LIMIT);
    ledger.note(result.bus, result.seq, call.args.payload);
  } else if (call.op === "read") {
    let prev = call.args.after;
    for (const e of result.events) {
      expect(e.seq, ctx).toBeGreaterThan(prev);
      prev = e.seq;
    }
    if (result.events.length > 0) expect(result.lastSeq, ctx).toBeGreaterThanOrEqual(prev);
    expect(result.next, ctx).toBe(result.events.length > 0 ? prev : Math.max(call.args.after, result.next));
  } else if (call.op === "trim_bus") expect(result.deleted, ctx).toBeGreaterThanOrEqual(0);
  else if (call.op === "list_buses")
    for (const b of result.buses) expect(b.firstSeq).toBeLessThanOrEqual(b.lastSeq + 1);
}

/** Every acknowledged event still stored reads back at its seq, byte for byte; seqs are contiguous. */
async function checkNothingLost(
  read: (bus: string, after: number) => Promise<{ events: any[]; lastSeq: number; next: number }>,
  ledger: Ledger,
) {
  for (const [bus, acked] of ledger.acked) {
    const maxSeq = Math.max(...acked.keys());
    expect([...acked.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: acked.size }, (_, i) => i + 1));
    const seen: any[] = [];
    for (let after = 0; ; ) {
      const page = await read(bus, after);
      seen.push(...page.events);
      if (page.events.length === 0 || page.next >= page.lastSeq) break;
      after = page.next;
    }
    // Trimming drops a prefix: what remains is a contiguous tail ending at the last acked seq.
    expect(seen.at(-1)?.seq ?? maxSeq, bus).toBe(maxSeq);
    seen.forEach((e, i) => {
      expect(e.seq).toBe(seen[0].seq + i);
      expect(JSON.stringify(e.payload), `${bus} seq ${e.seq}`).toBe(acked.get(e.seq));
    });
  }
}

const toClean: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of toClean) await c();
});

describe("fuzz: bus arguments", () => {
  it("3 000 calls through the dispatcher, 8 at a time: known client errors only, nothing acknowledged lost", async () => {
    const claw = memClaw({ limits: { maxPayloadBytes: LIMIT } });
    toClean.push(() => claw.close());
    const next = generator(9090);
    const calls = Array.from({ length: 3000 }, next);
    const ledger = new Ledger();
    const codes = new Map<string, number>();
    await pool(calls, 8, async (call, i) => {
      const res = await claw.do({ op: call.op, args: call.args, id: i });
      checkAnswer(res, call, ledger);
      const key = res.ok ? `${call.op} ok` : res.error.code;
      codes.set(key, (codes.get(key) ?? 0) + 1);
    });
    // The fuzz reaches real work, not only refusals.
    expect(codes.get("out ok")).toBeGreaterThan(500);
    expect(codes.get("read ok")).toBeGreaterThan(300);
    expect(codes.get("invalid_args")).toBeGreaterThan(300);
    expect(codes.get("payload_too_large")).toBeGreaterThan(20);
    await checkNothingLost(async (bus, after) => claw.bus.read({ bus, after, limit: 1000 }), ledger);
  }, 120_000);

  it("2 000 calls over HTTP /do and WebSocket frames: no 5xx, no stack, the server keeps serving", async () => {
    const server = await startServer(memClaw({ limits: { maxPayloadBytes: LIMIT } }));
    toClean.push(() => server.close());
    const next = generator(31337);
    const ledger = new Ledger();
    await pool(Array.from({ length: 1000 }, next), 6, async (call, i) => {
      const { status, body } = await server.post({ op: call.op, args: call.args, id: i });
      expect(JSON.stringify(body)).not.toMatch(STACK);
      expect(status, JSON.stringify(call).slice(0, 200)).toBeLessThan(500);
      checkAnswer(body, call, ledger);
    });
    const ws = await wsClient(server);
    try {
      await pool(Array.from({ length: 1000 }, next), 6, async (call) => {
        const res = await ws.request(call.op, call.args);
        expect(JSON.stringify(res)).not.toMatch(STACK);
        checkAnswer(res, call, ledger);
      });
      // Subscriptions with fuzzed arguments on the same connection: answered, never fatal.
      for (let i = 0; i < 50; i++) {
        const { args } = next();
        const res = await ws.request("subscribe", { bus: (args as any).bus, after: (args as any).after });
        expect(JSON.stringify(res)).not.toMatch(STACK);
        if (!res.ok) expect(CLIENT_CODES).toContain(res.error.code);
      }
    } finally {
      await ws.close();
    }
    // Nesting far past what a recursive parser or serialiser survives, as raw text on both transports.
    const deep = `{"op":"out","args":{"bus":"deep","payload":${"[".repeat(200_000)}1${"]".repeat(200_000)}},"id":"deep"}`;
    const { status, body } = await server.post(deep);
    expect(status).toBeLessThan(500);
    expect(JSON.stringify(body)).not.toMatch(STACK);
    if (!body.ok) expect(CLIENT_CODES).toContain(body.error.code);
    const ws2 = await wsClient(server);
    ws2.raw(deep);
    await ws2.until((frames) => frames.some((f) => f.id === "deep" || f.id === null));
    expect(JSON.stringify(ws2.frames)).not.toMatch(STACK);
    expect((await ws2.request("out", { bus: "after", payload: 0 })).ok).toBe(true);
    await ws2.close();
    await checkNothingLost(async (bus, after) => (await server.op("read", { bus, after, limit: 1000 })).result, ledger);
    expect((await server.op("out", { bus: "after", payload: 1 })).ok).toBe(true);
  }, 120_000);
});
