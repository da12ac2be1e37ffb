/** Error messages a new user reads: what is missing, what to call, where to fix it. */
import { describe, expect, it } from "vitest";
import { memClaw } from "./helpers/claw.js";
import { startServer } from "./helpers/server.js";

describe("error messages", () => {
  it("a missing argument reads 'required', not zod's 'expected nonoptional'", async () => {
    const claw = memClaw();
    try {
      const r = await claw.do({ op: "out", args: {} });
      expect(r).toMatchObject({
        ok: false,
        error: { code: "invalid_args", message: "invalid arguments for out: payload: required" },
      });
      const bash = await claw.do({ op: "bash", args: {} });
      expect(bash.ok ? "" : bash.error.message).toBe("invalid arguments for bash: script: required (string)");
    } finally {
      await claw.close();
    }
  });

  it("prompt on an unknown session key points at start_session", async () => {
    const claw = memClaw();
    try {
      const r = await claw.do({ op: "prompt", args: { sessionKey: "never-started", message: "hi" } });
      expect(r.ok ? "" : `${r.error.code}: ${r.error.message}`).toMatch(
        /^not_found: no session never-started; start_session creates one/,
      );
    } finally {
      await claw.close();
    }
  });

  it("a missing key says where to set it: this program in-process, the server over HTTP", async () => {
    const local = memClaw({ env: {} });
    const served = await startServer(memClaw({ env: {} }));
    try {
      const inProcess = await local.do({ op: "start_session", args: {} });
      expect(inProcess.ok ? "" : inProcess.error.message).toBe(
        `no API key for provider openrouter: set OPENROUTER_API_KEY in this process's environment, or pass apiKey to createClaw(). Without a key, use createClaw({ provider: "demo" }) (tsclaw: --model-provider demo, or CLAW_MODEL_PROVIDER=demo), or provider: "demo" in start_session or run_task: the built-in demo model (offline, no LLM) runs one bash command per prompt`,
      );
      const overHttp = await served.op("start_session", {});
      expect(overHttp.error).toMatchObject({
        code: "provider_auth_missing",
        details: {
          variable: "OPENROUTER_API_KEY",
          keyVariables: ["OPENROUTER_API_KEY", "OPENAI_API_KEY"],
          keyless: { args: { provider: "demo" }, flag: "--model-provider demo" },
        },
      });
      // The keyless way the message names works at once on the same server.
      expect(await served.op("start_session", { provider: "demo" })).toMatchObject({ ok: true });
      expect(overHttp.error.message).toBe(
        `no API key for provider openrouter: set OPENROUTER_API_KEY in the environment of the tsclaw server at ${served.url} and restart it. Without a key, restart it with --model-provider demo (CLAW_MODEL_PROVIDER=demo), or pass "provider": "demo" to start_session or run_task: the built-in demo model (offline, no LLM) runs one bash command per prompt`,
      );
    } finally {
      await local.close();
      await served.close();
    }
  });
});
