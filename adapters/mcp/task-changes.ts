/**
 * Task changes for the MCP adapter (resource subscriptions, the tasks extension's listen): a
 * subscription to the `tasks` bus through the claw's bus handle, where every accepted change of
 * a task is published, from this node or another one. The adapter so uses the same stream any
 * client uses, not the task service's in-process notifier.
 */
import type { Claw } from "../../src/claw/claw.js";
import { TASKS_BUS } from "../../src/tasks/tasks-bus.js";

/**
 * Calls `changed(taskId)` after each accepted change of a task `wanted` accepts, from the moment
 * of the call (a change committed before it is not reported); returns the function that stops.
 */
export function followTaskChanges(
  claw: Claw,
  wanted: (taskId: string) => boolean,
  changed: (taskId: string) => void,
): () => void {
  return claw.bus.subscribe({ bus: TASKS_BUS }, (event) => {
    const p = event.payload as { type?: unknown; taskId?: unknown } | null;
    if (p?.type === "task" && typeof p.taskId === "string" && wanted(p.taskId)) changed(p.taskId);
  });
}
