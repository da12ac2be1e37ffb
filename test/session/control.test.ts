/** Steering, follow-ups, abort and busy sessions. */
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { Claw } from "../../src/index.js";
import { answer, callBash, type FakeResponses, stall } from "../fixtures/fake-responses.js";
import { tempDir } from "../helpers/claw.js";
import { pidFromFile, processAlive, waitProcessGone } from "../helpers/process.js";
import { WAIT } from "../helpers/wait.js";
import { assistantItem, busPayloads, inputText, withFakeClaw } from "./helpers.js";

let fake: FakeResponses;
let claw: Claw;

withFakeClaw(
  (f, c) => {
    fake = f;
    claw = c;
  },
  () => ({ fake, claw }),
);

/** Waits until an event of `type` is on `bus`. */
const sawEvent = (type: string, bus = "thebus") =>
  vi.waitFor(async () => expect((await busPayloads(claw, bus)).map((e) => e.type)).toContain(type), WAIT);

describe("steering and follow-ups", () => {
  it("delivers a steering message sent during a tool-running turn before the next model call; calls not yet started are skipped", async () => {
    fake.script(
      callBash([{ script: "sleep 0.4; echo first" }, { script: "echo never-run" }]),
      answer("Changed course."),
    );
    const s = await claw.session.start({ sessionKey: "steer" });
    const running = s.prompt({ message: "do two things" });
    await sawEvent("tool_execution_start");
    const q = await s.steer({ message: "Stop, do something else" });
    expect(q).toMatchObject({ queued: true, running: true, pending: 1 });
    const r = await running;

    expect(r).toMatchObject({ status: "completed", text: "Changed course.", toolCalls: 1 });
    const input = fake.requests[1]!.body.input;
    expect(input.map((i: any) => i.type ?? i.role)).toEqual([
      "message",
      "function_call",
      "function_call",
      "function_call_output",
      "function_call_output",
      "message",
    ]);
    expect(JSON.parse(input[3].output)).toMatchObject({ stdout: "first\n", exitCode: 0 });
    expect(JSON.parse(input[4].output)).toMatchObject({ error: { code: "skipped" } });
    expect(input[5]).toEqual({ type: "message", role: "user", content: "Stop, do something else" });
    const ends = (await busPayloads(claw)).filter((e) => e.type === "tool_execution_end");
    expect(ends.map((e) => Boolean(e.skipped))).toEqual([false, true]);
    expect((await s.state()).pending).toEqual({ steering: 0, followUp: 0, prompts: 0 });
  });

  it("runs a follow-up after the answer, within the same run", async () => {
    fake.script(callBash({ script: "sleep 0.3" }), answer("first answer"), answer("second answer"));
    const s = await claw.session.start({ sessionKey: "follow" });
    const running = s.prompt({ message: "start" });
    await sawEvent("tool_execution_start");
    await s.followUp({ message: "and then?" });
    const r = await running;
    expect(r).toMatchObject({ status: "completed", text: "second answer", turns: 3 });
    // Not delivered at the tool boundary, only once the model had answered.
    expect(JSON.stringify(fake.requests[1]!.body.input)).not.toContain("and then?");
    const last = fake.requests[2]!.body.input;
    expect(last.at(-2)).toEqual(assistantItem("first answer"));
    expect(last.at(-1)).toEqual({ type: "message", role: "user", content: "and then?" });
  });

  it("prompt with behavior follow_up joins the active run and returns its result; without behavior it waits its turn", async () => {
    fake.script(callBash({ script: "sleep 0.3" }), answer("one"), answer("two"), answer("three"));
    const s = await claw.session.start({ sessionKey: "behave" });
    const first = s.prompt({ message: "start" });
    await sawEvent("tool_execution_start");
    const later = s.prompt({ message: "again" });
    await vi.waitFor(async () => expect((await s.state()).pending.prompts).toBe(1), WAIT);
    const joined = s.prompt({ message: "more", behavior: "follow_up" });
    const [a, b, c] = await Promise.all([first, joined, later]);
    expect(a.runId).toBe(b.runId);
    expect(b.text).toBe("two");
    // The plain prompt was stored, then ran as a run of its own once the first one had ended.
    expect(c).toMatchObject({ status: "completed", text: "three" });
    expect(c.runId).not.toBe(a.runId);
    expect(fake.requests.at(-1)!.body.input.map(inputText).slice(-2)).toEqual(["two", "again"]);
    expect((await s.state()).pending).toEqual({ steering: 0, followUp: 0, prompts: 0 });
  });

  it("keeps steering sent while idle for the next run and clear_queue drops it", async () => {
    const s = await claw.session.start({ sessionKey: "idle" });
    expect(await s.steer({ message: "note 1" })).toMatchObject({ queued: true, running: false });
    await s.followUp({ message: "later" });
    expect((await s.state()).pending).toEqual({ steering: 1, followUp: 1, prompts: 0 });
    expect(await s.clearQueue()).toEqual({ cleared: 2 });
    await s.steer({ message: "remember this" });
    await s.prompt({ message: "hello" });
    expect(fake.requests[0]!.body.input.map(inputText)).toEqual(["hello", "remember this"]);
  });
});

