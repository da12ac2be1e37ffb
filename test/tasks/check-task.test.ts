/** check_task: the server-side wait of the run contract and its edge cases. */
import { afterEach, expect, test, vi } from "vitest";
import type { Claw } from "../../src/index.js";
import { answer, callBash } from "../fixtures/fake-responses.js";
import { REMOTE } from "../helpers/claw.js";
import { WAIT } from "../helpers/wait.js";
import { fixture, type Gate, gate, taskClaw } from "./helpers.js";

let fx: Awaited<ReturnType<typeof fixture>>;
afterEach(async () => {
  await fx?.close();
});

/** A claw with one task held in_progress by a gated model turn. */
async function runningTask(): Promise<{ claw: Claw; taskId: string; g: Gate }> {
  fx = await fixture();
  const g = gate("the answer");
  fx.fake.script(g.turn);
  const claw = fx.track(await taskClaw(fx.fake), (c) => c.close());
  fx.track(g, (x) => x.open());
  const r = await claw.task.run({ prompt: "think hard", sessionKey: "waiter" });
  await g.reached;
  // The run's progress is recorded as it reports it, which on a network store may land just
  // after the model call went out: wait for its last report before the call (the turn's start),
  // after which nothing writes the task until the gate opens.
  await vi.waitFor(async () => {
    const t = await claw.task.get({ taskId: r.taskId });
    expect(t.phase).toBe("waiting_model");
    expect(t.latestUpdate?.text).toMatch(/^waiting for the model/);
  }, WAIT);
  return { claw, taskId: r.taskId, g };
}

/** Waits until a check_task has counted its poll of `taskId`: its wait is then in place (it listens before it reads). */
const waitingOn = (claw: Claw, taskId: string) =>
  vi.waitFor(async () => expect((await claw.task.get({ taskId })).pollCount).toBeGreaterThanOrEqual(1), WAIT);

const telemetryOf = async (claw: Claw, taskId: string) =>
  (await claw.task.telemetry({ taskId, op: "check_task" })).records;

test("the default wait window is 45 s (a caller going away ends only its wait)", async () => {
  const { claw, taskId } = await runningTask();
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 300); // well past 100 ms of waiting, even when the call travels to a server first
  await expect(claw.task.check({ taskId }, { signal: ac.signal })).rejects.toMatchObject({ name: "AbortError" });
  // The server's side of the wait ends by itself (on a server, after cancel_call arrives).
  const [rec] = await vi.waitFor(async () => {
    const recs = await telemetryOf(claw, taskId);
    expect(recs).toHaveLength(1);
    return recs;
  });
  expect(rec!.waitAskedMs).toBe(45_000);
  expect(rec!.waitedMs).toBeGreaterThanOrEqual(100);
  expect(rec!.waitedMs).toBeLessThan(45_000);
});

test("an aborted call rejects with the signal's reason, as fetch does, and its wait still ends", async () => {
  const { claw, taskId } = await runningTask();
  // Aborted before the call: rejected without a snapshot.
  const before = await claw.task.check({ taskId }, { signal: AbortSignal.abort() }).then(
    (r) => r,
    (err: unknown) => err,
  );
  expect(before).toBeInstanceOf(DOMException);
  expect(before).toMatchObject({ name: "AbortError" });
  // Aborted during the wait, with a reason of the caller's own: that very value.
  const mine = new Error("the user navigated away");
  const ac = new AbortController();
  const pending = claw.task.check({ taskId, waitMs: 60_000 }, { signal: ac.signal });
  await vi.waitFor(() => expect(claw.services.tasks.notifier.size).toBe(1));
  ac.abort(mine);
  await expect(pending).rejects.toBe(mine);
  await vi.waitFor(() => expect(claw.services.tasks.notifier.size).toBe(0)); // the wait was abandoned there too
  expect((await claw.task.get({ taskId })).status).toBe("in_progress");
});

test("an aborted wait (client gone) leaves the task running, and it still completes", async () => {
  const { claw, taskId, g } = await runningTask();
  const ac = new AbortController();
  const pending = claw.task.check({ taskId, waitMs: 60_000 }, { signal: ac.signal });
  ac.abort();
  await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  await vi.waitFor(() => expect(claw.services.tasks.notifier.size).toBe(0)); // the waiter was removed
  expect((await claw.task.get({ taskId })).status).toBe("in_progress");
  g.open("still done");
  expect((await claw.task.check({ taskId, waitMs: 10_000 })).task).toMatchObject({
    status: "completed",
    summary: "still done",
  });
});

