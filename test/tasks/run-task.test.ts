/** run_task: returns at once, fails fast without a key, idempotency, per-session FIFO, cancel. */
import { join } from "node:path";
import { afterEach, expect, test, vi } from "vitest";
import { answer, callBash } from "../fixtures/fake-responses.js";
import { apiClaw, tempDir } from "../helpers/claw.js";
import { processAlive, waitProcessGone } from "../helpers/process.js";
import { WAIT } from "../helpers/wait.js";
import { fixture, gate, readPid, taskClaw } from "./helpers.js";

let fx: Awaited<ReturnType<typeof fixture>>;
afterEach(async () => {
  await fx?.close();
});

test("run_task returns at once: todo, version 1, continuePolling, nextAction check_task, replayed false", async () => {
  fx = await fixture();
  const g = gate();
  fx.fake.script(g.turn);
  const claw = fx.track(await taskClaw(fx.fake), (c) => c.close());
  fx.track(g, (x) => x.open());
  const r = await claw.task.run({ prompt: "Say hello", sessionKey: "s1" });
  expect(r).toMatchObject({
    status: "todo",
    version: 1,
    replayed: false,
    continuePolling: true,
    sessionKey: "s1",
    nextAction: { op: "check_task", args: { taskId: r.taskId } },
  });
  expect(r.jobId).toBe(r.taskId);
  expect(r.sessionId).toMatch(/^ses_/);
  await g.reached; // the run really started, without anyone polling
  const t = await claw.task.get({ taskId: r.taskId, include: ["prompt"] });
  expect(t).toMatchObject({
    status: "in_progress",
    kind: "run",
    title: "Say hello",
    prompt: "Say hello",
    project: "test",
  });
  g.open("hello");
  const done = await claw.task.check({ taskId: r.taskId, waitMs: 10_000 });
  expect(done.task).toMatchObject({ status: "completed", summary: "hello", phase: "ended" });
});

test("run_task without the provider's key fails fast with provider_auth_missing and creates nothing", async () => {
  fx = await fixture();
  const claw = fx.track(await apiClaw({ baseURL: fx.fake.url, env: { PATH: process.env.PATH } }), (c) => c.close());
  const res = await claw.do({ op: "run_task", args: { prompt: "x", sessionKey: "nokey" } });
  expect(res.ok).toBe(false);
  expect(!res.ok && res.error.code).toBe("provider_auth_missing");
  expect(!res.ok && res.error.message).toContain("OPENROUTER_API_KEY");
  expect((await claw.task.list()).tasks).toHaveLength(0);
  expect(fx.fake.requests).toHaveLength(0);
});

test("a run whose last message has no text ends completed_no_summary", async () => {
  fx = await fixture();
  fx.fake.script(answer(""));
  const claw = fx.track(await taskClaw(fx.fake), (c) => c.close());
  const r = await claw.task.run({ prompt: "be silent" });
  const c = await claw.task.check({ taskId: r.taskId, waitMs: 10_000 });
  expect(c.task).toMatchObject({ status: "completed_no_summary", summary: null });
  expect(c.nextAction).toBeNull();
});

test("a failing model ends the task as error with a structured error", async () => {
  fx = await fixture();
  fx.fake.setDefault({ kind: "fail", status: 500, message: "upstream exploded" });
  const claw = fx.track(await taskClaw(fx.fake), (c) => c.close());
  const r = await claw.task.run({ prompt: "x", sessionKey: "failing" });
  const c = await claw.task.check({ taskId: r.taskId, waitMs: 10_000 });
  expect(c.task.status).toBe("error");
  expect(c.task.error).toMatchObject({
    code: expect.any(String),
    message: expect.any(String),
    category: expect.any(String),
  });
  expect(c.task.error!.suggestedRecovery).toContain("failing");
});

test("run_task with the same idempotency key twice → one task (replayed: true); other args → idempotency_conflict", async () => {
  fx = await fixture();
  const claw = fx.track(await taskClaw(fx.fake), (c) => c.close());
  const a = await claw.task.run({ prompt: "Count TODOs", sessionKey: "idem", idempotencyKey: "job-1" });
  const b = await claw.task.run({ prompt: "Count TODOs", sessionKey: "idem", idempotencyKey: "job-1" });
  expect(b.taskId).toBe(a.taskId);
  expect([a.replayed, b.replayed]).toEqual([false, true]);
  const other = await claw.do({
    op: "run_task",
    args: { prompt: "Something else", sessionKey: "idem", idempotencyKey: "job-1" },
  });
  expect(!other.ok && other.error.code).toBe("idempotency_conflict");
  await claw.task.check({ taskId: a.taskId, waitMs: 10_000 });
  const list = await claw.task.list();
  expect(list.tasks).toHaveLength(1);
  expect(fx.fake.requests).toHaveLength(1); // ran once
  const c = await claw.task.run({ prompt: "Count TODOs", sessionKey: "idem", idempotencyKey: "job-1" });
  expect(c).toMatchObject({
    taskId: a.taskId,
    replayed: true,
    status: "completed",
    continuePolling: false,
    nextAction: null,
  });
});

