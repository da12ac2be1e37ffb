/** Provider failures: retries with backoff on 429/5xx/network, none on auth, missing keys. */
import { describe, expect, it } from "vitest";
import type { Claw } from "../../src/index.js";
import { answer, type FakeResponses, fail, startFakeResponses, streamError } from "../fixtures/fake-responses.js";
import { apiClaw } from "../helpers/claw.js";
import { startServer } from "../helpers/server.js";
import { busPayloads, fakeClaw, withFakeClaw } from "./helpers.js";

let fake: FakeResponses;
let claw: Claw;

withFakeClaw(
  (f, c) => {
    fake = f;
    claw = c;
  },
  () => ({ fake, claw }),
);

describe("retries", () => {
  it("retries a 429 once (honouring retry-after) and then succeeds, with a retry event", async () => {
    fake.script(fail(429, { retryAfter: "0.05" }), answer("made it"));
    const s = await claw.session.start({ sessionKey: "rate" });
    const r = await s.prompt({ message: "hi" });
    expect(r).toMatchObject({ status: "completed", text: "made it", turns: 1 });
    expect(fake.requests).toHaveLength(2);
    const retries = (await busPayloads(claw)).filter((e) => e.type === "retry");
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({
      sessionId: s.sessionId,
      runId: r.runId,
      attempt: 1,
      delayMs: 50,
      status: 429,
      error: { code: "provider_error" },
    });
  });

  it("caps a long retry-after at the configured maximum", async () => {
    fake.script(fail(429, { retryAfter: 3600 }), answer("ok"));
    const s = await claw.session.start({ sessionKey: "cap" });
    await s.prompt({ message: "hi" });
    const retry = (await busPayloads(claw)).find((e) => e.type === "retry");
    expect(retry.delayMs).toBe(100);
  });

  it("ends the run as an error after repeated 500s, and the claw keeps serving", async () => {
    fake.script(fail(500), fail(500), fail(500), fail(500));
    const s = await claw.session.start({ sessionKey: "broken" });
    const r = await s.prompt({ message: "hi" });
    expect(r).toMatchObject({ status: "error", error: { code: "provider_error" } });
    expect(r.error!.message).toContain("500");
    expect(fake.requests).toHaveLength(4); // the first call and 3 retries
    const events = await busPayloads(claw);
    expect(events.filter((e) => e.type === "retry").map((e) => e.attempt)).toEqual([1, 2, 3]);
    expect(events.at(-1)).toMatchObject({ type: "agent_end", status: "error", error: { code: "provider_error" } });

    // Everything else still works, the session included.
    expect((await claw.bus.out({ bus: "after", payload: 1 })).seq).toBe(1);
    const next = await s.prompt({ message: "again" });
    expect(next).toMatchObject({ status: "completed", text: "ok" });
    expect((await s.stats()).runs).toBe(2);
  });

  it("does not retry an auth error", async () => {
    fake.script(fail(401, { message: "invalid key" }));
    const s = await claw.session.start({ sessionKey: "auth" });
    const r = await s.prompt({ message: "hi" });
    expect(r).toMatchObject({ status: "error", error: { code: "provider_error" } });
    expect(r.error!.message).toContain("401");
    expect(fake.requests).toHaveLength(1);
    expect((await busPayloads(claw)).some((e) => e.type === "retry")).toBe(false);
  });

  it("does not retry a response.failed event from the stream", async () => {
    fake.script(streamError("model exploded"));
    const s = await claw.session.start({ sessionKey: "failed" });
    const r = await s.prompt({ message: "hi" });
    expect(r).toMatchObject({ status: "error", error: { code: "provider_error" } });
    expect(r.error!.message).toContain("model exploded");
    expect(fake.requests).toHaveLength(1);
  });

  it("retries network errors and ends as an error when the provider stays unreachable", async () => {
    const gone = await startFakeResponses();
    await gone.close();
    const offline = await fakeClaw(gone, { modelRetry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 } });
    try {
      const s = await offline.session.start({ sessionKey: "offline" });
      const r = await s.prompt({ message: "hi" });
      expect(r).toMatchObject({ status: "error", error: { code: "provider_error" } });
      const retries = (await busPayloads(offline)).filter((e) => e.type === "retry");
      expect(retries).toHaveLength(2);
      expect(retries[0].status).toBeUndefined();
    } finally {
      await offline.close();
    }
  });
});

describe("missing API key", () => {
  it("fails session operations with provider_auth_missing naming the variable; everything else works", async () => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.endsWith("_API_KEY")));
    const keyless = await apiClaw({ env, baseURL: fake.url });
    const server = await startServer(keyless);
    try {
      await expect(keyless.session.start({ sessionKey: "nokey" })).rejects.toMatchObject({
        code: "provider_auth_missing",
        details: { variable: "OPENROUTER_API_KEY" },
      });
      await expect(keyless.session.start({ provider: "openai" })).rejects.toThrow(/OPENAI_API_KEY/);

      const viaHttp = await server.post({ op: "start_session", args: { sessionKey: "nokey" }, id: 7 });
      expect(viaHttp.status).toBe(503);
      expect(viaHttp.body).toMatchObject({ id: 7, ok: false, error: { code: "provider_auth_missing" } });
      expect(viaHttp.body.error.message).toContain("OPENROUTER_API_KEY");

      // A session made without the check (as a task would) still cannot prompt.
      const session = await keyless.services.sessions.ensure({ sessionKey: "made-anyway" });
      const prompt = await server.op("prompt", { sessionId: session.sessionId, message: "hi" });
      expect(prompt).toMatchObject({ ok: false, error: { code: "provider_auth_missing" } });
      expect(fake.requests).toHaveLength(0);

      // The rest of the service is unaffected.
      expect(await server.op("out", { payload: { fine: true } })).toMatchObject({ ok: true });
      expect(await server.op("bash", { script: "echo ok" })).toMatchObject({ ok: true, result: { stdout: "ok\n" } });
      expect(await server.op("list_sessions", {})).toMatchObject({
        ok: true,
        result: { sessions: [{ sessionKey: "made-anyway" }] },
      });
    } finally {
      await server.close();
    }
  });
});
