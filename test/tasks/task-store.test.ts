/**
 * TaskStore decides a change from the record it last wrote or read, without a read. Those
 * tests put another writer (a second store on the same database, as another node would be)
 * between two changes: the stale decision must fail its compare-and-set and be made again on
 * the row as stored, never overwrite what the other writer wrote.
 */
import { afterEach, expect, test, vi } from "vitest";
import type { Claw } from "../../src/index.js";
import { TaskStore } from "../../src/tasks/task-store.js";
import { memClaw } from "../helpers/claw.js";
import { expectWrittenRecordsAsStored } from "../helpers/written-records.js";

let claw: Claw | undefined;
afterEach(async () => {
  await claw?.close();
  claw = undefined;
});

async function setup() {
  claw = memClaw();
  const store = claw.services.tasks.store;
  const other = new TaskStore(store.sql, () => {});
  const { taskId } = await claw.task.create({ title: "first" });
  const reads = vi.spyOn(store.sql, "get");
  const selects = () => reads.mock.calls.filter(([text]) => text.startsWith("SELECT")).length;
  return { store, other, taskId, selects };
}

test("a change of a task last written here reads nothing; one another writer changed meanwhile is decided again on the stored row", async () => {
  const { store, other, taskId, selects } = await setup();
  const seen: number[] = [];
  const append = (text: string) => (t: { version: number }) => {
    seen.push(t.version);
    return { patch: { body: text }, timeline: text };
  };
  await store.change(taskId, append("mine 1"));
  const mine = await store.change(taskId, append("mine 2"));
  expect(selects()).toBe(0);
  expect(mine!.version).toBe(3);

  await other.change(taskId, () => ({ patch: { title: "theirs" }, timeline: "theirs" }));
  seen.length = 0;
  const after = await store.change(taskId, append("mine 3"));
  expect(seen).toEqual([3, 4]); // decided on the stale record, refused, decided on the stored one
  expect(after).toMatchObject({ version: 5, title: "theirs", body: "mine 3" });
  expect(after!.timeline.map((e) => e.text).slice(-3)).toEqual(["mine 2", "theirs", "mine 3"]);
  expect(await store.get(taskId)).toEqual(after);
});

test("no change in the remembered record is asked again on the stored row", async () => {
  const { store, other, taskId } = await setup();
  await store.change(taskId, () => ({ patch: { body: "seen here" } }));
  await other.change(taskId, () => ({ patch: { status: "blocked", phase: "waiting_human" } }));
  const unblocked = await store.change(taskId, (t) =>
    t.status === "blocked" ? { patch: { status: "in_progress", phase: "running_tool" } } : undefined,
  );
  expect(unblocked).toMatchObject({ status: "in_progress", version: 4, body: "seen here" });
});

test("a change rolled back is not remembered, and patch at an expected version checks the stored row", async () => {
  const { store, other, taskId } = await setup();
  await store.change(taskId, () => ({ patch: { body: "kept" } }));
  await expect(
    store.tx(async (tx) => {
      await tx.change(taskId, () => ({ patch: { body: "rolled back" } }));
      throw new Error("changed my mind");
    }),
  ).rejects.toThrow("changed my mind");
  expect(await store.change(taskId, (t) => ({ patch: { title: `${t.body} v${t.version}` } }))).toMatchObject({
    title: "kept v2",
    version: 3,
  });
  await other.change(taskId, () => ({ patch: { body: "theirs" } }));
  expect(await store.patch(taskId, { body: "at v3" }, { expectedVersion: 3 })).toBeUndefined();
  expect(await store.patch(taskId, { body: "at v4" }, { expectedVersion: 4 })).toMatchObject({
    body: "at v4",
    version: 5,
  });
});

test("a change's returned record is the row as stored, every field and the poll count included", async () => {
  claw = memClaw();
  const { taskId } = await claw.task.create({ title: "walked through every field" });
  await expectWrittenRecordsAsStored(claw.services.tasks.store.sql, taskId);
});