test("a negative waitMs is clamped to 0 and a huge one to 600 s; NaN or a non-number is invalid_args", async () => {
  const { claw, taskId } = await runningTask();
  const neg = await claw.task.check({ taskId, waitMs: -5000 });
  expect(neg).toMatchObject({ waitedMs: 0, continuePolling: true });
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 50); // the caller goes away while its clamped wait goes on
  await expect(claw.task.check({ taskId, waitMs: 1e15 }, { signal: ac.signal })).rejects.toThrow();
  const recs = await vi.waitFor(async () => {
    const all = await telemetryOf(claw, taskId);
    expect(all).toHaveLength(2);
    return all;
  });
  expect(recs.map((r) => r.waitAskedMs)).toEqual([600_000, 0]);
  for (const waitMs of [Number.NaN, Number.POSITIVE_INFINITY, "10s", null]) {
    const res = await claw.do({ op: "check_task", args: { taskId, waitMs } });
    expect(!res.ok && res.error.code).toBe("invalid_args");
  }
  expect((await claw.task.get({ taskId })).status).toBe("in_progress"); // the process is fine, the task untouched
});

test("a timed-out wait is non-terminal, keeps the same nextAction, and re-polling creates no duplicate", async () => {
  const { claw, taskId } = await runningTask();
  const first = await claw.task.check({ taskId, waitMs: 100 });
  expect(first).toMatchObject({
    isTerminal: false,
    isActionable: false,
    continuePolling: true,
    nextAction: { op: "check_task", args: { taskId } },
  });
  expect(first.waitedMs).toBeGreaterThanOrEqual(90);
  const second = await claw.do({ op: first.nextAction!.op, args: { ...first.nextAction!.args, waitMs: 100 } });
  expect(second.ok && (second.result as { nextAction: unknown }).nextAction).toEqual(first.nextAction);
  expect((await claw.task.list()).tasks).toHaveLength(1);
  expect(fx.fake.requests).toHaveLength(1);
});

test("pollCount counts check_task calls (and pollNumber tells which one this is); get_task does not count", async () => {
  const { claw, taskId } = await runningTask();
  for (let i = 1; i <= 3; i++) expect((await claw.task.check({ taskId, waitMs: 0 })).pollNumber).toBe(i);
  await claw.task.get({ taskId });
  const t = await claw.task.get({ taskId });
  expect(t.pollCount).toBe(3);
  expect((await claw.task.check({ taskId, waitMs: 0 })).task.pollCount).toBe(4);
});

