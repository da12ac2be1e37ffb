/** Every session operation through the typed API and through POST /do, with the same results. */
import { afterEach, describe, expect, it } from "vitest";
import { type Claw, ClawError } from "../../src/index.js";
import { sessionOps } from "../../src/ops/session.js";
import { answer, type FakeResponses, startFakeResponses } from "../fixtures/fake-responses.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { fakeClaw } from "./helpers.js";

type Call = (
  op: string,
  args: Record<string, unknown>,
) => Promise<{ ok: boolean; result?: any; error?: { code: string } }>;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(): Promise<{ fake: FakeResponses; claw: Claw; server: TestServer }> {
  const fake = await startFakeResponses();
  const claw = await fakeClaw(fake);
  const server = await startServer(claw);
  cleanups.push(
    () => fake.close(),
    () => server.close(),
  );
  return { fake, claw, server };
}

const apiCall =
  (claw: Claw): Call =>
  async (op, args) => {
    try {
      return { ok: true, result: await claw.call(op as never, args as never) };
    } catch (err) {
      if (err instanceof ClawError) return { ok: false, error: { code: err.code } };
      throw err;
    }
  };
const httpCall =
  (server: TestServer): Call =>
  async (op, args) => {
    const body = await server.op(op, args);
    return body.ok ? { ok: true, result: body.result } : { ok: false, error: { code: body.error.code } };
  };

/** Replaces generated ids and timestamps so two runs can be compared. */
function normalise(value: unknown): unknown {
  const ids = new Map<string, string>();
  return JSON.parse(
    JSON.stringify(value, (_k, v) => {
      if (typeof v === "number" && v > 1e12) return "<ts>";
      if (typeof v === "string") {
        v = v.replace(/\b(ses|msg|run|call|fc|resp)_[A-Za-z0-9]+/g, (id: string) => {
          if (!ids.has(id)) ids.set(id, `<${id.split("_")[0]}${ids.size}>`);
          return ids.get(id)!;
        });
        v = v.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "<date>").replace(/\b\d{13}\b/g, "<ts>");
      }
      return v;
    }),
  );
}

/** One scenario touching every session operation; returns each step's envelope. */
async function scenario(call: Call, fake: FakeResponses): Promise<unknown[]> {
  const out: unknown[] = [];
  const step = async (op: string, args: Record<string, unknown>) => {
    const r = await call(op, args);
    out.push({ op, ...r });
    return r;
  };
  fake.script(answer("hello there"), answer("Summary: greeted."));
  const ref = { sessionKey: "ops" };
  const started = await step("start_session", { sessionKey: "ops", name: "Ops", bus: "opsbus" });
  expect(started.ok).toBe(true);
  expect((await step("start_session", { sessionKey: "ops" })).result.sessionId).toBe(started.result.sessionId);
  expect((await step("prompt", { ...ref, message: "hi" })).result).toMatchObject({
    status: "completed",
    text: "hello there",
  });
  await step("steer", { sessionId: started.result.sessionId, message: "s" });
  await step("follow_up", { session: "ops", message: "f" });
  expect((await step("get_state", ref)).result).toMatchObject({
    isRunning: false,
    messageCount: 2,
    pending: { steering: 1, followUp: 1, prompts: 0 },
    currentRunId: null,
  });
  expect((await step("clear_queue", ref)).result).toEqual({ cleared: 2 });
  const page = await step("get_messages", { ...ref, after: 0, limit: 1 });
  expect(page.result).toMatchObject({ next: 1, hasMore: true });
  expect((await step("get_messages", { ...ref, after: page.result.next })).result).toMatchObject({
    next: 2,
    hasMore: false,
  });
  expect((await step("list_sessions", {})).result.sessions).toHaveLength(1);
  expect((await step("set_model", { ...ref, model: "other/model", provider: "openrouter" })).result.model).toBe(
    "other/model",
  );
  expect((await step("set_session_name", { ...ref, name: "Renamed" })).result.name).toBe("Renamed");
  const fork = await step("fork", { ...ref, newSessionKey: "ops-fork" });
  expect(fork.result).toMatchObject({ sessionKey: "ops-fork", model: "other/model" });
  expect((await step("list_sessions", { limit: 1 })).result).toMatchObject({
    sessions: [{ sessionKey: "ops-fork", isRunning: false }],
  });
  expect((await step("list_sessions", { active: true })).result).toEqual({ sessions: [], nextCursor: null });
  expect((await step("compact", ref)).result).toEqual({ summary: "Summary: greeted.", messagesCompacted: 2 });
  expect((await step("get_session_stats", ref)).result).toEqual({
    messages: 3,
    toolCalls: 0,
    runs: 1,
    tokens: { input: 20, output: 10, total: 30, cachedInput: 0, reasoning: 0, cost: null },
  });
  expect((await step("get_last_assistant_text", ref)).result).toEqual({ text: "hello there" });
  expect((await step("export_session", { ...ref, format: "jsonl" })).result.content.split("\n")).toHaveLength(5);
  expect((await step("export_session", ref)).result.content).toContain("## Summary");
  expect((await step("abort", ref)).result).toEqual({ aborted: false });
  expect((await step("delete_session", { sessionKey: "ops-fork" })).result).toEqual({ deleted: true });
  expect((await step("delete_session", { sessionKey: "ops-fork" })).result).toEqual({ deleted: false });
  expect((await step("get_state", { sessionKey: "ops-fork" })).error).toEqual({ code: "not_found" });
  expect((await step("prompt", { message: "no session named" })).error).toEqual({ code: "invalid_args" });
  expect((await step("prompt", { ...ref, message: "" })).error).toEqual({ code: "invalid_args" });
  expect((await step("start_session", { bus: "bad bus name!" })).error).toEqual({ code: "invalid_args" });
  expect((await step("get_messages", { ...ref, limit: 5000 })).error).toEqual({ code: "invalid_args" });
  return out;
}