test("two tasks on one session run one at a time, in order; the later one waits as todo/queued", async () => {
  fx = await fixture();
  const g = gate();
  fx.fake.script(g.turn, answer("second done"));
  const claw = fx.track(await taskClaw(fx.fake), (c) => c.close());
  fx.track(g, (x) => x.open());
  const first = await claw.task.run({ prompt: "first", sessionKey: "fifo" });
  const second = await claw.task.run({ prompt: "second", sessionKey: "fifo" });
  await g.reached;
  expect((await claw.task.get({ taskId: first.taskId })).status).toBe("in_progress");
  expect(await claw.task.get({ taskId: second.taskId })).toMatchObject({
    status: "todo",
    phase: "queued",
    startedAt: null,
  });
  expect(fx.fake.requests).toHaveLength(1);
  g.open("first done");
  const b = await claw.task.check({ taskId: second.taskId, waitMs: 10_000 });
  const a = await claw.task.get({ taskId: first.taskId });
  expect(a).toMatchObject({ status: "completed", summary: "first done" });
  expect(b.task).toMatchObject({ status: "completed", summary: "second done" });
  expect(b.task.startedAt!).toBeGreaterThanOrEqual(a.endedAt!);
  // the second model call saw the first run's history: they ran in order in one session
  const input = JSON.stringify(fx.fake.requests[1]!.body.input);
  expect(input.indexOf("first")).toBeLessThan(input.indexOf("second"));
});

test("tasks of different sessions run concurrently", async () => {
  fx = await fixture();
  const g1 = gate();
  const g2 = gate();
  fx.fake.script(g1.turn, g2.turn);
  const claw = fx.track(await taskClaw(fx.fake), (c) => c.close());
  fx.track(g1, (x) => x.open());
  fx.track(g2, (x) => x.open());
  const a = await claw.task.run({ prompt: "a", sessionKey: "left" });
  const b = await claw.task.run({ prompt: "b", sessionKey: "right" });
  await Promise.all([g1.reached, g2.reached]);
  expect((await claw.task.get({ taskId: a.taskId })).status).toBe("in_progress");
  expect((await claw.task.get({ taskId: b.taskId })).status).toBe("in_progress");
});

test("cancel_task on a running task kills its bash (the pid is gone) and ends the run as cancelled", async () => {
  fx = await fixture();
  const dir = tempDir();
  const pidFile = join(dir, "sleep.pid");
  fx.fake.script(callBash({ script: `sleep 60 & echo $! > ${pidFile}; wait` }), answer("never reached"));
  const claw = fx.track(await taskClaw(fx.fake), (c) => c.close());
  const r = await claw.task.run({ prompt: "sleep for a minute", sessionKey: "cancel-me" });
  const pid = await readPid(pidFile);
  expect(processAlive(pid)).toBe(true);
  // Progress is recorded as the run reports it, which may land a moment after bash started.
  await vi.waitFor(async () => expect((await claw.task.get({ taskId: r.taskId })).phase).toBe("running_tool"), WAIT);
  const running = await claw.task.get({ taskId: r.taskId });
  expect(running).toMatchObject({ status: "in_progress", phase: "running_tool" });
  expect(running.latestUpdate?.text).toContain("running bash: sleep 60");
  const cancelled = await claw.task.cancel({ taskId: r.taskId });
  expect(cancelled).toMatchObject({ status: "cancelled", phase: "ended" });
  expect(await waitProcessGone(pid)).toBe(true);
  expect(claw.services.sessions.isRunning(r.sessionId)).toBe(false);
  const c = await claw.task.check({ taskId: r.taskId, waitMs: 1000 });
  expect(c).toMatchObject({ isTerminal: true, continuePolling: false, nextAction: null });
  expect(c.task.status).toBe("cancelled");
  // the session is free again for the next task
  const next = await claw.task.run({ prompt: "again", sessionKey: "cancel-me" });
  expect((await claw.task.check({ taskId: next.taskId, waitMs: 10_000 })).task.status).toBe("completed");
});

test("cancel_task on a queued task just cancels it; the queue goes on; cancelling an ended task changes nothing", async () => {
  fx = await fixture();
  const g = gate();
  fx.fake.script(g.turn, answer("third"));
  const claw = fx.track(await taskClaw(fx.fake), (c) => c.close());
  fx.track(g, (x) => x.open());
  const first = await claw.task.run({ prompt: "first", sessionKey: "q" });
  const second = await claw.task.run({ prompt: "second", sessionKey: "q" });
  const third = await claw.task.run({ prompt: "third", sessionKey: "q" });
  await g.reached;
  const c = await claw.task.cancel({ taskId: second.taskId });
  expect(c).toMatchObject({ status: "cancelled", startedAt: null, version: 2 });
  g.open("first");
  expect((await claw.task.check({ taskId: third.taskId, waitMs: 10_000 })).task.summary).toBe("third");
  expect((await claw.task.get({ taskId: first.taskId })).status).toBe("completed");
  expect(fx.fake.requests).toHaveLength(2); // the cancelled task never reached the model
  const again = await claw.task.cancel({ taskId: first.taskId });
  expect(again).toMatchObject({
    status: "completed",
    version: (await claw.task.get({ taskId: first.taskId })).version,
  });
});

