/** The completion contract: each server guarantee on its own. */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { Claw } from "../../src/index.js";
import { apiClaw } from "../helpers/claw.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { completion, failReceiptInserts } from "./helpers.js";

let claw: Claw;
beforeEach(async () => {
  claw = await apiClaw();
});
afterEach(async () => {
  await claw.close();
});

const receiptCount = async (taskId: string) =>
  (await claw.services.sql.get<{ n: number }>("SELECT COUNT(*) AS n FROM receipts WHERE task_id = ?", [taskId]))!.n;

async function rejects(p: Promise<unknown>): Promise<{ code: string; details?: Record<string, unknown> }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, "expected a rejection").toBeDefined();
  return err as { code: string; details?: Record<string, unknown> };
}

/** Asserts the task and its receipts are exactly as before a rejected call. */
async function expectUnchanged(before: Awaited<ReturnType<Claw["task"]["get"]>>) {
  const after = await claw.task.get({ taskId: before.taskId, include: ["receipts", "timeline"] });
  expect({ ...after, elapsedMs: 0 }).toEqual({ ...before, elapsedMs: 0 });
}

describe("task_create", () => {
  test("creates a work task: status todo, version 1, server project by default, not executed", async () => {
    const t = await claw.task.create({ title: "Write the notes", body: "all of them" });
    expect(t).toMatchObject({
      kind: "work",
      status: "todo",
      phase: "open",
      version: 1,
      project: "test",
      title: "Write the notes",
      body: "all of them",
      replayed: false,
      sessionKey: null,
      handoff: null,
    });
    expect(t.taskId).toBe(t.jobId);
    const other = await claw.task.create({ title: "Elsewhere", project: "other" });
    expect(other.project).toBe("other");
  });

  test("same idempotency key and args → the original task with replayed: true; other args → idempotency_conflict", async () => {
    const a = await claw.task.create({ title: "Once", idempotencyKey: "k1" });
    const b = await claw.task.create({ title: "Once", idempotencyKey: "k1" });
    expect(b.taskId).toBe(a.taskId);
    expect(b.replayed).toBe(true);
    const err = await rejects(claw.task.create({ title: "Other", idempotencyKey: "k1" }));
    expect(err.code).toBe("idempotency_conflict");
    expect((await claw.task.list()).tasks).toHaveLength(1);
  });
});

describe("task_update: version", () => {
  test("a stale expectedVersion is version_conflict with currentVersion, and nothing changes", async () => {
    const t = await claw.task.create({ title: "T" });
    await claw.task.update({ taskId: t.taskId, expectedVersion: 1, status: "in_progress" });
    const before = await claw.task.get({ taskId: t.taskId, include: ["receipts", "timeline"] });
    const err = await rejects(claw.task.update({ taskId: t.taskId, expectedVersion: 1, title: "Stale edit" }));
    expect(err.code).toBe("version_conflict");
    expect(err.details?.currentVersion).toBe(2);
    await expectUnchanged(before);
  });

  test("a stale completion is rejected as version_conflict before anything is stored", async () => {
    const t = await claw.task.create({ title: "T" });
    await claw.task.update({ taskId: t.taskId, expectedVersion: 1, title: "Renamed" });
    const before = await claw.task.get({ taskId: t.taskId, include: ["receipts", "timeline"] });
    const err = await rejects(claw.task.update(completion(claw, t)));
    expect(err.code).toBe("version_conflict");
    await expectUnchanged(before);
    expect(await receiptCount(t.taskId)).toBe(0);
  });

  test("every accepted update adds exactly one to the version", async () => {
    const t = await claw.task.create({ title: "T" });
    const a = await claw.task.update({ taskId: t.taskId, expectedVersion: 1, status: "in_progress" });
    const b = await claw.task.update({ taskId: t.taskId, expectedVersion: 2, body: "more" });
    const c = await claw.task.update({ taskId: t.taskId, expectedVersion: 3, handoff: { completed: "half" } });
    expect([a.version, b.version, c.version]).toEqual([2, 3, 4]);
    expect(c.handoff).toEqual({ completed: "half", next: "", blockers: "" });
  });

  test("an update without anything to change is invalid_args", async () => {
    const t = await claw.task.create({ title: "T" });
    expect((await rejects(claw.task.update({ taskId: t.taskId, expectedVersion: 1 }))).code).toBe("invalid_args");
  });

  test("an unknown task is not_found", async () => {
    expect((await rejects(claw.task.update({ taskId: "task_nope", expectedVersion: 1, title: "x" }))).code).toBe(
      "not_found",
    );
  });
});

