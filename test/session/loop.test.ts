/** The agent loop against the fake Responses server: tool round trips, bus events, bash context. */
import { describe, expect, it } from "vitest";
import type { Claw } from "../../src/index.js";
import { answer, callBash, callTools, type FakeResponses } from "../fixtures/fake-responses.js";
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

describe("agent loop", () => {
  it("runs a tool round trip: bash output goes back with the whole history, events land on the bus in order", async () => {
    fake.script(
      callBash({ script: "echo hello-from-bash" }, { usage: { input: 100, output: 20 } }),
      answer("The script printed hello-from-bash.", { usage: { input: 150, output: 30 } }),
    );
    const s = await claw.session.start({ sessionKey: "round-trip", bus: "rt" });
    const r = await s.prompt({ message: "Run echo please" });

    expect(r).toMatchObject({
      status: "completed",
      text: "The script printed hello-from-bash.",
      turns: 2,
      toolCalls: 1,
      usage: { input: 250, output: 50, total: 300 },
    });
    expect(fake.requests).toHaveLength(2);

    // The first request: the user message, the bash tool with its schema from bashArgsSchema.
    const first = fake.requests[0]!.body;
    expect(first.stream).toBe(true);
    expect(first.input).toEqual([{ type: "message", role: "user", content: "Run echo please" }]);
    expect(first.tools).toHaveLength(1);
    expect(first.tools[0]).toMatchObject({ type: "function", name: "bash" });
    expect(first.tools[0].parameters.required).toEqual(["script"]);
    expect(Object.keys(first.tools[0].parameters.properties)).toEqual(
      expect.arrayContaining([
        "script",
        "timeout",
        "cwd",
        "env",
        "stdin",
        "stdoutLineEvent",
        "stderrLineEvent",
        "exitEvent",
        "timeoutEvent",
      ]),
    );
    expect(first.instructions).toContain("bash");
    expect(first.instructions).toContain("$CLAW_URL/do");

    // The second request carries the whole history, function_call_output included, no previous_response_id.
    const second = fake.requests[1]!.body;
    expect(second.previous_response_id).toBeUndefined();
    expect(second.input).toHaveLength(3);
    expect(second.input[0]).toEqual({ type: "message", role: "user", content: "Run echo please" });
    expect(second.input[1]).toMatchObject({
      type: "function_call",
      name: "bash",
      arguments: JSON.stringify({ script: "echo hello-from-bash" }),
    });
    expect(second.input[2]).toMatchObject({ type: "function_call_output", call_id: second.input[1].call_id });
    expect(JSON.parse(second.input[2].output)).toEqual({
      stdout: "hello-from-bash\n",
      stderr: "",
      exitCode: 0,
      timeout: false,
      sandbox: "none",
    });

    // Bus: lifecycle and tool-call stream events, in order, each with sessionId and runId.
    const events = await busPayloads(claw, "rt");
    for (const e of events) expect(e).toMatchObject({ sessionId: s.sessionId, runId: r.runId });
    // Argument deltas come in several chunks; collapse runs of them to compare the order.
    const types = events
      .map((e) => e.type)
      .filter((t, i, all) => !(t === "response.function_call_arguments.delta" && all[i - 1] === t));
    expect(types).toEqual([
      "agent_start",
      "message",
      "turn_start",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "tool_execution_start",
      "tool_output",
      "tool_execution_end",
      "turn_start",
      "message",
      "agent_end",
    ]);
    const argDeltas = events.filter((e) => e.type === "response.function_call_arguments.delta").map((e) => e.delta);
    expect(argDeltas.join("")).toBe(JSON.stringify({ script: "echo hello-from-bash" }));
    const start = events.find((e) => e.type === "tool_execution_start");
    expect(start).toMatchObject({ name: "bash", args: { script: "echo hello-from-bash" } });
    // The output as it arrived, before the result.
    expect(events.find((e) => e.type === "tool_output")).toMatchObject({
      callId: start.callId,
      stream: "stdout",
      text: "hello-from-bash\n",
    });
    const end = events.find((e) => e.type === "tool_execution_end");
    expect(end).toMatchObject({
      callId: start.callId,
      isError: false,
      result: { stdout: "hello-from-bash\n", exitCode: 0 },
    });
    expect(events.find((e) => e.type === "response.output_item.added").item).toMatchObject({
      type: "function_call",
      name: "bash",
    });
    expect(events.at(-1)).toMatchObject({ type: "agent_end", status: "completed", turns: 2, toolCalls: 1 });
    expect(events.some((e) => e.type === "response.output_text.delta")).toBe(false);

    // Persisted messages mirror the conversation.
    const { messages } = await s.messages();
    expect(messages.map((m) => m.role)).toEqual(["user", "tool_call", "tool_result", "assistant"]);
    expect(messages[1]).toMatchObject({
      callId: start.callId,
      name: "bash",
      args: { script: "echo hello-from-bash" },
      runId: r.runId,
    });
    expect(messages[2]).toMatchObject({
      callId: start.callId,
      isError: false,
      result: { stdout: "hello-from-bash\n" },
    });
  });

  it("publishes the model's own stdoutLineEvent to its session's bus, which it may name", async () => {
    fake.script(
      callBash({
        script: "printf 'one\\ntwo\\n'",
        stdoutLineEvent: { template: { line: "{payload}", from: "agent" }, bus: "agent-lines" },
      }),
      answer("done"),
    );
    const s = await claw.session.start({ sessionKey: "lines", bus: "agent-lines" });
    const r = await s.prompt({ message: "print two lines" });
    expect(r.status).toBe("completed");
    const lines = (await busPayloads(claw, "agent-lines")).filter((p) => p.from === "agent");
    expect(lines).toEqual([
      { line: "one", from: "agent" },
      { line: "two", from: "agent" },
    ]);
  });

  it("gives bash the session's context variables and never a provider key", async () => {
    fake.script(
      callBash({
        script:
          'echo "$CLAW_SESSION_ID|$CLAW_SESSION_KEY|$CLAW_BUS|${CLAW_TASK_ID:-none}|${OPENROUTER_API_KEY:-nokey}"',
      }),
      answer("ok"),
    );
    const s = await claw.session.start({ sessionKey: "env-check", bus: "envbus" });
    await s.prompt({ message: "env" });
    const { messages } = await s.messages();
    const result = messages.find((m) => m.role === "tool_result")!.result as { stdout: string };
    expect(result.stdout.trim()).toBe(`${s.sessionId}|env-check|envbus|none|nokey`);
  });

  it("turns bad tool arguments and unknown tools into error results the model sees; the run goes on", async () => {
    fake.script(
      callTools([
        { arguments: "{not json" },
        { arguments: { script: 42 } },
        { name: "python", arguments: { code: "1" } },
      ]),
      answer("I will stop trying."),
    );
    const s = await claw.session.start({ sessionKey: "bad-args" });
    const r = await s.prompt({ message: "go" });
    expect(r.status).toBe("completed");
    const outputs = fake.requests[1]!.body.input.filter((i: any) => i.type === "function_call_output").map((i: any) =>
      JSON.parse(i.output),
    );
    expect(outputs.map((o: any) => o.error?.code)).toEqual(["invalid_args", "invalid_args", "unknown_tool"]);
    const events = await busPayloads(claw);
    const ends = events.filter((e) => e.type === "tool_execution_end");
    expect(ends.map((e) => e.isError)).toEqual([true, true, true]);
  });

  it("runs several calls of one response in order", async () => {
    fake.script(
      callBash([{ script: "echo a > f.txt", cwd: "/tmp" }, { script: "echo b" }, { script: "echo c" }]),
      answer("abc"),
    );
    const s = await claw.session.start({ sessionKey: "multi" });
    const r = await s.prompt({ message: "three" });
    expect(r.toolCalls).toBe(3);
    const events = await busPayloads(claw);
    const starts = events.filter((e) => e.type === "tool_execution_start").map((e) => e.args.script);
    expect(starts).toEqual(["echo a > f.txt", "echo b", "echo c"]);
    const input = fake.requests[1]!.body.input;
    expect(input.map((i: any) => i.type)).toEqual([
      "message",
      "function_call",
      "function_call",
      "function_call",
      "function_call_output",
      "function_call_output",
      "function_call_output",
    ]);
  });

  it("publishes text deltas only when streamText is set", async () => {
    fake.script(answer("streamed words here"), answer("quiet answer"));
    const loud = await claw.session.start({ sessionKey: "loud", bus: "loud", streamText: true });
    await loud.prompt({ message: "hi" });
    const quiet = await claw.session.start({ sessionKey: "quiet", bus: "quiet" });
    await quiet.prompt({ message: "hi" });
    const deltas = (await busPayloads(claw, "loud")).filter((e) => e.type === "response.output_text.delta");
    expect(deltas.map((d) => d.delta).join("")).toBe("streamed words here");
    expect(deltas[0]).toMatchObject({ sessionId: loud.sessionId });
    expect((await busPayloads(claw, "quiet")).some((e) => e.type === "response.output_text.delta")).toBe(false);
  });

  it("ends without assistant text as completed_no_summary", async () => {
    fake.script(answer(""));
    const s = await claw.session.start({ sessionKey: "silent" });
    const r = await s.prompt({ message: "say nothing" });
    expect(r.status).toBe("completed_no_summary");
    expect(r.text).toBe("");
  });

  it("ends a run at the turn limit with an error", async () => {
    await claw.close();
    claw = await fakeClaw(fake, { maxTurns: 2 });
    fake.setDefault(callBash({ script: "true" }));
    const s = await claw.session.start({ sessionKey: "loop" });
    const r = await s.prompt({ message: "loop forever" });
    expect(r).toMatchObject({ status: "error", turns: 2, error: { code: "turn_limit" } });
    expect(fake.requests).toHaveLength(2);
  });
});