test("check_task calls at once, on several tasks: each gets its own poll number, and every call is counted", async () => {
  const { claw, taskId } = await runningTask();
  const { taskId: other } = await claw.task.create({ title: "counted too" });
  // On PostgreSQL the calls that come while one count is on its way go in one statement.
  const ids = Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? other : taskId));
  const checks = await Promise.all(ids.map((id) => claw.task.check({ taskId: id, waitMs: 0 })));
  const numbers = (id: string) =>
    checks
      .filter((c) => c.task.taskId === id)
      .map((c) => c.pollNumber)
      .sort((a, b) => a - b);
  expect(numbers(taskId)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  expect(numbers(other)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
  expect((await claw.task.get({ taskId })).pollCount).toBe(20);
  expect((await claw.task.get({ taskId: other })).pollCount).toBe(10);
  // An unknown task among them fails alone.
  const mixed = await Promise.allSettled([
    claw.task.check({ taskId, waitMs: 0 }),
    claw.task.check({ taskId: "task_nope", waitMs: 0 }),
    claw.task.check({ taskId: other, waitMs: 0 }),
  ]);
  expect(mixed.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
  expect((mixed[1] as PromiseRejectedResult).reason).toMatchObject({ code: "not_found" });
});

test("polls do not change the version", async () => {
  const { claw, taskId } = await runningTask();
  const v = (await claw.task.get({ taskId })).version;
  await claw.task.check({ taskId, waitMs: 0 });
  await claw.task.check({ taskId, waitMs: 0 });
  expect((await claw.task.get({ taskId })).version).toBe(v);
});

test("a check_task waiting when the task completes returns promptly", async () => {
  const { claw, taskId, g } = await runningTask();
  const pending = claw.task.check({ taskId, waitMs: 60_000 });
  await waitingOn(claw, taskId);
  g.open("done now");
  const r = await pending;
  const returnedAt = Date.now();
  expect(r.task.status).toBe("completed");
  expect(returnedAt - r.task.endedAt!).toBeLessThan(1000); // generous: it is woken by the change itself
  expect(r.waitedMs).toBeLessThan(10_000);
});

test("a terminal task returns at once, whatever the wait asked", async () => {
  const { claw, taskId, g } = await runningTask();
  g.open();
  await claw.task.check({ taskId, waitMs: 10_000 });
  const started = Date.now();
  const r = await claw.task.check({ taskId, waitMs: 600_000 });
  expect(Date.now() - started).toBeLessThan(1000);
  expect(r).toMatchObject({ waitedMs: 0, isTerminal: true, continuePolling: false, nextAction: null });
});

test('until "update" returns on the next new version; "settled" ignores ordinary progress', async () => {
  fx = await fixture();
  fx.fake.script(callBash({ script: "sleep 1.5" }), answer("slept"));
  const claw = fx.track(await taskClaw(fx.fake), (c) => c.close());
  const r = await claw.task.run({ prompt: "sleep a bit" });
  const v = r.version;
  const settled = claw.task.check({ taskId: r.taskId, waitMs: 600 });
  const update = await claw.task.check({ taskId: r.taskId, waitMs: 10_000, until: "update" });
  expect(update.task.version).toBeGreaterThan(v);
  expect(update.continuePolling).toBe(true);
  const s = await settled;
  expect(s.task.status).toBe("in_progress"); // progress happened meanwhile (bash started) but did not end the wait
  expect(s.task.version).toBeGreaterThan(v);
  expect(s.waitedMs).toBeGreaterThanOrEqual(550);
  // afterVersion: returns at once when a newer version already exists
  const at = await claw.task.check({ taskId: r.taskId, waitMs: 10_000, until: "update", afterVersion: v });
  expect(at.waitedMs).toBe(0);
  expect((await claw.task.check({ taskId: r.taskId, waitMs: 10_000 })).task.summary).toBe("slept");
});

test("nextAction is null exactly when terminal; check_task while todo/in_progress; the resuming op when actionable", async () => {
  fx = await fixture();
  const claw = fx.track(await taskClaw(fx.fake), (c) => c.close());
  const w = await claw.task.create({ title: "tracked" });
  const todo = await claw.task.check({ taskId: w.taskId, waitMs: 0 });
  expect(todo).toMatchObject({
    continuePolling: true,
    isTerminal: false,
    nextAction: { op: "check_task", args: { taskId: w.taskId } },
  });
  await claw.task.update({ taskId: w.taskId, expectedVersion: 1, status: "in_progress" });
  expect((await claw.task.check({ taskId: w.taskId, waitMs: 0 })).nextAction).toEqual({
    op: "check_task",
    args: { taskId: w.taskId },
  });
  await claw.task.update({
    taskId: w.taskId,
    expectedVersion: 2,
    status: "needs_human",
    handoff: { next: "a human decides" },
  });
  const actionable = await claw.task.check({ taskId: w.taskId, waitMs: 10_000 });
  expect(actionable).toMatchObject({ isActionable: true, isTerminal: false, continuePolling: false, waitedMs: 0 });
  expect(actionable.nextAction).toEqual({
    op: "task_update",
    args: { taskId: w.taskId, expectedVersion: 3, status: "in_progress" },
  });
  const cancelled = await claw.task.cancel({ taskId: w.taskId });
  expect(cancelled.status).toBe("cancelled");
  expect((await claw.task.check({ taskId: w.taskId, waitMs: 0 })).nextAction).toBeNull();
});

test("check_task on an unknown task is not_found and never creates one", async () => {
  fx = await fixture();
  const claw = fx.track(await taskClaw(fx.fake), (c) => c.close());
  const res = await claw.do({ op: "check_task", args: { taskId: "task_missing", waitMs: 100 } });
  expect(!res.ok && res.error.code).toBe("not_found");
  const none = await claw.do({ op: "check_task", args: {} });
  expect(!none.ok && none.error.code).toBe("invalid_args");
  expect((await claw.task.list()).tasks).toHaveLength(0);
});

test("closing the claw answers pending check_task calls with an error, not a snapshot taken for an answer", async () => {
  const { claw, taskId } = await runningTask();
  const pending = claw.task.check({ taskId, waitMs: 60_000 });
  const outcome = pending.then(
    () => undefined,
    (err: unknown) => err,
  );
  await waitingOn(claw, taskId);
  const started = Date.now();
  await claw.close();
  const err = await outcome;
  expect(Date.now() - started).toBeLessThan(10_000);
  // A local claw is the server shutting down (retry against the next one); a remote client that
  // closes is its caller going away.
  expect(err).toMatchObject(REMOTE ? { code: "cancelled" } : { code: "shutting_down", retryable: true });
});