describe("task_update: completion", () => {
  test("a complete completion: done, handoff stored, one receipt, readback confirms", async () => {
    const t = await claw.task.create({ title: "T" });
    const done = await claw.task.update(completion(claw, t));
    expect(done).toMatchObject({
      status: "done",
      phase: "ended",
      version: 2,
      replayed: false,
      handoff: { completed: "wrote the notes", next: "review them", blockers: "" },
    });
    expect(done.endedAt).not.toBeNull();
    const back = await claw.task.get({ taskId: t.taskId, include: ["receipts"] });
    expect(back.status).toBe("done");
    expect(back.version).toBe(2);
    expect(back.receipts).toHaveLength(1);
    expect(back.receipts![0]).toMatchObject({
      sessionRef: "worker-1/run-1",
      worker: "test worker",
      work: "wrote docs/NOTES.md",
      tests: "npm test: ok",
      gitCheckpoint: "abc1234",
    });
  });

  test("missing or blank handoff.completed / handoff.next → completion_handoff_required, no change, no receipt", async () => {
    const t = await claw.task.create({ title: "T" });
    const before = await claw.task.get({ taskId: t.taskId, include: ["receipts", "timeline"] });
    const full = completion(claw, t);
    for (const handoff of [
      undefined,
      { completed: "done", next: "   " },
      { next: "review" },
      { completed: "", next: "", blockers: "" },
    ]) {
      const err = await rejects(claw.task.update({ ...full, handoff }));
      expect(err.code).toBe("completion_handoff_required");
    }
    await expectUnchanged(before);
    expect(await receiptCount(t.taskId)).toBe(0);
  });

  test("a missing receipt → completion_receipt_required, no change", async () => {
    const t = await claw.task.create({ title: "T" });
    const before = await claw.task.get({ taskId: t.taskId, include: ["receipts", "timeline"] });
    const { receipt: _r, ...noReceipt } = completion(claw, t);
    expect((await rejects(claw.task.update(noReceipt))).code).toBe("completion_receipt_required");
    const blankWork = completion(claw, t);
    blankWork.receipt.work = "  ";
    expect((await rejects(claw.task.update(blankWork))).code).toBe("completion_receipt_required");
    await expectUnchanged(before);
    expect(await receiptCount(t.taskId)).toBe(0);
  });

  test("writeContext must match the server's instance and the task's project (write_context_mismatch)", async () => {
    const t = await claw.task.create({ title: "T" });
    const before = await claw.task.get({ taskId: t.taskId, include: ["receipts", "timeline"] });
    const full = completion(claw, t);
    for (const writeContext of [
      undefined,
      { instance: "some-other-instance", project: "test" },
      { instance: claw.identity.instance, project: "other-project" },
    ]) {
      const err = await rejects(claw.task.update({ ...full, writeContext }));
      expect(err.code).toBe("write_context_mismatch");
    }
    await expectUnchanged(before);
    expect(await receiptCount(t.taskId)).toBe(0);
  });

  test("a rejected completion leaves no task change and no receipt (receipt present, handoff missing)", async () => {
    const t = await claw.task.create({ title: "T" });
    const before = await claw.task.get({ taskId: t.taskId, include: ["receipts", "timeline"] });
    await rejects(claw.task.update({ ...completion(claw, t), handoff: { completed: "x" }, title: "renamed too" }));
    await expectUnchanged(before);
    expect(await receiptCount(t.taskId)).toBe(0);
  });

  test("the task update and the receipt insert are one transaction: a failing insert rolls the update back", async () => {
    await claw.close();
    claw = await apiClaw({ log: () => {} }); // the failure below is logged as an internal error; keep the output clean
    const t = await claw.task.create({ title: "T" });
    const before = await claw.task.get({ taskId: t.taskId, include: ["receipts", "timeline"] });
    const restore = await failReceiptInserts(claw.services.sql);
    const res = await claw.do({ op: "task_update", args: completion(claw, t) });
    expect(res.ok).toBe(false);
    await expectUnchanged(before);
    // The rolled-back change was never announced: after the creation, the next event on the
    // tasks bus is the rename below, not a "done".
    const renamed = await claw.task.update({ taskId: t.taskId, expectedVersion: 1, title: "T2" });
    const events: { version: number; status: string }[] = [];
    while (events.length < 2) {
      const r = await claw.bus.read({ bus: "tasks", after: events.length, waitMs: 5000 });
      events.push(...r.events.map((e) => e.payload as { version: number; status: string }));
    }
    expect(events.map((e) => [e.version, e.status])).toEqual([
      [1, "todo"],
      [2, "todo"],
    ]);
    await restore();
    expect((await claw.task.update(completion(claw, renamed))).status).toBe("done");
  });

  test("the same receipt sent again returns the current task with replayed: true and no second receipt", async () => {
    const t = await claw.task.create({ title: "T" });
    const first = await claw.task.update(completion(claw, t));
    const again = await claw.task.update(completion(claw, t)); // a retry after a lost response: stale version, same receipt
    expect(again.replayed).toBe(true);
    expect(again.version).toBe(first.version);
    expect(again.status).toBe("done");
    expect(await receiptCount(t.taskId)).toBe(1);
  });

  test("a retried completion never appends a second receipt, however often it is retried", async () => {
    const t = await claw.task.create({ title: "T" });
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await claw.task.update(completion(claw, t)));
    expect(results.map((r) => r.replayed)).toEqual([false, true, true, true, true]);
    expect(await receiptCount(t.taskId)).toBe(1);
    expect((await claw.task.get({ taskId: t.taskId })).version).toBe(2);
  });

  test("a different receipt body under the same sessionRef → receipt_conflict, nothing changes", async () => {
    const t = await claw.task.create({ title: "T" });
    await claw.task.update(completion(claw, t));
    const before = await claw.task.get({ taskId: t.taskId, include: ["receipts", "timeline"] });
    const other = completion(claw, { ...t, version: 2 });
    other.receipt.work = "something else entirely";
    expect((await rejects(claw.task.update(other))).code).toBe("receipt_conflict");
    await expectUnchanged(before);
  });

  test("20 racing completions on one version over HTTP: exactly one wins and exactly one receipt exists", async () => {
    const server: TestServer = await startServer(claw);
    try {
      const t = await claw.task.create({ title: "Contended" });
      const bodies = Array.from({ length: 20 }, (_, i) => ({
        op: "task_update",
        args: completion(claw, t, `racer-${i}`),
        id: i,
      }));
      const responses = await Promise.all(bodies.map((b) => server.post(b)));
      const ok = responses.filter((r) => r.body.ok);
      expect(ok).toHaveLength(1);
      const codes = responses.filter((r) => !r.body.ok).map((r) => r.body.error.code);
      expect(codes).toEqual(Array(19).fill("version_conflict"));
      expect(responses.filter((r) => !r.body.ok).every((r) => r.status === 409)).toBe(true);
      expect(await receiptCount(t.taskId)).toBe(1);
      const back = await claw.task.get({ taskId: t.taskId, include: ["receipts"] });
      expect(back.version).toBe(2);
      expect(back.receipts![0]!.sessionRef).toBe(ok[0]!.body.result.receipts[0].sessionRef);
    } finally {
      await server.close(); // closes the claw too; afterEach's close is then a no-op
    }
  });
});

