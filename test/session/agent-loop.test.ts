/** The agent loop alone: a scripted model, an in-memory store and inbox, a recording tool executor; no database. */
import { describe, expect, it } from "vitest";
import type { AgentEventInput } from "../../src/agent/agent-events.js";
import {
  type AgentLoopConfig,
  type LoopProgress,
  runAgentLoop,
  type ToolExecutor,
} from "../../src/agent/agent-loop.js";
import type { ModelCall } from "../../src/agent/output-items.js";
import { itemMessage } from "../../src/agent/output-items.js";
import type { OutputItem, TurnOutput } from "../../src/agent/responses-stream.js";
import { RunContext } from "../../src/agent/run-context.js";
import type { Message } from "../../src/agent/session-schemas.js";
import { zeroUsage } from "../../src/agent/usage.js";

const call = (id: string, script: string): OutputItem => ({
  type: "function_call",
  call_id: id,
  name: "bash",
  arguments: JSON.stringify({ script }),
});
const say = (text: string): OutputItem => ({
  type: "message",
  role: "assistant",
  content: [{ type: "output_text", text }],
});
const turn = (...items: OutputItem[]): TurnOutput => ({
  items,
  usage: { ...zeroUsage(), input: 10 },
  status: "completed",
});

/** A loop over memory: every stored message, every event, every model input, and queues to fill. */
function memoryLoop(script: TurnOutput[], history: Message[] = []) {
  const stored: Message[] = [...history];
  const events: AgentEventInput[] = [];
  const inputs: unknown[][] = [];
  const steering: string[] = [];
  const followUps: string[] = [];
  const ran: string[] = [];
  const add = (m: Omit<Message, "id" | "seq" | "createdAt">): Message => {
    const full = { ...m, id: `m${stored.length + 1}`, seq: stored.length + 1, createdAt: 0 } as Message;
    stored.push(full);
    return full;
  };
  const deliver = (queue: string[], limit = queue.length) =>
    Promise.resolve(queue.splice(0, limit).map((text) => add({ runId: "r1", role: "user", text })));
  const tools: ToolExecutor = {
    async execute(c: ModelCall) {
      ran.push(c.callId);
      const { script } = JSON.parse(c.arguments) as { script: string };
      if (script === "steer") steering.push("change of plan");
      return { result: { stdout: `ran ${script}`, exitCode: 0 }, isError: false };
    },
  };
  const cfg: AgentLoopConfig = {
    maxTurns: 5,
    signal: new AbortController().signal,
    async model(input) {
      inputs.push(input);
      const next = script.shift();
      if (!next) throw new Error("the script ran out");
      return next;
    },
    store: {
      append: async (m) => add({ ...m, runId: "r1" }),
      appendItem: async (item) => add(itemMessage("r1", item)),
    },
    inbox: {
      steering: () => deliver(steering),
      hasSteering: async () => steering.length > 0,
      followUp: () => deliver(followUps, 1),
      waiting: async () => ({ steering: steering.length > 0, followUp: followUps.length > 0 }),
    },
    tools,
    emit: (e) => events.push(e),
  };
  const progress: LoopProgress = { turns: 0, toolCalls: 0, usage: zeroUsage(), text: "", final: false, refusal: false };
  if (history.length === 0) add({ runId: "r1", role: "user", text: "hello" });
  return { cfg, progress, stored, events, inputs, steering, followUps, ran, context: () => new RunContext(stored) };
}

describe("agent loop over memory", () => {
  it("runs a tool round trip and sends the stored context back, in order", async () => {
    const t = memoryLoop([turn(call("c1", "echo hi")), turn(say("done"))]);
    await runAgentLoop(t.cfg, t.context(), t.progress);
    expect(t.progress).toMatchObject({ turns: 2, toolCalls: 1, text: "done", usage: { input: 20 } });
    expect(t.stored.map((m) => m.role)).toEqual(["user", "tool_call", "tool_result", "assistant"]);
    expect(t.inputs[1]).toEqual([
      { type: "message", role: "user", content: "hello" },
      call("c1", "echo hi"),
      { type: "function_call_output", call_id: "c1", output: JSON.stringify({ stdout: "ran echo hi", exitCode: 0 }) },
    ]);
    expect(t.events.map((e) => e.type)).toEqual([
      "turn_start",
      "tool_execution_start",
      "tool_execution_end",
      "turn_start",
      "message",
    ]);
  });

  it("skips calls not started once steering waits, delivers it at the turn boundary, then the follow-up", async () => {
    const t = memoryLoop([turn(call("c1", "steer"), call("c2", "never")), turn(say("steered")), turn(say("followed"))]);
    t.followUps.push("and then?");
    await runAgentLoop(t.cfg, t.context(), t.progress);
    expect(t.ran).toEqual(["c1"]);
    const results = t.stored.filter((m) => m.role === "tool_result");
    expect(results.map((m) => m.isError)).toEqual([false, true]);
    expect(t.stored.filter((m) => m.role === "user").map((m) => m.text)).toEqual([
      "hello",
      "change of plan",
      "and then?",
    ]);
    expect(t.progress).toMatchObject({ turns: 3, toolCalls: 1, text: "followed" });
    // The second turn saw the skipped output and the steering message.
    expect(t.inputs[1]!.at(-1)).toEqual({ type: "message", role: "user", content: "change of plan" });
  });

  it("ends with turn_limit after maxTurns calls, its progress kept", async () => {
    const t = memoryLoop(Array.from({ length: 6 }, (_, i) => turn(call(`c${i}`, "true"))));
    await expect(runAgentLoop(t.cfg, t.context(), t.progress)).rejects.toMatchObject({ code: "turn_limit" });
    expect(t.progress).toMatchObject({ turns: 5, toolCalls: 5 });
  });

  it("resumes a stored run: the pending call runs, then the loop goes on over the loaded context", async () => {
    const history = [
      { id: "m1", seq: 1, runId: "r1", role: "user", text: "hello", createdAt: 0 },
      {
        id: "m2",
        seq: 2,
        runId: "r1",
        role: "tool_call",
        callId: "c9",
        name: "bash",
        createdAt: 0,
        item: call("c9", "ls"),
      },
    ] as Message[];
    const t = memoryLoop([turn(say("resumed"))], history);
    await runAgentLoop(t.cfg, t.context(), t.progress, [
      { callId: "c9", name: "bash", arguments: JSON.stringify({ script: "ls" }) },
    ]);
    expect(t.ran).toEqual(["c9"]);
    expect(t.inputs[0]).toEqual([
      { type: "message", role: "user", content: "hello" },
      call("c9", "ls"),
      { type: "function_call_output", call_id: "c9", output: JSON.stringify({ stdout: "ran ls", exitCode: 0 }) },
    ]);
    expect(t.progress).toMatchObject({ turns: 1, toolCalls: 1, text: "resumed" });
  });

  it("builds the same input as converting the whole stored context each turn, a summary restarting it", async () => {
    const t = memoryLoop([turn(call("a", "x")), turn(say("one"))]);
    await runAgentLoop(t.cfg, t.context(), t.progress);
    const ctx = new RunContext(t.stored.slice(0, 2));
    for (const m of t.stored.slice(2)) ctx.add(m);
    expect(ctx.input()).toEqual(new RunContext(t.stored).input());
    ctx.add({ id: "s", seq: 99, runId: "r2", role: "summary", text: "sum", createdAt: 0 } as Message);
    expect(ctx.input()).toEqual([{ type: "message", role: "user", content: expect.stringContaining("sum") }]);
  });
});
