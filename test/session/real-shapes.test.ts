/**
 * The agent loop against stream shapes of real reasoning models (modelled on recorded OpenAI
 * and OpenRouter streams): what is stored, what the next request's `input` carries, and how a
 * run ends for each kind of provider answer.
 */
import { describe, expect, it } from "vitest";
import type { Claw } from "../../src/index.js";
import { blob, call, message, reasoning, refusal, webSearch } from "../fixtures/fake-items.js";
import { answer, cut, errorEvent, type FakeResponses, fail, respond, streamError } from "../fixtures/fake-responses.js";
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

/** Arguments spelled so that any parse and re-serialize would change them (spaces, key order, 3.0e1). */
const ODD_ARGS = '{ "timeout": 3.0e1,  "script" : "echo $((12+7))", "cwd": "/tmp" }';

describe("output items kept and replayed", () => {
  it("replays reasoning (encrypted), the call's raw arguments and the message ids in order, followed by the tool output", async () => {
    const enc = blob("one");
    fake.script(
      respond([reasoning({ summary: ["**Planning**\n\nAdd first."], encrypted: enc }), call(ODD_ARGS)], {
        usage: { input: 100, output: 40, cached: 64, reasoning: 32 },
      }),
      respond([reasoning({ encrypted: blob("two") }), message("The sum is 19.", "final_answer")], {
        usage: { input: 150, output: 20, cached: 100, reasoning: 8, cost: 0.0125 },
      }),
    );
    const s = await claw.session.start({ sessionKey: "replay" });
    const r = await s.prompt({ message: "add 12 and 7" });
    expect(r).toMatchObject({ status: "completed", text: "The sum is 19.", toolCalls: 1, turns: 2 });
    expect(r.usage).toEqual({ input: 250, output: 60, total: 310, cachedInput: 164, reasoning: 40, cost: 0.0125 });

    const [first, second] = fake.requests;
    expect(first!.body).toMatchObject({ store: false, include: ["reasoning.encrypted_content"], stream: true });
    const input = second!.body.input;
    expect(input).toHaveLength(4);
    expect(input[0]).toEqual({ type: "message", role: "user", content: "add 12 and 7" });
    expect(input[1]).toEqual(first!.output[0]); // reasoning, encrypted_content and summary unchanged
    expect(input[1].encrypted_content).toBe(enc);
    expect(input[2]).toEqual(first!.output[1]); // the call item with id, call_id, status
    expect(input[3]).toMatchObject({ type: "function_call_output", call_id: first!.output[1]!.call_id });
    expect(JSON.parse(input[3].output)).toMatchObject({ stdout: "19\n", exitCode: 0 });
    // Byte for byte in the request body itself: the arguments string was never re-serialized.
    expect(second!.raw).toContain(JSON.stringify(ODD_ARGS));

    // A second prompt carries the whole history: the final message with its id and phase.
    fake.script(answer("again"));
    await s.prompt({ message: "thanks" });
    const third = fake.requests[2]!.body.input;
    expect(third.slice(0, 4)).toEqual(input);
    expect(third[4]).toEqual(fake.requests[1]!.output[0]);
    expect(third[5]).toEqual(fake.requests[1]!.output[1]);
    expect(third[5]).toMatchObject({ phase: "final_answer", id: expect.stringMatching(/^msg_/) });

    // get_messages: readable and raw.
    const msgs = (await s.messages()).messages;
    expect(msgs.map((m) => m.role)).toEqual([
      "user",
      "reasoning",
      "tool_call",
      "tool_result",
      "reasoning",
      "assistant",
      "user",
      "assistant",
    ]);
    expect(msgs[1]).toMatchObject({ text: "**Planning**\n\nAdd first.", item: { encrypted_content: enc } });
    expect(msgs[2]).toMatchObject({ args: { script: "echo $((12+7))", timeout: 30 }, item: { arguments: ODD_ARGS } });
    expect(msgs[5]).toMatchObject({ text: "The sum is 19.", phase: "final_answer" });

    const stats = await s.stats();
    expect(stats.tokens).toEqual({
      input: 260,
      output: 65,
      total: 325,
      cachedInput: 164,
      reasoning: 40,
      cost: 0.0125,
    });
    const jsonl = (await s.export({ format: "jsonl" })).content
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(jsonl[3]).toMatchObject({ type: "message", role: "tool_call", item: { arguments: ODD_ARGS } });
  });

  it("runs parallel calls in order and answers each; a web search item and commentary are replayed too", async () => {
    fake.script(
      respond([
        reasoning({ encrypted: blob("p") }),
        message("Checking two things.", "commentary"),
        webSearch("tsclaw"),
        call('{"script":"echo a"}'),
        call('{"script":"echo b"}'),
      ]),
      respond([message("a and b", "final_answer")]),
    );
    const s = await claw.session.start({ sessionKey: "parallel" });
    const r = await s.prompt({ message: "both" });
    expect(r).toMatchObject({ status: "completed", text: "a and b", toolCalls: 2 });
    const sent = fake.requests[0]!.output;
    const input = fake.requests[1]!.body.input;
    expect(input.slice(1, 6)).toEqual(sent);
    expect(input.slice(6).map((i: any) => [i.type, i.call_id, JSON.parse(i.output).stdout])).toEqual([
      ["function_call_output", sent[3]!.call_id, "a\n"],
      ["function_call_output", sent[4]!.call_id, "b\n"],
    ]);
  });

  it("accepts data-only SSE with keep-alive comments and [DONE] (OpenRouter's framing), with its cost", async () => {
    fake.script(
      respond([reasoning({ encrypted: `${blob("or")}.eyJvciI6MX0`, status: true }), message("Hi!", "final_answer")], {
        framing: "data-only",
        keepAlives: 3,
        done: true,
        usage: { input: 9175, output: 277, reasoning: 135, cost: 0.025706 },
      }),
    );
    const s = await claw.session.start({ sessionKey: "openrouter", streamText: true });
    const r = await s.prompt({ message: "hello" });
    expect(r).toMatchObject({ status: "completed", text: "Hi!", usage: { reasoning: 135, cost: 0.025706 } });
    const deltas = (await busPayloads(claw)).filter((e) => e.type === "response.output_text.delta");
    expect(deltas.map((d) => d.delta).join("")).toBe("Hi!");
  });

  it("a reasoning item without encrypted content is stored but not sent back (a stateless request cannot refer to it)", async () => {
    fake.script(respond([reasoning({ summary: ["thinking"] }), message("one")]), answer("two"));
    const s = await claw.session.start({ sessionKey: "plain-reasoning" });
    await s.prompt({ message: "first" });
    await s.prompt({ message: "second" });
    const input = fake.requests[1]!.body.input;
    expect(input.map((i: any) => i.type)).toEqual(["message", "message", "message"]);
    expect((await s.messages()).messages[1]).toMatchObject({ role: "reasoning", text: "thinking" });
  });
});

