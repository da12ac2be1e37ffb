/**
 * How an approval holds and releases its task: `needs_human` with phase `awaiting_approval` and
 * a latest update naming the command while it waits, `in_progress` again once decided. A task
 * that ended meanwhile (cancelled) is left as it is.
 */
import type { TaskStore } from "../tasks/task-store.js";
import type { ApprovalTaskPort } from "./approval-service.js";

/** The port over the task store (`store` is read when used: the tasks are built after the approvals). */
export function approvalTasks(store: () => TaskStore): ApprovalTaskPort {
  return {
    async awaiting(taskId, text) {
      await store().change(taskId, (t) =>
        t.status === "in_progress"
          ? {
              patch: { status: "needs_human", phase: "awaiting_approval", latestUpdate: { at: Date.now(), text } },
              timeline: text,
            }
          : undefined,
      );
    },
    async resumed(taskId, text) {
      await store().change(taskId, (t) =>
        t.status === "needs_human" && t.phase === "awaiting_approval"
          ? {
              patch: { status: "in_progress", phase: "running_tool", latestUpdate: { at: Date.now(), text } },
              timeline: text,
            }
          : undefined,
      );
    },
  };
}
