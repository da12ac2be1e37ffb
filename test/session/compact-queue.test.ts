/**
 * Compaction in the session's run queue: prompts and steering sent while it runs are stored
 * and delivered after it, `abort` stops it without touching the history, and a compaction or a
 * fork of a history with reasoning and calls never sends a dangling reasoning item or an
 * unanswered call.
 */
import { describe, expect, it, vi } from "vitest";
import type { Claw } from "../../src/index.js";
import { blob, call, message, reasoning } from "../fixtures/fake-items.js";
import { answer, type FakeResponses, respond, stall } from "../fixtures/fake-responses.js";
import { WAIT } from "../helpers/wait.js";
import { busPayloads, inputText, withFakeClaw } from "./helpers.js";

let fake: FakeResponses;
let claw: Claw;

withFakeClaw(
  (f, c) => {
    fake = f;
    claw = c;
  },
  () => ({ fake, claw }),
);

async function sessionWithHistory(key: string) {
  fake.script(respond([reasoning({ encrypted: blob(key) }), message("A1", "final_answer")]));
  const s = await claw.session.start({ sessionKey: key });
  await s.prompt({ message: "Q1" });
  return s;
}

describe("compaction and the run queue", () => {
  it("a prompt and a steer sent during compact are stored, then run after it on the compacted history", async () => {
    const s = await sessionWithHistory("during");
    // The summary is held back until the queue has been looked at (a fixed delay races a slow machine).
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    fake.script(async () => {
      await held;
      return answer("SUMMARY of Q1");
    }, answer("A2"));
    const compacting = s.compact();
    await fake.waitForRequests(2);
    expect(await s.state()).toMatchObject({ isRunning: true, running: "compact" });
    const prompted = s.prompt({ message: "Q2" });
    await s.steer({ message: "also this" });
    // The waiting prompt's row is written as it joins the queue; on a network store a moment later.
    await vi.waitFor(async () => expect((await s.state()).pending.prompts).toBe(1), WAIT);
    const state = await s.state();
    expect(state).toMatchObject({ running: "compact", queuedRuns: 1, pending: { prompts: 1, steering: 1 } });
    release();

    expect(await compacting).toMatchObject({ summary: "SUMMARY of Q1", messagesCompacted: 3 });
    expect(await prompted).toMatchObject({ status: "completed", text: "A2" });
    expect(fake.requests).toHaveLength(3);
    const input = fake.requests[2]!.body.input.map(inputText);
    expect(input).toHaveLength(3);
    expect(input[0]).toContain("SUMMARY of Q1");
    expect(input.slice(1)).toEqual(["Q2", "also this"]);
    expect(await s.state()).toMatchObject({ isRunning: false, queuedRuns: 0, pending: { prompts: 0, steering: 0 } });
    // Each delivered exactly once.
    const users = (await s.messages()).messages.filter((m) => m.role === "user").map((m) => m.text);
    expect(users).toEqual(["Q1", "Q2", "also this"]);
  });

  it("abort during compact stops it: history unchanged, session idle, compact_end cancelled", async () => {
    const s = await sessionWithHistory("abort-compact");
    const before = (await s.messages()).messages;
    fake.script(stall("SUMMA"));
    const compacting = s.compact().then(
      () => "completed",
      (e) => e.code,
    );
    await fake.waitForRequests(2);
    await vi.waitFor(async () => expect((await s.state()).running).toBe("compact"), WAIT);
    expect(await s.abort()).toEqual({ aborted: true });
    expect(await compacting).toBe("cancelled");
    expect((await s.messages()).messages).toEqual(before);
    expect(await s.state()).toMatchObject({ isRunning: false, running: null, currentRunId: null });
    await vi.waitFor(() => expect(fake.openStreams()).toBe(0), WAIT);
    const events = await busPayloads(claw);
    expect(events.at(-1)).toMatchObject({ type: "compact_end", status: "cancelled", messagesCompacted: 0 });
    // The next prompt still sees the whole history.
    fake.script(answer("A2"));
    await s.prompt({ message: "Q2" });
    expect(fake.requests.at(-1)!.body.input.map(inputText)).toEqual(["Q1", "", "A1", "Q2"]);
  });

  it("a compaction never sends a reasoning item last, and the summary replaces everything before it", async () => {
    fake.script(respond([reasoning({ encrypted: blob("cut") })], { incomplete: "max_output_tokens" }));
    const s = await claw.session.start({ sessionKey: "dangling" });
    expect((await s.prompt({ message: "Q1" })).error?.code).toBe("model_incomplete");
    fake.script(answer("SUMMARY"), answer("A2"));
    await s.compact();
    const compactInput = fake.requests[1]!.body.input;
    expect(compactInput.map((i: any) => i.type)).toEqual(["message", "message"]); // Q1 + the ask: reasoning left out
    await s.prompt({ message: "Q2" });
    expect(fake.requests[2]!.body.input.map(inputText)).toEqual([expect.stringContaining("SUMMARY"), "Q2"]);
  });

  it("a fork cut between a call and its result answers the call as interrupted", async () => {
    fake.script(
      respond([reasoning({ encrypted: blob("f") }), call('{"script":"echo x"}')]),
      respond([message("done")]),
    );
    const s = await claw.session.start({ sessionKey: "fork-cut" });
    await s.prompt({ message: "go" });
    const callMsg = (await s.messages()).messages.find((m) => m.role === "tool_call")!;
    const fork = await s.fork({ messageId: callMsg.id });
    fake.script(answer("after fork"));
    await fork.prompt({ message: "continue" });
    const input = fake.requests.at(-1)!.body.input;
    expect(input.map((i: any) => i.type)).toEqual([
      "message",
      "reasoning",
      "function_call",
      "function_call_output",
      "message",
    ]);
    expect(input[1]).toEqual(fake.requests[0]!.output[0]);
    expect(JSON.parse(input[3].output)).toMatchObject({ error: { code: "interrupted" } });
  });
});
