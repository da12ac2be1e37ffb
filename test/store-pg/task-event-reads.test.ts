/**
 * On PostgreSQL a node follows the `tasks` bus, so a check_task waiting here wakes on a change
 * made on another node (test/multi-node covers that). This node's own changes come back on
 * that bus as well; they were announced to its waiters as they were written, and must not cost
 * a read of the task each (they were 4 of a run task's ~36 statements).
 */
import { expect, test, vi } from "vitest";
import { useRecordedPgClaw } from "../helpers/pg-statements.js";
import { WAIT } from "../helpers/wait.js";

const recorded = useRecordedPgClaw({ token: "task-event-reads-token-0123456789", project: "reads" });
const sent = recorded.sent;

test("a waiting check_task: this node's own changes are not read back when their tasks-bus events return", async () => {
  const task = await recorded.claw.task.create({ title: "watched" });
  const checked = recorded.claw.task.check({ taskId: task.taskId, waitMs: 10_000 });
  await vi.waitFor(
    async () => expect((await recorded.claw.task.get({ taskId: task.taskId })).pollCount).toBeGreaterThanOrEqual(1),
    WAIT,
  );
  // Changes that do not settle the task: the wait goes on while their events come back (each
  // event is published once its change has committed, after the call has returned).
  let version = task.version;
  const afterEachChange: string[][] = [];
  for (let i = 0; i < 3; i++) {
    version = (
      await recorded.claw.task.update({ taskId: task.taskId, expectedVersion: version, title: `renamed ${i}` })
    ).version;
    sent.length = 0;
    // Deliberately let time pass: the change's tasks-bus event comes back here, and a read of the
    // task it must not cause would land within it.
    await new Promise((r) => setTimeout(r, 200));
    afterEachChange.push(sent.filter((t) => /^SELECT \* FROM tasks WHERE id/.test(t.trim())));
  }
  const events = await recorded.claw.bus.read({ bus: "tasks", after: 0 });
  expect(events.events.map((e) => (e.payload as { version: number }).version)).toEqual([1, 2, 3, 4]);
  await recorded.claw.task.cancel({ taskId: task.taskId });
  const result = await checked;
  expect(result.task.status).toBe("cancelled");
  expect(afterEachChange).toEqual([[], [], []]);
});
