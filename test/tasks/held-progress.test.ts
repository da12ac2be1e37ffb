/**
 * A run's progress is coalesced (held-progress.ts): what its events report within the hold goes
 * in one write, or with the change that comes first (the run's end takes what is still held),
 * the last update winning and every timeline line kept. The first held event's time bounds the
 * wait: events that keep coming do not keep it from being written.
 */
import { expect, test, vi } from "vitest";
import { HeldProgress, type PendingProgress } from "../../src/tasks/held-progress.js";

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
