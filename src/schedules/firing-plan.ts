/**
 * What to do with the due times of a schedule that have arrived (pure: no storage, no clock of
 * its own). Due times that passed while nothing watched (no node ran, or the schedule was
 * paused) follow the `missed` policy; the newest watched one fires; older watched ones (the
 * scheduler was held up past a later due time) are skipped.
 */
import type { FiringKind, FiringOutcome } from "./schedule-schema.js";
import type { ScheduleRecord } from "./schedule-store.js";
import type { Timetable } from "./timetable.js";

/** One firing row to insert. */
export interface PlannedFiring {
  firingAt: number;
  kind: FiringKind;
  /** `pending` to fire (the overlap policy may still skip a `due` one); else its final outcome. */
  outcome: Extract<FiringOutcome, "pending" | "missed" | "skipped">;
  reason: string | null;
}

/** The plan: rows oldest first, and the next due time after them (null: spent). */
export interface FiringPlan {
  firings: PlannedFiring[];
  nextDue: number | null;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Plans the due times in [s.dueAt, now]. `watchedSince`: due times before it passed unwatched
 * (the later of the schedule's resumption and this node's start, less a grace so that a quick
 * restart still fires what came due during it). At most `historyLimit` missed rows are written.
 */
export function planFirings(
  s: ScheduleRecord,
  tt: Timetable,
  now: number,
  watchedSince: number,
  historyLimit: number,
): FiringPlan {
  const dueAt = s.dueAt!;
  const { times, more } = tt.between(dueAt - 1, now, historyLimit + s.spec.maxCatchUp);
  const nextDue = tt.next(Math.max(now, times.at(-1) ?? now));
  const since = Math.max(watchedSince, s.watchFrom);
  const missed = times.filter((t) => t < since);
  const watched = times.filter((t) => t >= since);
  const firings: PlannedFiring[] = [];

  const catchUp = s.spec.missed === "skip" ? 0 : s.spec.missed === "latest" ? 1 : s.spec.maxCatchUp;
  const fired = new Set(catchUp > 0 ? missed.slice(-catchUp) : []);
  missed.forEach((t, i) => {
    const why = t < s.watchFrom ? "the schedule was paused" : "no node was running";
    if (fired.has(t)) {
      firings.push({ firingAt: t, kind: "catch_up", outcome: "pending", reason: `catch-up: ${why} at its due time` });
      return;
    }
    const earlier = i === 0 && more > 0 ? ` (${more} earlier due times are not listed)` : "";
    firings.push({
      firingAt: t,
      kind: "due",
      outcome: "missed",
      reason: `${why} (missed: ${s.spec.missed})${earlier}`,
    });
  });
  watched.forEach((t, i) => {
    if (i < watched.length - 1)
      firings.push({
        firingAt: t,
        kind: "due",
        outcome: "skipped",
        reason: `the scheduler was held up past the next due time ${iso(watched[i + 1]!)}`,
      });
    else firings.push({ firingAt: t, kind: "due", outcome: "pending", reason: null });
  });
  return { firings, nextDue };
}
