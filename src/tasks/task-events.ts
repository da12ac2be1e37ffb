/**
 * Task events: every accepted task change is also published to the `tasks` bus, so a UI or a
 * client watches tasks without polling (`task.watch` follows them).
 */
import { z } from "zod";
import type { BusService } from "../bus/bus-service.js";
import { latestUpdateSchema, taskPhaseSchema, taskStatusSchema } from "./task-schema.js";
import type { TaskRecord } from "./task-store.js";
import { TASKS_BUS } from "./tasks-bus.js";

/** The payload published to the `tasks` bus for each accepted change. */
export const taskEventSchema = z.object({
  type: z.literal("task"),
  taskId: z.string(),
  sessionKey: z.string().nullable(),
  project: z.string(),
  status: taskStatusSchema,
  phase: taskPhaseSchema,
  version: z.number().int().describe("The task's version after this change"),
  latestUpdate: latestUpdateSchema.nullable(),
  at: z.number().describe("When the change was written, epoch milliseconds"),
});

/** A task event. */
export type TaskEvent = z.infer<typeof taskEventSchema>;

/** The event of one accepted change. */
export function taskEventOf(t: TaskRecord): TaskEvent {
  return {
    type: "task",
    taskId: t.id,
    sessionKey: t.sessionKey,
    project: t.project,
    status: t.status,
    phase: t.phase,
    version: t.version,
    latestUpdate: t.latestUpdate,
    at: t.updatedAt,
  };
}

/** Publishes the change; a bus that is closing (shutdown) drops it, as it drops every later write. */
export function publishTaskEvent(bus: BusService, t: TaskRecord, log: (line: string) => void): void {
  bus.out(TASKS_BUS, taskEventOf(t)).catch((err: { code?: string }) => {
    if (err?.code !== "shutting_down") log(`tsclaw: task event of ${t.id} v${t.version} not published: ${String(err)}`);
  });
}