describe("run endings", () => {
  it("response.incomplete ends the run as model_incomplete with the reason, keeping the partial text", async () => {
    fake.script(respond([message("Hello,")], { incomplete: "max_output_tokens" }));
    const s = await claw.session.start({ sessionKey: "incomplete" });
    const r = await s.prompt({ message: "hello" });
    expect(r).toMatchObject({
      status: "error",
      text: "Hello,",
      error: { code: "model_incomplete", details: { reason: "max_output_tokens" } },
    });
    expect((await s.lastAssistantText()).text).toBe("Hello,");
    expect(fake.requests).toHaveLength(1);
  });

  it("a refusal is the run's text, marked refusal: true", async () => {
    fake.script(respond([refusal("I can't help with that.")]));
    const s = await claw.session.start({ sessionKey: "refusal" });
    const r = await s.prompt({ message: "do something bad" });
    expect(r).toMatchObject({ status: "completed", text: "I can't help with that.", refusal: true });
    expect((await s.messages()).messages[1]).toMatchObject({ role: "assistant", refusal: true });
    const end = (await busPayloads(claw)).at(-1);
    expect(end).toMatchObject({ type: "agent_end", refusal: true, text: "I can't help with that." });
  });

  it.each([
    [
      "HTTP 429 insufficient_quota",
      fail(429, { code: "insufficient_quota", message: "You exceeded your current quota" }),
      "insufficient_quota",
    ],
    [
      "a stream error event (insufficient_quota)",
      errorEvent("insufficient_quota", "You exceeded your current quota"),
      "insufficient_quota",
    ],
    ["response.failed", streamError("Request too large"), "server_error"],
    ["HTTP 400", fail(400, { code: "invalid_value", message: "bad input" }), "invalid_value"],
    ["HTTP 401", fail(401, { code: "invalid_api_key", message: "no" }), "invalid_api_key"],
    ["HTTP 403", fail(403, { message: "forbidden" }), null],
    ["HTTP 404", fail(404, { code: "model_not_found", message: "no such model" }), "model_not_found"],
  ])(
    "%s ends the run at once with provider_error and the provider's code, after one request",
    async (_n, turn, code) => {
      fake.script(turn, answer("never"));
      const s = await claw.session.start({ sessionKey: `fail-${fake.pending()}` });
      const r = await s.prompt({ message: "hello" });
      expect(r).toMatchObject({ status: "error", error: { code: "provider_error" } });
      if (code !== null) expect(r.error!.details).toMatchObject({ providerCode: code });
      expect(fake.requests).toHaveLength(1);
      expect((await busPayloads(claw)).some((e) => e.type === "retry")).toBe(false);
    },
  );

  it.each([
    ["a 429 rate limit (Retry-After honoured)", fail(429, { retryAfter: 0 })],
    ["a 503", fail(503)],
    ["a stream cut before response.completed", cut("partial")],
  ])("retries %s and then succeeds", async (_n, turn) => {
    fake.script(turn, answer("recovered"));
    const s = await claw.session.start({ sessionKey: "retry" });
    const r = await s.prompt({ message: "hello" });
    expect(r).toMatchObject({ status: "completed", text: "recovered" });
    expect(fake.requests).toHaveLength(2);
    expect((await s.messages()).messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("retries once without include when the provider refuses it, and remembers that for the model", async () => {
    fake.script(
      fail(400, { message: "Unsupported parameter: 'include' is not supported with this model." }),
      answer("first"),
      answer("second"),
    );
    const s = await claw.session.start({ sessionKey: "no-include" });
    expect(await s.prompt({ message: "one" })).toMatchObject({ status: "completed", text: "first" });
    await s.prompt({ message: "two" });
    expect(fake.requests.map((r) => r.body.include ?? null)).toEqual([["reasoning.encrypted_content"], null, null]);
  });
});

describe("providers", () => {
  it("refuses an unknown provider without looking for its key (no <NAME>_API_KEY is read)", async () => {
    const c = await fakeClaw(fake, { env: { OPENROUTER_API_KEY: "k", STRIPE_API_KEY: "secret" } });
    try {
      for (const provider of ["stripe", "nosuch"]) {
        const res = await c.do({ op: "start_session", args: { provider } });
        expect(res).toMatchObject({ ok: false, error: { code: "invalid_args" } });
        // The same answer whether or not the variable exists: no oracle.
        expect(JSON.stringify(res)).not.toContain("API_KEY");
      }
      const set = await c.do({ op: "set_model", args: { sessionKey: "x", model: "m", provider: "stripe" } });
      expect(set).toMatchObject({ ok: false });
      expect(fake.requests).toHaveLength(0);
    } finally {
      await c.close();
    }
  });

  it("a session on openai without a model gets gpt-5; the server's provider keeps the server's model", async () => {
    const c = await fakeClaw(fake, { env: { OPENROUTER_API_KEY: "k", OPENAI_API_KEY: "k2" }, model: "my/model" });
    try {
      expect((await c.session.start({ provider: "openai" })).model).toBe("gpt-5");
      expect((await c.session.start({})).model).toBe("my/model");
      const openaiClaw = await fakeClaw(fake, { provider: "openai", env: { OPENAI_API_KEY: "k2" } });
      expect(openaiClaw.config.model).toBe("gpt-5");
      await openaiClaw.close();
    } finally {
      await c.close();
    }
  });
});
