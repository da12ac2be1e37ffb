/** A schedule as clients see it: its definition, the next due time from now, the last firing and its health. */
import { parseGoDuration } from "../core/duration.js";
import type { Firing, Health, Schedule } from "./schedule-schema.js";
import type { ScheduleRecord } from "./schedule-store.js";
import { Timetable } from "./timetable.js";

/** How long a due time may pass with no firing started before a schedule without a deadline is late. */
export const LATE_AFTER_MS = 60_000;

/** The schedule's timetable (its `every` cadence kept from its creation). */
export function timetableOf(s: ScheduleRecord): Timetable {
  return new Timetable(s.spec.when, s.createdAt);
}

/**
 * Health: `late` when a due time passed more than the deadline (or 60 s) ago and no firing of
 * it or of a later one started (while the schedule ran: due times while paused do not count);
 * else `failing` when the last firing that ended failed (or one is overdue now), `healthy` when
 * it was ok, `unknown` before any ended.
 */
export function healthOf(s: ScheduleRecord, last: Firing | null, now = Date.now()): Health {
  const base = { lastOkAt: s.lastOkAt, consecutiveFailures: s.consecutiveFailures };
  if (s.enabled) {
    const window = s.spec.deadline !== null ? parseGoDuration(s.spec.deadline)! : LATE_AFTER_MS;
    const due = timetableOf(s).latestAtOrBefore(now - window);
    if (due !== null && due >= s.watchFrom && (s.lastStartedDue === null || s.lastStartedDue < due))
      return { ...base, status: "late" };
  }
  if (s.consecutiveFailures > 0 || last?.outcome === "overdue") return { ...base, status: "failing" };
  if (s.lastOkAt !== null) return { ...base, status: "healthy" };
  return { ...base, status: "unknown" };
}

/** The next due time from now (ISO, UTC), or null when paused or spent. */
export function nextFireAt(s: ScheduleRecord, now = Date.now()): string | null {
  if (!s.enabled || s.dueAt === null) return null;
  const next = s.dueAt >= now ? s.dueAt : timetableOf(s).next(now);
  return next === null ? null : new Date(next).toISOString();
}

/** The Schedule a client sees. */
export function toSchedule(s: ScheduleRecord, last: Firing | null, now = Date.now()): Schedule {
  return {
    scheduleId: s.id,
    name: s.name,
    version: s.version,
    ...s.spec,
    enabled: s.enabled,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    nextFireAt: nextFireAt(s, now),
    lastFiring: last,
    health: healthOf(s, last, now),
  };
}
