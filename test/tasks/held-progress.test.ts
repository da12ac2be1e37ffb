/**
 * An assistant message's progress waits for the change after it (held-progress.ts): merged
 * into that change with both timeline lines, written alone when nothing follows in time, and
 * taken whole by the run's end.
 */
import { expect, test, vi } from "vitest";
import { HeldProgress, type PendingProgress } from "../../src/tasks/held-progress.js";

test("a held message goes with the next change: its phase and update win, both lines are kept", () => {
  const flushed: PendingProgress[] = [];
  const held = new HeldProgress((p) => flushed.push(p), 10_000);
  expect(held.add({ update: "hello", timeline: "assistant: hello" }, true)).toBeUndefined();
  expect(held.add({}, false)).toBeUndefined(); // an event that changes nothing does not release it
  expect(held.add({ phase: "running_tool", update: "running bash: ls", timeline: "running bash: ls" }, false)).toEqual({
    phase: "running_tool",
    update: "running bash: ls",
    timeline: ["assistant: hello", "running bash: ls"],
  });
  expect(held.take()).toBeUndefined();
  // A change without an update keeps the message's text as the latest update.
  held.add({ update: "thinking aloud", timeline: "assistant: thinking aloud" }, true);
  expect(held.add({ phase: "waiting_model" }, false)).toEqual({
    phase: "waiting_model",
    update: "thinking aloud",
    timeline: ["assistant: thinking aloud"],
  });
  expect(flushed).toEqual([]);
});

test("two messages in a row are held together, and the run's end takes them", () => {
  const held = new HeldProgress(() => {}, 10_000);
  held.add({ update: "one", timeline: "assistant: one" }, true);
  held.add({ update: "two", timeline: "assistant: two" }, true);
  expect(held.take()).toEqual({ update: "two", timeline: ["assistant: one", "assistant: two"] });
  expect(held.take()).toBeUndefined();
});

test("a message nothing follows is written alone once its time is up", async () => {
  const flushed: PendingProgress[] = [];
  const held = new HeldProgress((p) => flushed.push(p), 20);
  held.add({ update: "alone", timeline: "assistant: alone" }, true);
  await vi.waitFor(() => expect(flushed).toEqual([{ update: "alone", timeline: ["assistant: alone"] }]));
  expect(held.take()).toBeUndefined();
});
