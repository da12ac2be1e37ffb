/**
 * Events on the reserved bus `schedules`: every change of a firing's outcome
 * (`schedule_firing`), and every change of a schedule (`schedule_changed`: created, updated,
 * paused, resumed, deleted), which is how the other nodes of a PostgreSQL database learn that
 * their timers must be re-armed.
 */
import { z } from "zod";
import type { BusService } from "../bus/bus-service.js";
import { type Firing, firingOutcomeSchema } from "./schedule-schema.js";

/** The bus the server writes schedule events to (clients read it; they cannot write to it). */
export const SCHEDULES_BUS = "schedules";

/** A firing's outcome changed. */
export const firingEventSchema = z.object({
  type: z.literal("schedule_firing"),
  scheduleId: z.string(),
  name: z.string(),
  firingAt: z.number(),
  outcome: firingOutcomeSchema,
  reason: z.string().optional(),
  taskId: z.string().optional(),
});
/** Inferred from its schema. */
export type FiringEvent = z.infer<typeof firingEventSchema>;

/** A schedule was created, changed or deleted. */
export const scheduleChangedSchema = z.object({
  type: z.literal("schedule_changed"),
  scheduleId: z.string(),
  change: z.enum(["created", "updated", "paused", "resumed", "deleted"]),
  version: z.number().int(),
  node: z.string().describe("The node that made the change"),
});
/** Inferred from its schema. */
export type ScheduleChanged = z.infer<typeof scheduleChangedSchema>;

/** Any event of the `schedules` bus. */
export type ScheduleBusEvent = FiringEvent | ScheduleChanged;

/** The event of one firing as written. */
export function firingEventOf(f: Firing, name: string): FiringEvent {
  const e: FiringEvent = {
    type: "schedule_firing",
    scheduleId: f.scheduleId,
    name,
    firingAt: f.firingAt,
    outcome: f.outcome,
  };
  if (f.reason !== null) e.reason = f.reason;
  if (f.taskId !== null) e.taskId = f.taskId;
  return e;
}

/** Publishes an event; a bus that is closing (shutdown) drops it, as it drops every later write. */
export function publishScheduleEvent(bus: BusService, event: ScheduleBusEvent, log: (line: string) => void): void {
  bus.out(SCHEDULES_BUS, event).catch((err: { code?: string }) => {
    if (err?.code !== "shutting_down") log(`tsclaw: schedule event (${event.type}) not published: ${String(err)}`);
  });
}