test("a task's run reports progress: phase, latestUpdate and a compact timeline", async () => {
  fx = await fixture();
  fx.fake.script(callBash({ script: "echo one\necho two" }), answer("finished the job"));
  const claw = fx.track(await taskClaw(fx.fake), (c) => c.close());
  const r = await claw.task.run({ prompt: "x" });
  await claw.task.check({ taskId: r.taskId, waitMs: 10_000 });
  const t = await claw.task.get({ taskId: r.taskId, include: ["timeline"] });
  const texts = t.timeline!.map((e) => e.text);
  expect(texts[0]).toContain("created");
  expect(texts).toContain("running bash: echo one");
  expect(texts).toContain("assistant: finished the job");
  expect(texts.at(-1)).toBe("run ended: completed");
  expect(t.timeline!.map((e) => e.version)).toEqual([...t.timeline!.map((e) => e.version)].sort((x, y) => x - y));
  expect(t.latestUpdate?.text).toBe("finished the job");
  expect(t.elapsedMs).toBeGreaterThanOrEqual(0);
  expect(t.elapsedMs).toBe(t.endedAt! - t.createdAt);
  // The answer's progress went with the run's end: one write, one version, for both lines.
  const [answerLine, endLine] = t.timeline!.slice(-2);
  expect(answerLine).toMatchObject({ text: "assistant: finished the job", version: t.version });
  expect(endLine).toMatchObject({ text: "run ended: completed", version: t.version });
});

test("the timeline stays bounded on long runs", async () => {
  fx = await fixture();
  const calls = Array.from({ length: 40 }, (_, i) => callBash({ script: `echo ${i}` }));
  fx.fake.script(...calls, answer("many steps"));
  const claw = fx.track(await taskClaw(fx.fake), (c) => c.close());
  const r = await claw.task.run({ prompt: "many steps" });
  await claw.task.check({ taskId: r.taskId, waitMs: 20_000 });
  const t = await claw.task.get({ taskId: r.taskId, include: ["timeline"] });
  expect(t.status).toBe("completed");
  expect(t.timeline!.length).toBeLessThanOrEqual(50);
  expect(t.timeline![0]!.text).toContain("created");
  expect(t.timeline!.at(-1)!.text).toBe("run ended: completed");
});

test("list_tasks: filters, counts per status, newest first, cursor paging, limit bounds", async () => {
  fx = await fixture();
  const claw = fx.track(await taskClaw(fx.fake), (c) => c.close());
  const ids: string[] = [];
  for (let i = 0; i < 7; i++)
    ids.push((await claw.task.create({ title: `work ${i}`, project: i < 5 ? "p1" : "p2" })).taskId);
  const run = await claw.task.run({ prompt: "run one", sessionKey: "lister", project: "p1" });
  await claw.task.check({ taskId: run.taskId, waitMs: 10_000 });
  await claw.task.update({ taskId: ids[0]!, expectedVersion: 1, status: "blocked", handoff: { blockers: "waiting" } });

  const all = await claw.task.list({ project: "p1" });
  expect(all.tasks.map((t) => t.taskId)).toEqual([run.taskId, ...ids.slice(0, 5).reverse()]);
  expect(all.counts).toMatchObject({ todo: 4, blocked: 1, completed: 1, done: 0 });
  expect((await claw.task.list({ status: "blocked" })).tasks.map((t) => t.taskId)).toEqual([ids[0]]);
  expect((await claw.task.list({ status: ["blocked", "completed"] })).tasks).toHaveLength(2);
  expect((await claw.task.list({ active: false })).tasks.map((t) => t.taskId)).toEqual([run.taskId]);
  expect((await claw.task.list({ active: true, project: "p2" })).tasks).toHaveLength(2);
  expect((await claw.task.list({ sessionKey: "lister" })).tasks.map((t) => t.taskId)).toEqual([run.taskId]);

  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await claw.task.list({ limit: 3, cursor });
    seen.push(...page.tasks.map((t) => t.taskId));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  expect(seen).toHaveLength(8);
  expect(new Set(seen).size).toBe(8);

  for (const limit of [0, 501]) expect((await claw.do({ op: "list_tasks", args: { limit } })).ok).toBe(false);
  const bad = await claw.do({ op: "list_tasks", args: { cursor: "garbage" } });
  expect(!bad.ok && bad.error.code).toBe("invalid_args");
});

test("TaskRow cuts the summary to 500 characters and says so", async () => {
  fx = await fixture();
  const long = "x".repeat(1200);
  fx.fake.script(answer(long));
  const claw = fx.track(await taskClaw(fx.fake), (c) => c.close());
  const r = await claw.task.run({ prompt: "long answer" });
  await claw.task.check({ taskId: r.taskId, waitMs: 10_000 });
  const row = (await claw.task.list()).tasks[0]!;
  expect(row.summary).toHaveLength(500);
  expect(row.summaryTruncated).toBe(true);
  expect((await claw.task.get({ taskId: r.taskId })).summary).toHaveLength(1200);
});