describe("task_update: blocked, done tasks, transitions", () => {
  test("blocked needs a non-empty handoff.blockers (blocker_required)", async () => {
    const t = await claw.task.create({ title: "T" });
    for (const handoff of [undefined, { blockers: "  " }, { completed: "half" }]) {
      expect(
        (await rejects(claw.task.update({ taskId: t.taskId, expectedVersion: 1, status: "blocked", handoff }))).code,
      ).toBe("blocker_required");
    }
    const blocked = await claw.task.update({
      taskId: t.taskId,
      expectedVersion: 1,
      status: "blocked",
      handoff: { blockers: "no database credentials" },
    });
    expect(blocked).toMatchObject({
      status: "blocked",
      phase: "waiting_human",
      version: 2,
      handoff: { blockers: "no database credentials" },
    });
    expect(blocked.latestUpdate?.text).toContain("no database credentials");
  });

  test("handoff.blockers may be empty when completing", async () => {
    const t = await claw.task.create({ title: "T" });
    const c = completion(claw, t);
    expect(c.handoff.blockers).toBe("");
    expect((await claw.task.update(c)).status).toBe("done");
  });

  test("metadata edits of a done task need no receipt", async () => {
    const t = await claw.task.create({ title: "T" });
    await claw.task.update(completion(claw, t));
    const edited = await claw.task.update({
      taskId: t.taskId,
      expectedVersion: 2,
      title: "Renamed after the fact",
      body: "typo fixed",
    });
    expect(edited).toMatchObject({ status: "done", title: "Renamed after the fact", version: 3 });
    const stillDone = await claw.task.update({
      taskId: t.taskId,
      expectedVersion: 3,
      status: "done",
      handoff: { next: "ship it" },
    });
    expect(stillDone).toMatchObject({ status: "done", version: 4, handoff: { next: "ship it" } });
    expect(await receiptCount(t.taskId)).toBe(1);
  });

  test("reopening a done task is allowed, and completing it again uses the contract", async () => {
    const t = await claw.task.create({ title: "T" });
    await claw.task.update(completion(claw, t));
    const reopened = await claw.task.update({ taskId: t.taskId, expectedVersion: 2, status: "in_progress" });
    expect(reopened).toMatchObject({ status: "in_progress", phase: "open", endedAt: null, version: 3 });
    const { receipt: _r, ...noReceipt } = completion(claw, reopened);
    expect((await rejects(claw.task.update(noReceipt))).code).toBe("completion_receipt_required");
    const again = await claw.task.update(completion(claw, reopened, "worker-2/run-1"));
    expect(again).toMatchObject({ status: "done", version: 4 });
    expect(await receiptCount(t.taskId)).toBe(2);
    const todo = await claw.task.update({ taskId: t.taskId, expectedVersion: 4, status: "todo" });
    expect(todo.status).toBe("todo");
  });

  test("nonsense transitions are invalid_transition and change nothing", async () => {
    const t = await claw.task.create({ title: "T" });
    for (const status of ["completed", "completed_no_summary", "error"] as const) {
      expect((await rejects(claw.task.update({ taskId: t.taskId, expectedVersion: 1, status }))).code).toBe(
        "invalid_transition",
      );
    }
    const cancelled = await claw.task.update({ taskId: t.taskId, expectedVersion: 1, status: "cancelled" });
    expect(cancelled.status).toBe("cancelled");
    expect((await rejects(claw.task.update({ ...completion(claw, cancelled) }))).code).toBe("invalid_transition");
    expect(
      (
        await rejects(
          claw.task.update({ taskId: t.taskId, expectedVersion: 2, status: "blocked", handoff: { blockers: "x" } }),
        )
      ).code,
    ).toBe("invalid_transition");
    expect(await receiptCount(t.taskId)).toBe(0);
    expect((await claw.task.get({ taskId: t.taskId })).version).toBe(2);
  });

  test("get_task and task_get are the same operation; jobId names the task too", async () => {
    const t = await claw.task.create({ title: "T" });
    const viaAlias = await claw.do({ op: "task_get", args: { jobId: t.taskId } });
    expect(viaAlias.ok && (viaAlias.result as { taskId: string }).taskId).toBe(t.taskId);
  });
});