describe("abort", () => {
  it("ends a stalled model stream in well under a second, through the abort operation", async () => {
    fake.script(stall("thinking"));
    const s = await claw.session.start({ sessionKey: "stalled" });
    const running = s.prompt({ message: "hang" });
    await fake.waitForRequests(1);
    await vi.waitFor(() => expect(claw.services.sessions.isRunning(s.sessionId)).toBe(true), WAIT);
    const t0 = performance.now();
    const a = await claw.do({ op: "abort", args: { sessionKey: "stalled" } });
    expect(a).toMatchObject({ ok: true, result: { aborted: true } });
    const r = await running;
    const ms = performance.now() - t0;
    expect(r).toMatchObject({ status: "cancelled", error: { code: "cancelled" } });
    expect(ms).toBeLessThan(2000); // generous bound; typically a few ms
    await vi.waitFor(() => expect(fake.openStreams()).toBe(0), WAIT);
    expect((await s.state()).isRunning).toBe(false);
    const end = (await busPayloads(claw)).at(-1);
    expect(end).toMatchObject({ type: "agent_end", status: "cancelled" });
    console.info(`abort of a stalled stream took ${ms.toFixed(1)} ms`);
  });

  it("kills the running bash at once and leaves a usable history", async () => {
    const dir = tempDir();
    const pidFile = join(dir, "pid");
    fake.script(callBash({ script: `echo $$ > ${pidFile}; exec sleep 30` }));
    const s = await claw.session.start({ sessionKey: "kill" });
    const running = s.prompt({ message: "sleep" });
    await sawEvent("tool_execution_start");
    const pid = await pidFromFile(pidFile);
    expect(processAlive(pid)).toBe(true);
    expect(await s.abort()).toEqual({ aborted: true });
    const r = await running;
    expect(r.status).toBe("cancelled");
    expect(await waitProcessGone(pid, 3000)).toBe(true);

    // The cancelled call has a result, so the next run sends a valid history.
    fake.script(answer("fresh start"));
    const next = await s.prompt({ message: "again" });
    expect(next.status).toBe("completed");
    const input = fake.requests.at(-1)!.body.input;
    const out = input.find((i: any) => i.type === "function_call_output");
    expect(JSON.parse(out.output)).toMatchObject({ error: { code: "cancelled" } });
    expect(await s.abort()).toEqual({ aborted: false });
  });

  it("closing the claw ends a stalled run promptly", async () => {
    fake.script(stall());
    const s = await claw.session.start({ sessionKey: "closing" });
    const running = s.prompt({ message: "hang" }).then(
      (r) => r.status,
      (e) => e.code,
    );
    await fake.waitForRequests(1);
    await vi.waitFor(() => expect(claw.services.sessions.isRunning(s.sessionId)).toBe(true), WAIT);
    const t0 = performance.now();
    await claw.close();
    expect(performance.now() - t0).toBeLessThan(3000);
    // The waiting caller hears about it either way: the run cancelled, or its wait cut by shutdown.
    expect(["cancelled", "shutting_down"]).toContain(await running);
  });

  it("a run's own signal (as tasks use it) cancels it", async () => {
    fake.script(stall());
    const session = await claw.services.sessions.ensure({ sessionKey: "signal" });
    const controller = new AbortController();
    const seen: string[] = [];
    const running = claw.services.sessions.run(session.sessionId, "hang", {
      taskId: "task_1",
      signal: controller.signal,
      onEvent: (p) => seen.push(p.type as string),
    });
    expect(claw.services.sessions.isRunning(session.sessionId)).toBe(true);
    await fake.waitForRequests(1);
    controller.abort();
    const r = await running;
    expect(r.status).toBe("cancelled");
    expect(seen).toEqual(["agent_start", "message", "turn_start", "agent_end"]);
    const events = await busPayloads(claw);
    for (const e of events) expect(e.taskId).toBe("task_1");
  });
});
