/**
 * A task store's change returns the record it wrote without reading the row back (only the
 * version, time and poll counter come back from its UPDATE): this walks one task through a
 * change of every field, JSON values and clears included, with another store counting polls
 * and changing it in between, and checks each returned record against the row as stored.
 */
import { expect } from "vitest";
import type { Sql } from "../../src/store/sql.js";
import { type TaskChange, TaskStore } from "../../src/tasks/task-store.js";

export async function expectWrittenRecordsAsStored(sql: Sql, id: string): Promise<void> {
  const store = new TaskStore(sql, () => {});
  const other = new TaskStore(sql, () => {});
  const stored = () => new TaskStore(sql, () => {}).find(id);
  const steps: TaskChange[] = [
    { patch: { status: "in_progress", phase: "running_tool" }, timeline: "started" },
    { patch: { startedAt: 1_700_000_000_123, body: "a body ✓ \u2028 with a separator" } },
    { patch: { latestUpdate: { at: 1_700_000_000_500, text: 'halfway: "quoted", \u00e9, 🙂' } } },
    {
      patch: {
        summary: "done",
        error: { code: "boom", message: "it broke", category: "tool", suggestedRecovery: "retry" },
      },
      timeline: ["one", "two"],
    },
    { patch: { handoff: { completed: "half", next: "", blockers: "none" }, title: "renamed" } },
    { patch: { latestUpdate: null, error: null, handoff: null, summary: null } },
    { patch: { status: "completed", phase: "ended", endedAt: 1_700_000_000_999 }, timeline: "ended" },
  ];
  for (const [i, step] of steps.entries()) {
    await other.countPoll(id); // moves poll_count without a version: the returned record must have it
    if (i === 3) await other.change(id, () => ({ patch: { body: "their body" }, timeline: "theirs" }));
    const written = await store.change(id, () => step);
    expect(written).toEqual(await stored());
  }
}
