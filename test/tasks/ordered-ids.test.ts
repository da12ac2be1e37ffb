/**
 * Ids of tasks, runs and messages are time-ordered (UUID version 7), so each new row's key lands
 * at the right edge of its indexes: every id sorts after the ids made before it.
 */
import { afterEach, expect, test } from "vitest";
import { orderedHex, orderedUuid } from "../../src/core/ordered-id.js";
import { answer } from "../fixtures/fake-responses.js";
import { fixture, taskClaw } from "./helpers.js";

let fx: Awaited<ReturnType<typeof fixture>> | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const sorted = (ids: readonly string[]) => [...ids].sort();

test("orderedUuid and orderedHex: version 7, distinct, and in the order they were made", () => {
  const uuids = Array.from({ length: 5000 }, orderedUuid);
  const hexes = Array.from({ length: 5000 }, orderedHex);
  for (const u of uuids) expect(u).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  for (const h of hexes) expect(h).toMatch(/^[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
  expect(new Set(uuids).size).toBe(uuids.length);
  expect(new Set(hexes).size).toBe(hexes.length);
  expect(sorted(uuids)).toEqual(uuids);
  expect(sorted(hexes)).toEqual(hexes);
  // The first 48 bits are the time it was made, in Unix milliseconds.
  const ms = Number.parseInt(orderedHex().slice(0, 12), 16);
  expect(Math.abs(ms - Date.now())).toBeLessThan(60_000);
});

test("the tasks, runs and messages of run_task get ids in the order they were made", async () => {
  fx = await fixture();
  const claw = fx.track(await taskClaw(fx.fake), (c) => c.close());
  fx.fake.script(...["one", "two", "three", "four", "five"].map((text) => answer(text)));
  const taskIds: string[] = [];
  for (const prompt of ["a", "b", "c", "d", "e"]) {
    const t = await claw.task.run({ prompt, sessionKey: "ordered" });
    taskIds.push(t.taskId);
    const done = await claw.task.check({ taskId: t.taskId, waitMs: 10_000 });
    expect(done.task.status).toBe("completed");
  }
  expect(taskIds.every((id) => id.startsWith("task_"))).toBe(true);
  expect(sorted(taskIds)).toEqual(taskIds);
  const { messages } = await (await claw.session.start({ sessionKey: "ordered" })).messages({ after: 0 });
  const ids = messages.map((m) => m.id);
  expect(ids).toHaveLength(10);
  expect(ids.every((id) => id.startsWith("msg_"))).toBe(true);
  expect(sorted(ids)).toEqual(ids);
  const runIds = [...new Set(messages.map((m) => m.runId!))];
  expect(runIds).toHaveLength(5);
  expect(runIds.every((id) => id.startsWith("run_"))).toBe(true);
  expect(sorted(runIds)).toEqual(runIds);
});
