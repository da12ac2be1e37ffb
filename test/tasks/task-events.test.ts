/** Task events on the `tasks` bus and task.watch, through the typed API (local and remote). */
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import type { Claw, Task } from "../../src/index.js";
import { apiClaw } from "../helpers/claw.js";
import { WAIT } from "../helpers/wait.js";
import { completion } from "./helpers.js";

let claw: Claw;
beforeEach(async () => {
  claw = await apiClaw();
});
afterEach(async () => {
  await claw.close();
});

/** The payloads on the tasks bus once there are `n` (events follow their change's commit). */
async function taskEvents(n: number): Promise<any[]> {
  const events: any[] = [];
  while (events.length < n) {
    const r = await claw.bus.read({ bus: "tasks", after: events.length, waitMs: 5000 });
    events.push(...r.events.map((e) => e.payload));
  }
  return events;
}

test("every accepted change is published to the tasks bus with status, phase, version and latest update", async () => {
  const t = await claw.task.create({ title: "tracked", project: "p1" });
  await claw.task.update({ taskId: t.taskId, expectedVersion: 1, status: "in_progress" });
  await expect(claw.task.update({ taskId: t.taskId, expectedVersion: 1, title: "stale" })).rejects.toMatchObject({
    code: "version_conflict",
  });
  await claw.task.update({ taskId: t.taskId, expectedVersion: 2, title: "renamed" });
  await claw.task.update({ taskId: t.taskId, expectedVersion: 3, status: "blocked", handoff: { blockers: "x" } });
  const events = await taskEvents(4);
  expect(events.map((e) => e.version)).toEqual([1, 2, 3, 4]); // the refused update published nothing
  const now = await claw.task.get({ taskId: t.taskId });
  expect(events[3]).toMatchObject({ status: "blocked", phase: now.phase, latestUpdate: now.latestUpdate });
  expect(events[0]).toMatchObject({ type: "task", taskId: t.taskId, sessionKey: null, project: "p1", status: "todo" });
  expect(events[1]).toMatchObject({ status: "in_progress", version: 2 });
  for (const e of events) {
    expect(Object.keys(e).sort()).toEqual(
      ["type", "taskId", "sessionKey", "project", "status", "phase", "version", "latestUpdate", "at"].sort(),
    );
    expect(typeof e.at).toBe("number");
  }
});

test("task.watch yields the current snapshot, one per later change, and ends after the terminal one", async () => {
  const t = await claw.task.create({ title: "watched" });
  const seen: Task[] = [];
  const watching = (async () => {
    for await (const snap of claw.task.watch({ taskId: t.taskId })) seen.push(snap);
  })();
  await vi.waitFor(() => expect(seen.length).toBeGreaterThanOrEqual(1), WAIT);
  await claw.task.update({ taskId: t.taskId, expectedVersion: 1, status: "in_progress" });
  await vi.waitFor(() => expect(seen.length).toBeGreaterThanOrEqual(2), WAIT);
  await claw.task.update(completion(claw, { ...t, version: 2 }));
  await watching; // ended by itself after the terminal snapshot
  expect(seen.map((s) => [s.version, s.status])).toEqual([
    [1, "todo"],
    [2, "in_progress"],
    [3, "done"],
  ]);
});

test("task.watch of a finished task yields it once and ends at once; close() ends a watch early", async () => {
  const t = await claw.task.create({ title: "short" });
  const done = await claw.task.cancel({ taskId: t.taskId });
  const seen: number[] = [];
  for await (const snap of claw.task.watch({ taskId: t.taskId })) seen.push(snap.version);
  expect(seen).toEqual([done.version]);

  const open = await claw.task.create({ title: "open" });
  const watch = claw.task.watch({ taskId: open.taskId });
  expect((await watch.next()).value).toMatchObject({ taskId: open.taskId, version: 1 });
  const pending = watch.next();
  watch.close();
  expect(await pending).toMatchObject({ done: true });
});

test("a change whose event passes the bus's payload limit is still made, and the event's loss is logged", async () => {
  const lines: string[] = [];
  const small = await apiClaw({ limits: { maxPayloadBytes: 512 }, log: (line) => lines.push(line) });
  try {
    const fits = await small.task.create({ title: "fits" });
    // The project is in the event: 200 characters, 400 bytes of UTF-8, past 512 bytes with the rest.
    const long = await small.task.create({ title: "long", project: "ż".repeat(200) });
    expect(await small.task.get({ taskId: long.taskId })).toMatchObject({ status: "todo", version: 1 });
    const events = (await small.bus.read({ bus: "tasks", after: 0 })).events.map((e) => e.payload);
    expect(events).toEqual([expect.objectContaining({ taskId: fits.taskId })]);
    await vi.waitFor(() => expect(lines.join("\n")).toContain(`task event of ${long.taskId} v1 not published`), WAIT);
    expect(lines.join("\n")).toContain("the limit is 512");
    // Its later changes still wake a check_task waiting on it (their events fail the same way).
    const waiting = small.task.check({ taskId: long.taskId, waitMs: 20_000 });
    await vi.waitFor(async () => expect((await small.task.get({ taskId: long.taskId })).pollCount).toBe(1), WAIT);
    await small.task.cancel({ taskId: long.taskId });
    expect((await waiting).task).toMatchObject({ status: "cancelled", version: 2 });
    expect((await waiting).waitedMs).toBeLessThan(10_000);
  } finally {
    await small.close();
  }
});