describe("a refused completion names every unmet requirement at once", () => {
  test("nothing given: handoff, receipt and writeContext in the guide's order, one round trip", async () => {
    const t = await claw.task.create({ title: "All missing" });
    const err = await rejects(claw.task.update({ taskId: t.taskId, expectedVersion: 1, status: "done" }));
    expect(err.code).toBe("completion_handoff_required");
    expect(err.details?.missing).toEqual(["handoff.completed", "handoff.next", "receipt", "writeContext"]);
    // The guide lists them in the same order.
    const guide = claw.doc({ section: "completion" });
    const at = ["`handoff.completed`", "`handoff.next`", "one `receipt", "`writeContext {"].map((m) =>
      guide.indexOf(m),
    );
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  test("a wrong writeContext names the field that differs and never echoes the expected values", async () => {
    const t = await claw.task.create({ title: "Wrong server" });
    const good = completion(claw, t);
    const wrong = { ...good, writeContext: { instance: "some-other-instance", project: "test" } };
    const e1 = (await claw.call("task_update", wrong).then(
      () => undefined,
      (e) => e,
    )) as { code: string; message: string; details: Record<string, unknown> };
    expect(e1.code).toBe("write_context_mismatch");
    expect(e1.details).toEqual({ missing: ["writeContext.instance"] });
    expect(e1.message).not.toContain(claw.identity.instance);
    const both = { ...good, writeContext: { instance: "x", project: "y" }, handoff: undefined };
    const e2 = await rejects(claw.task.update(both));
    expect(e2.details?.missing).toEqual([
      "handoff.completed",
      "handoff.next",
      "writeContext.instance",
      "writeContext.project",
    ]);
    expect(JSON.stringify(e2)).not.toContain(claw.identity.instance);
  });
});
