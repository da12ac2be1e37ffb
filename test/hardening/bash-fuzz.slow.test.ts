/**
 * Fuzz over bash arguments (templates, sizes, env, stdin, cwd, timeouts, event buses,
 * keepBackground): thousands of generated calls through the real dispatcher and over HTTP
 * POST /do on a real server. Every answer is a result that matches the schema or an error with
 * a known code, never `internal`, never a 5xx, never a stack; the server keeps serving and no
 * call is left running.
 */
import { afterAll, describe, expect, it } from "vitest";
import { ERROR_TABLE } from "../../src/index.js";
import { memClaw, tempDir } from "../helpers/claw.js";
import { pool, rng } from "../helpers/fuzz.js";
import { startServer } from "../helpers/server.js";

const STACK = /\n\s+at |^\s+at .+:\d+:\d+\)?$| {4}at /m;
const LIMIT = 4096;
const DIR = tempDir("tsclaw-fuzz-");

function generator(seed: number) {
  const r = rng(seed);
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const chance = (p: number) => r() < p;
  const text = (max: number) => {
    const alphabet = ["a", "Z", " ", '"', "\\", "\n", "\r", "\t", "\0", "é", "🎉", "\u2028", "{payload}", "'", "$"];
    let s = "";
    for (let i = int(max); i > 0; i--) s += pick(alphabet);
    return s;
  };
  let nodes = 0; // a budget per template: three children per level would otherwise explode
  const template = (depth: number): unknown => {
    if (depth === 0) nodes = 0;
    if (depth > 70 || nodes++ > 200 || chance(0.3))
      return pick(["{payload}", "x{payload}y", 1, null, true, text(8), "{payload}"]);
    if (chance(0.1)) return Array.from({ length: int(3000) }, () => "{payload}");
    if (chance(0.05)) return "z".repeat(int(3 * LIMIT));
    // A chain deeper than the 64-level limit now and then, most often a small tree.
    if (chance(0.1)) return [template(depth + 1)];
    if (chance(0.5)) return Array.from({ length: int(3) + 1 }, () => template(depth + (chance(0.9) ? 1 : 30)));
    const o: Record<string, unknown> = {};
    for (let i = int(3) + 1; i > 0; i--) o[text(5)] = template(depth + (chance(0.9) ? 1 : 30));
    return o;
  };
  const scripts = [
    "echo hi",
    "exit 3",
    "cat",
    "seq 1 200",
    "seq 1 70 >&2",
    "printf 'no newline'",
    "head -c 20000 /dev/zero | tr '\\0' q",
    "printf 'a\\r\\nb\\r\\n'",
    'echo "$FUZZ_VAR" | head -c 100',
    "sleep 0.4",
    "setsid sleep 0.4 & echo bg",
    "kill -9 $$",
    "printf '\\xff\\xfe bad utf8\\n'",
  ];
  const spec = () => {
    const s: Record<string, unknown> = { template: template(0) };
    if (chance(0.3)) s.bus = pick(["fuzz", "fuzz.2", "", "bad bus!", "x".repeat(300), 5]);
    if (chance(0.05)) s.extra = 1;
    return s;
  };
  return (): Record<string, unknown> => {
    const args: Record<string, unknown> = {};
    args.script = chance(0.05) ? pick([5, null, "", `echo ${text(20)}`, "x".repeat(200_000)]) : pick(scripts);
    if (chance(0.7)) args.timeout = pick([0.3, "300ms", "1s", 0, -1, "soon", "1h", 1e12, "0.2s", "2", Number.NaN]);
    else args.timeout = "1s";
    if (chance(0.3)) {
      const env: Record<string, unknown> = { FUZZ_VAR: text(30) };
      if (chance(0.2)) env[pick(["", "A=B", "N\0UL", "OK_NAME", "9digit"])] = text(5);
      if (chance(0.1)) env.BIG = "b".repeat(int(300_000));
      if (chance(0.05)) env.NUM = 5;
      args.env = env;
    }
    if (chance(0.3)) args.stdin = chance(0.1) ? "s".repeat(int(500_000)) : text(50);
    if (chance(0.2)) args.cwd = pick([DIR, "/nonexistent/dir", "", "/tmp\0x", "/etc/passwd", 7]);
    for (const k of ["stdoutLineEvent", "stderrLineEvent", "exitEvent", "timeoutEvent"])
      if (chance(0.35)) args[k] = spec();
    if (chance(0.1)) args.keepBackground = pick([true, false, "yes"]);
    if (chance(0.03)) args.unknownField = true;
    return args;
  };
}

function checkError(error: { code: string; message: string; retryable: boolean }, ctx: string): void {
  expect(Object.keys(ERROR_TABLE), ctx).toContain(error.code);
  expect(["invalid_args", "too_many_requests"], ctx).toContain(error.code);
  expect(error.message, ctx).not.toMatch(STACK);
}

function checkResult(result: Record<string, unknown>, ctx: string): void {
  expect(typeof result.stdout, ctx).toBe("string");
  expect(Number.isInteger(result.exitCode), ctx).toBe(true);
  expect(["bwrap", "none"], ctx).toContain(result.sandbox);
}

const limits = { maxPayloadBytes: LIMIT, maxEventsPerCall: 50, bashKillGraceMs: 100, bashOutputBytes: 8192 };
const toClean: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of toClean) await c();
});

describe("fuzz: bash arguments", () => {
  it("1 500 calls through the dispatcher: a valid result or a known client error", async () => {
    const claw = memClaw({ limits });
    toClean.push(() => claw.close());
    const next = generator(424242);
    const cases = Array.from({ length: 1500 }, next);
    const codes = new Map<string, number>();
    await pool(cases, 6, async (args, i) => {
      const res = await claw.do({ op: "bash", args, id: i });
      const ctx = `case ${i}: ${JSON.stringify(args).slice(0, 300)}`;
      if (res.ok) checkResult(res.result as Record<string, unknown>, ctx);
      else checkError(res.error, ctx);
      const key = res.ok ? "ok" : res.error.code;
      codes.set(key, (codes.get(key) ?? 0) + 1);
    });
    expect(codes.get("ok")).toBeGreaterThan(200); // the fuzz reaches real runs, not only refusals
    expect(codes.get("invalid_args")).toBeGreaterThan(200);
    for (const e of (await claw.bus.read({ bus: "fuzz", limit: 1000 })).events)
      expect(Buffer.byteLength(JSON.stringify(e.payload))).toBeLessThanOrEqual(LIMIT);
    expect(claw.services.bash.running).toBe(0);
  }, 240_000);

  it("1 000 calls over HTTP /do (sandbox auto): no 5xx, no stack, the server keeps serving", async () => {
    const server = await startServer(memClaw({ limits, sandbox: "auto" }));
    toClean.push(() => server.close());
    const next = generator(777);
    const cases = Array.from({ length: 1000 }, next);
    await pool(cases, 6, async (args, i) => {
      const { status, body } = await server.post({ op: "bash", args, id: i });
      const ctx = `case ${i} (${status}): ${JSON.stringify(args).slice(0, 300)}`;
      expect(JSON.stringify(body), ctx).not.toMatch(STACK);
      expect(
        status < 500 || (status === 503 && ["storage_unavailable", "shutting_down"].includes(body.error?.code)),
        ctx,
      ).toBe(true);
      if (body.ok) checkResult(body.result, ctx);
      else checkError(body.error, ctx);
    });
    expect((await server.op("out", { bus: "after", payload: 1 })).ok).toBe(true);
    expect(server.claw.services.bash.running).toBe(0);
  }, 240_000);
});
