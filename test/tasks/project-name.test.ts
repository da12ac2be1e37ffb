/**
 * A project's name is bounded (every task event carries it): a longer one is `invalid_args`
 * naming the field, from the operations that store it and from createClaw's option, and a
 * name at the bound works end to end. The lengths of the other stored names that had none.
 */
import { afterEach, beforeEach, expect, test } from "vitest";
import { MAX_PROJECT_CHARS } from "../../src/config/project-name.js";
import { type Claw, createClaw } from "../../src/index.js";
import { apiClaw } from "../helpers/claw.js";

let claw: Claw;
beforeEach(async () => {
  claw = await apiClaw();
});
afterEach(async () => {
  await claw.close();
});

const longest = "p".repeat(MAX_PROJECT_CHARS);
const tooLong = "p".repeat(MAX_PROJECT_CHARS + 1);
const refusedAt = (path: string) => ({
  code: "invalid_args",
  details: { issues: [expect.objectContaining({ path })] },
});

test("a task, a run, a note and a schedule refuse a project name over the bound, naming the field", async () => {
  await expect(claw.task.create({ title: "t", project: tooLong })).rejects.toMatchObject(refusedAt("project"));
  await expect(claw.task.run({ prompt: "p", project: tooLong })).rejects.toMatchObject(refusedAt("project"));
  await expect(claw.memory.add({ text: "n", project: tooLong })).rejects.toMatchObject(refusedAt("project"));
  await expect(
    claw.schedule.create({ when: { every: "1h" }, action: { runTask: { prompt: "p", project: tooLong } } }),
  ).rejects.toMatchObject(refusedAt("action.runTask.project"));
  const err = await claw.task.create({ title: "t", project: tooLong }).catch((e) => e);
  expect(err.message).toContain(`at most ${MAX_PROJECT_CHARS} characters`);
  // Nothing was stored by the refused calls.
  expect((await claw.task.list({})).tasks).toHaveLength(0);
  expect(await claw.schedule.list({})).toMatchObject({ schedules: [] });
});

test("a project name at the bound is stored, listed and published with its task's events", async () => {
  const t = await claw.task.create({ title: "at the bound", project: longest });
  await claw.task.cancel({ taskId: t.taskId });
  expect((await claw.task.list({ project: longest })).tasks.map((x) => x.taskId)).toEqual([t.taskId]);
  const events = (await claw.bus.read({ bus: "tasks", after: 0, waitMs: 5000 })).events;
  expect(events.length).toBeGreaterThan(0);
  expect(events.every((e) => (e.payload as { project: string }).project === longest)).toBe(true);
  await claw.memory.add({ text: "kept", project: longest });
  expect((await claw.memory.search({ query: "kept", project: longest })).results).toHaveLength(1);
});

test("a note's session key and an updated title have the bounds their siblings have", async () => {
  await expect(claw.memory.add({ text: "n", sessionKey: "k".repeat(201) })).rejects.toMatchObject(
    refusedAt("sessionKey"),
  );
  const t = await claw.task.create({ title: "t" });
  await expect(
    claw.task.update({ taskId: t.taskId, expectedVersion: 1, title: "x".repeat(501) }),
  ).rejects.toMatchObject(refusedAt("title"));
  expect((await claw.task.get({ taskId: t.taskId })).version).toBe(1);
});

test("createClaw refuses a project option over the bound or empty, naming the option", () => {
  for (const project of [tooLong, ""])
    expect(() => createClaw({ db: ":memory:", project })).toThrow(
      expect.objectContaining({ code: "invalid_args", details: expect.objectContaining({ option: "project" }) }),
    );
  expect(() => createClaw({ db: ":memory:", env: { CLAW_PROJECT: tooLong } })).toThrow(
    expect.objectContaining({ code: "invalid_args" }),
  );
});