describe("session operations", () => {
  it("give the same results through the typed API and POST /do", async () => {
    const a = await setup();
    const viaApi = await scenario(apiCall(a.claw), a.fake);
    const b = await setup();
    const viaHttp = await scenario(httpCall(b.server), b.fake);
    expect(normalise(viaHttp)).toEqual(normalise(viaApi));
    expect(viaApi.length).toBeGreaterThan(25);
    // Every session operation was exercised.
    const used = new Set((viaApi as Array<{ op: string }>).map((s) => s.op));
    for (const op of sessionOps) expect(used.has(op.name), op.name).toBe(true);
  });

  it("bind every method of the typed handle to its session", async () => {
    const { claw, fake } = await setup();
    fake.script(answer("one"), answer("Summary."));
    const s = await claw.session.start({ sessionKey: "handle", name: "H" });
    expect(s).toMatchObject({
      sessionKey: "handle",
      name: "H",
      bus: "thebus",
      model: "openai/gpt-5:online",
      provider: "openrouter",
      streamText: false,
    });
    expect((await s.prompt({ message: "hi" })).text).toBe("one");
    expect(await s.steer({ message: "x" })).toMatchObject({ queued: true });
    expect(await s.followUp({ message: "y" })).toMatchObject({ queued: true });
    expect(await s.clearQueue()).toEqual({ cleared: 2 });
    expect(await s.state()).toMatchObject({ sessionId: s.sessionId, messageCount: 2 });
    expect((await s.messages({ limit: 1 })).messages).toHaveLength(1);
    expect((await s.setModel({ model: "m2" })).model).toBe("m2");
    expect((await s.setName({ name: "H2" })).name).toBe("H2");
    const f = await s.fork();
    expect((await f.messages()).messages).toHaveLength(2);
    expect(await s.compact()).toMatchObject({ summary: "Summary." });
    expect((await s.stats()).runs).toBe(1);
    expect((await s.lastAssistantText()).text).toBe("one");
    expect((await s.export({ format: "jsonl" })).content).toContain('"type":"session"');
    expect(await s.abort()).toEqual({ aborted: false });
    const got = await claw.session.get({ sessionKey: "handle" });
    expect(got.sessionId).toBe(s.sessionId);
    expect((await claw.session.list()).sessions.map((x) => x.sessionId).sort()).toEqual(
      [s.sessionId, f.sessionId].sort(),
    );
    expect((await f.delete()).deleted).toBe(true);
    expect((await claw.session.delete({ sessionKey: "handle" })).deleted).toBe(true);
    await expect(claw.session.get({ sessionKey: "handle" })).rejects.toMatchObject({ code: "not_found" });
  });

  it("run each operation's documented example successfully, in catalog order", async () => {
    const { claw } = await setup();
    for (const op of sessionOps) {
      const r = await claw.do({ op: op.name, args: op.example, id: op.name });
      expect(r, op.name).toMatchObject({ ok: true });
    }
  });

  it("pages list_sessions with a cursor", async () => {
    const { claw } = await setup();
    for (let i = 0; i < 5; i++) await claw.session.start({ sessionKey: `p${i}` });
    const keys: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await claw.session.list({ limit: 2, ...(cursor ? { cursor } : {}) });
      keys.push(...page.sessions.map((s) => s.sessionKey));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(keys).toEqual(["p4", "p3", "p2", "p1", "p0"]);
  });
});
