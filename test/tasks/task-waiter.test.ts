/** check_task's wait, from inside: a waiter wakes after the commit, with the task as committed. */
import { join } from "node:path";
import { afterEach, expect, test, vi } from "vitest";
import type { Claw } from "../../src/index.js";
import { memClaw, tempDir } from "../helpers/claw.js";
import { WAIT } from "../helpers/wait.js";

let claw: Claw | undefined;
afterEach(async () => {
  await claw?.close();
  claw = undefined;
});

test("a check_task waiter wakes only once the change has committed, with the task as that commit wrote it", async () => {
  claw = memClaw();
  const { taskId } = await claw.task.create({ title: "wait for me" });
  let answered: Awaited<ReturnType<Claw["task"]["check"]>> | undefined;
  const waiting = claw.task.check({ taskId, waitMs: 20_000 }).then((r) => (answered = r));
  await vi.waitFor(async () => {
    expect((await claw!.task.get({ taskId })).pollCount).toBeGreaterThanOrEqual(1);
    expect(claw!.services.tasks.notifier.size).toBeGreaterThan(0);
  }, WAIT);
  const store = claw.services.tasks.store;
  let written: number | undefined;
  await store.tx(async (tx) => {
    const t = await tx.change(taskId, () => ({
      patch: { status: "cancelled", phase: "ended" },
      timeline: "cancelled",
    }));
    written = t!.version;
    // The change is written but not committed: several turns of the event loop, and no answer
    // (a deliberate wait: it shows that something does not happen).
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 10));
    expect(answered).toBeUndefined();
  });
  const r = await waiting;
  expect(r.task.status).toBe("cancelled");
  expect(r.task.version).toBe(written);
  expect(r.isTerminal).toBe(true);
  expect((await claw.task.get({ taskId })).version).toBe(written);
});

test("a change rolled back wakes no waiter", async () => {
  claw = memClaw();
  const { taskId } = await claw.task.create({ title: "stay" });
  const ac = new AbortController();
  let answered = false;
  const waiting = claw.task.check({ taskId, waitMs: 20_000 }, { signal: ac.signal }).then((r) => {
    answered = true;
    return r;
  });
  await vi.waitFor(() => expect(claw!.services.tasks.notifier.size).toBeGreaterThan(0), WAIT);
  await expect(
    claw.services.tasks.store.tx(async (tx) => {
      await tx.change(taskId, () => ({ patch: { status: "cancelled", phase: "ended" } }));
      throw new Error("changed my mind");
    }),
  ).rejects.toThrow("changed my mind");
  // Several turns of the event loop after the rollback, and no answer (a deliberate wait: it shows
  // that something does not happen).
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 10));
  expect(answered).toBe(false);
  ac.abort();
  await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
  expect(answered).toBe(false);
  const r = { task: await claw.task.get({ taskId }) };
  expect(r.task.status).toBe("todo");
  expect(r.task.version).toBe(1);
});

test("telemetry recorded just before close is written before the database closes", async () => {
  const db = join(tempDir(), "tele.db");
  claw = memClaw({ db });
  const { taskId } = await claw.task.create({ title: "counted" });
  await claw.task.get({ taskId });
  await claw.close(); // no list in between: the records are still queued when close starts
  claw = memClaw({ db });
  const ops = (await claw.task.telemetry({ taskId })).records.map((r) => r.op);
  expect(ops).toEqual(["get_task", "task_create"]);
});
