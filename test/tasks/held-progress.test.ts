/**
 * A run's progress is coalesced (held-progress.ts): what its events report within the hold goes
 * in one write, or with the change that comes first (the run's end takes what is still held),
 * the last update winning and every timeline line kept. The first held event's time bounds the
 * wait: events that keep coming do not keep it from being written.
 */
import { expect, test, vi } from "vitest";
import { HeldProgress, type PendingProgress, progressChange } from "../../src/tasks/held-progress.js";
import type { TaskRecord } from "../../src/tasks/task-store.js";

const withoutTime = (p: PendingProgress | undefined) => p && { ...p, at: undefined };

test("events within the hold are taken together: the last phase and update win, every line is kept", () => {
  const held = new HeldProgress(() => {}, 10_000);
  held.add({ phase: "waiting_model", update: "waiting for the model (turn 1)" });
  held.add({ update: "hello", timeline: "assistant: hello" });
  held.add({}); // an event that changes nothing changes nothing
  held.add({ phase: "running_tool", update: "running bash: ls", timeline: "running bash: ls" });
  const before = Date.now();
  held.add({ phase: "waiting_model", update: "bash exited 0" });
  const taken = held.take();
  expect(withoutTime(taken)).toEqual({
    phase: "waiting_model",
    update: "bash exited 0",
    timeline: ["assistant: hello", "running bash: ls"],
    at: undefined,
  });
  expect(taken!.at).toBeGreaterThanOrEqual(before); // the newest event's time
  expect(held.take()).toBeUndefined();
});

test("a message keeps its text as the latest update when what follows brings none", () => {
  const held = new HeldProgress(() => {}, 10_000);
  held.add({ update: "thinking aloud", timeline: "assistant: thinking aloud" });
  held.add({ phase: "waiting_model" });
  expect(withoutTime(held.take())).toEqual({
    phase: "waiting_model",
    update: "thinking aloud",
    timeline: ["assistant: thinking aloud"],
    at: undefined,
  });
});

test("what nothing takes is written once the first held event's time is up, however many follow", async () => {
  const flushed: PendingProgress[] = [];
  const held = new HeldProgress((p) => flushed.push(p), 60);
  held.add({ phase: "running_tool", update: "running bash: a", timeline: "running bash: a" });
  // Events keep coming, faster than the hold, until the write happens: were each to push the
  // write back, it would never come while they do.
  const more = setInterval(() => held.add({ update: "more" }), 10);
  try {
    await vi.waitFor(() => expect(flushed.length).toBeGreaterThanOrEqual(1), { timeout: 5_000, interval: 5 });
  } finally {
    clearInterval(more);
  }
  expect(flushed[0]).toMatchObject({ phase: "running_tool", timeline: ["running bash: a"] });
  held.take();
});

test("a lone event is written alone once its time is up, and nothing is left held", async () => {
  const flushed: PendingProgress[] = [];
  const held = new HeldProgress((p) => flushed.push(p), 20);
  held.add({ update: "alone", timeline: "assistant: alone" });
  await vi.waitFor(() =>
    expect(flushed.map(withoutTime)).toEqual([{ update: "alone", timeline: ["assistant: alone"], at: undefined }]),
  );
  expect(held.take()).toBeUndefined();
});

test("progress moves a running task; one waiting on a human, or changed since, keeps what it says and gets the lines", () => {
  const at = 1_000;
  const task = (over: Partial<TaskRecord>) =>
    ({ status: "in_progress", phase: "waiting_model", updatedAt: at - 5, ...over }) as TaskRecord;
  const p: PendingProgress = { phase: "running_tool", update: "running bash: ls", timeline: ["running bash: ls"], at };
  expect(progressChange(task({}), p)).toMatchObject({
    patch: { phase: "running_tool", latestUpdate: { text: "running bash: ls" } },
    timeline: ["running bash: ls"],
  });
  // An approval's question written in the same millisecond as the events: the question stays.
  for (const waiting of [
    task({ status: "needs_human", phase: "awaiting_approval", updatedAt: at }),
    task({ status: "blocked", phase: "waiting_human", updatedAt: at - 5 }),
    task({ updatedAt: at + 1 }),
  ])
    expect(progressChange(waiting, p)).toEqual({ patch: {}, timeline: ["running bash: ls"] });
  expect(progressChange(task({ status: "needs_human" }), { ...p, timeline: [] })).toBeUndefined();
  expect(progressChange(task({ status: "cancelled" }), p)).toBeUndefined();
  // Nothing new to say: only the lines, or nothing at all.
  expect(progressChange(task({}), { phase: "waiting_model", timeline: [], at })).toBeUndefined();
  expect(progressChange(task({}), { timeline: ["assistant: hi"], at })).toEqual({
    patch: {},
    timeline: ["assistant: hi"],
  });
});
