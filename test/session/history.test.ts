/** History: persistence across restarts, fork, compact, export, stats. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Claw, createClaw } from "../../src/index.js";
import { answer, callBash, type FakeResponses } from "../fixtures/fake-responses.js";
import { tempDir } from "../helpers/claw.js";
import { assistantItem, inputText, withFakeClaw } from "./helpers.js";

let fake: FakeResponses;
let claw: Claw;

withFakeClaw(
  (f, c) => {
    fake = f;
    claw = c;
  },
  () => ({ fake, claw }),
);

describe("persistence", () => {
  it("keeps a session and its messages across a restart of the claw (temp-file database)", async () => {
    await claw.close();
    const db = join(tempDir(), "claw.db");
    const open = () =>
      createClaw({ db, baseURL: fake.url, env: { ...process.env, OPENROUTER_API_KEY: "k" }, validateOutputs: true });
    claw = open();
    fake.script(callBash({ script: "echo persisted" }), answer("first answer"));
    const s = await claw.session.start({ sessionKey: "durable", name: "Durable" });
    await s.prompt({ message: "remember me" });
    const before = await s.messages();
    await claw.close();

    claw = open();
    const again = await claw.session.get({ sessionKey: "durable" });
    expect(again).toMatchObject({ sessionId: s.sessionId, name: "Durable" });
    const after = await again.messages();
    expect(after.messages).toEqual(before.messages);
    expect(after.messages.map((m) => m.role)).toEqual(["user", "tool_call", "tool_result", "assistant"]);

    // The next run sends the history written by the previous process.
    fake.script(answer("second answer"));
    await again.prompt({ message: "still there?" });
    const input = fake.requests.at(-1)!.body.input;
    expect(input).toHaveLength(5);
    expect(input[0].content).toBe("remember me");
    expect(JSON.parse(input[2].output).stdout).toBe("persisted\n");
    expect(input[3]).toEqual(assistantItem("first answer"));
    expect(input[4]).toEqual({ type: "message", role: "user", content: "still there?" });
    expect((await again.lastAssistantText()).text).toBe("second answer");
    expect((await again.stats()).runs).toBe(2);
  });

  it("ends runs left running by a dead process as interrupted errors on reopen", async () => {
    await claw.close();
    const db = join(tempDir(), "claw.db");
    const open = () =>
      createClaw({ db, baseURL: fake.url, env: { ...process.env, OPENROUTER_API_KEY: "k" }, log: () => {} });
    claw = open();
    const s = await claw.services.sessions.ensure({ sessionKey: "crashed" });
    // What a killed process leaves behind: a run row still 'running'.
    claw.services.db
      .prepare(
        "INSERT INTO runs (id, session_id, kind, status, started_at) VALUES ('run_dead', ?, 'agent', 'running', 1)",
      )
      .run(s.sessionId);
    await claw.close();
    claw = open();
    await claw.ready(); // restart recovery is part of the start
    const row = claw.services.db.prepare("SELECT status, error FROM runs WHERE id = 'run_dead'").get() as {
      status: string;
      error: string;
    };
    expect(row.status).toBe("error");
    expect(JSON.parse(row.error)).toMatchObject({ code: "interrupted" });
    expect((await claw.call("get_state", { sessionKey: "crashed" })).isRunning).toBe(false);
  });

  it("start_session with a known key returns the same session", async () => {
    const a = await claw.session.start({ sessionKey: "same", name: "first" });
    const b = await claw.session.start({ sessionKey: "same", name: "ignored" });
    expect(b.sessionId).toBe(a.sessionId);
    expect(b.name).toBe("first");
  });
});

describe("fork", () => {
  it("copies history up to a message into a new session with the same settings", async () => {
    fake.script(answer("A1"), answer("A2"));
    const s = await claw.session.start({ sessionKey: "orig", bus: "orig-bus", model: "m-1", instructions: "be brief" });
    await s.prompt({ message: "Q1" });
    await s.prompt({ message: "Q2" });
    const { messages } = await s.messages();
    expect(messages.map((m) => m.text)).toEqual(["Q1", "A1", "Q2", "A2"]);

    const whole = await s.fork({ newSessionKey: "copy" });
    expect(whole).toMatchObject({ sessionKey: "copy", bus: "orig-bus", model: "m-1", instructions: "be brief" });
    expect(whole.sessionId).not.toBe(s.sessionId);
    expect((await whole.messages()).messages.map((m) => m.text)).toEqual(["Q1", "A1", "Q2", "A2"]);

    const partial = await s.fork({ messageId: messages[1]!.id });
    expect((await partial.messages()).messages.map((m) => m.text)).toEqual(["Q1", "A1"]);
    fake.script(answer("B2"));
    await partial.prompt({ message: "Q2-alt" });
    expect(fake.requests.at(-1)!.body.input.map(inputText)).toEqual(["Q1", "A1", "Q2-alt"]);
    expect(fake.requests.at(-1)!.body).toMatchObject({ model: "m-1", instructions: "be brief" });

    // The original is untouched.
    expect((await s.messages()).messages).toHaveLength(4);
    await expect(s.fork({ newSessionKey: "copy" })).rejects.toMatchObject({ code: "invalid_args" });
    await expect(s.fork({ messageId: "msg_nope" })).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("compact", () => {
  it("shrinks what is sent next to the summary while get_messages still returns everything", async () => {
    fake.script(answer("A1"), callBash({ script: "echo tool-out" }), answer("A2"));
    const s = await claw.session.start({ sessionKey: "long" });
    await s.prompt({ message: "Q1" });
    await s.prompt({ message: "Q2" });
    const fullInput = fake.requests.at(-1)!.body.input;
    expect(fullInput).toHaveLength(5); // Q1, A1, Q2, call, output

    fake.script(answer("SUMMARY: user asked Q1 and Q2; bash printed tool-out."));
    const c = await s.compact({ instructions: "keep the tool output" });
    expect(c).toEqual({ summary: "SUMMARY: user asked Q1 and Q2; bash printed tool-out.", messagesCompacted: 6 });
    const compactReq = fake.requests.at(-1)!.body;
    expect(compactReq.tool_choice).toBe("none");
    expect(compactReq.input).toHaveLength(7); // the 6 messages + the request to summarise
    expect(compactReq.input.at(-1).content).toContain("keep the tool output");

    fake.script(answer("A3"));
    await s.prompt({ message: "Q3" });
    const after = fake.requests.at(-1)!.body.input;
    expect(after).toHaveLength(2);
    expect(after[0].content).toContain("SUMMARY: user asked Q1 and Q2");
    expect(after[1]).toEqual({ type: "message", role: "user", content: "Q3" });
    expect(JSON.stringify(after).length).toBeLessThan(JSON.stringify(fullInput).length + 200);

    const { messages } = await s.messages();
    expect(messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "tool_call",
      "tool_result",
      "assistant",
      "summary",
      "user",
      "assistant",
    ]);
    const stats = await s.stats();
    expect(stats).toMatchObject({ messages: 9, toolCalls: 1, runs: 3 });
    expect(stats.tokens.total).toBe(stats.tokens.input + stats.tokens.output);
    expect(stats.tokens.input).toBe(10 * 5); // five model calls of 10 input tokens (the fake's default)
  });
});

describe("export and inspection", () => {
  it("exports markdown and jsonl, and reports stats and the last assistant text", async () => {
    fake.script(callBash({ script: "echo exported" }), answer("All done."));
    const s = await claw.session.start({ sessionKey: "exp", name: "Export me" });
    expect((await s.lastAssistantText()).text).toBeNull();
    await s.prompt({ message: "work" });

    const md = (await s.export({ format: "markdown" })).content;
    expect(md).toContain("# Session Export me");
    expect(md).toContain("## User\n\nwork");
    expect(md).toContain("### Tool call `bash`");
    expect(md).toContain("exported");
    expect(md).toContain("## Assistant\n\nAll done.");

    const lines = (await s.export({ format: "jsonl" })).content
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: "session", sessionId: s.sessionId, sessionKey: "exp" });
    expect(lines.slice(1).map((l) => l.role)).toEqual(["user", "tool_call", "tool_result", "assistant"]);

    expect((await s.lastAssistantText()).text).toBe("All done.");
    expect(await s.stats()).toEqual({
      messages: 4,
      toolCalls: 1,
      runs: 1,
      tokens: { input: 20, output: 10, total: 30, cachedInput: 0, reasoning: 0, cost: null },
    });
  });
});
