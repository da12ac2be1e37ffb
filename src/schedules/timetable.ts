/**
 * A schedule's timetable: the due times of a `when` (cron, every, at). Cron times come from
 * croner (IANA timezones, DST-aware); two rules are added on top of it so that, around a
 * daylight-saving change, a local time that does not exist fires once at the next instant that
 * does (croner does this for fixed-time jobs) and a repeated local time fires once (croner runs
 * wildcard and step jobs on both occurrences, as Vixie cron does; the second is dropped here).
 */
import { Cron } from "croner";
import { parseGoDuration } from "../core/duration.js";

/** A `when` as stored (validated). */
export type When = { cron: string; timezone?: string } | { every: string; from?: string } | { at: string };

/** Shortest `every`. */
export const MIN_EVERY_MS = 1000;

/** Why a `when` is not valid: the field and what is wrong; undefined when it is valid. */
export function whenProblem(when: When): { path: string[]; message: string } | undefined {
  if ("cron" in when) {
    if (when.timezone !== undefined && !isTimeZone(when.timezone))
      return { path: ["timezone"], message: `"${when.timezone}" is not an IANA timezone (e.g. "Europe/Berlin")` };
    try {
      const fields = when.cron.trim().split(/\s+/);
      if (!when.cron.trim().startsWith("@") && fields.length !== 5)
        return {
          path: ["cron"],
          message: `a cron expression has 5 fields (minute hour day month weekday); got ${fields.length}`,
        };
      cronOf(when);
    } catch (err) {
      return { path: ["cron"], message: `"${when.cron}" is not a valid cron expression: ${(err as Error).message}` };
    }
    return undefined;
  }
  if ("every" in when) {
    const ms = parseGoDuration(when.every);
    if (ms === undefined)
      return { path: ["every"], message: `"${when.every}" is not a Go duration such as "30s", "15m", "1h30m"` };
    if (ms < MIN_EVERY_MS) return { path: ["every"], message: "every must be at least 1s" };
    if (when.from !== undefined && !Number.isFinite(Date.parse(when.from)))
      return { path: ["from"], message: `"${when.from}" is not an ISO time` };
    return undefined;
  }
  if (!Number.isFinite(Date.parse(when.at))) return { path: ["at"], message: `"${when.at}" is not an ISO time` };
  return undefined;
}

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

function cronOf(when: { cron: string; timezone?: string }): Cron {
  // 5-part: seconds fixed at 0, years wildcarded (a 6th field is refused above, not read as seconds).
  const pattern = when.cron.trim().startsWith("@") ? when.cron.trim().toLowerCase() : when.cron;
  return new Cron(pattern, { timezone: when.timezone ?? "UTC", mode: "5-part" });
}

/** The due times of one `when`, from a fixed origin (the schedule's creation, for `every`). */
export class Timetable {
  private readonly cron?: Cron;
  private readonly zone?: Intl.DateTimeFormat;
  private readonly everyMs?: number;
  private readonly fromMs?: number;
  private readonly atMs?: number;

  constructor(
    readonly when: When,
    /** When the schedule was created: the first `every` due time is one interval after it, unless `from` is given. */
    createdAt: number,
  ) {
    if ("cron" in when) {
      this.cron = cronOf(when);
      this.zone = new Intl.DateTimeFormat("en-US", {
        timeZone: when.timezone ?? "UTC",
        hourCycle: "h23",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
      });
    } else if ("every" in when) {
      const everyMs = parseGoDuration(when.every)!;
      this.everyMs = everyMs;
      this.fromMs = when.from !== undefined ? Date.parse(when.from) : createdAt + everyMs;
    } else this.atMs = Date.parse(when.at);
  }

  /** The first due time strictly after `after` (epoch ms), or null when there is none. */
  next(after: number): number | null {
    if (this.atMs !== undefined) return this.atMs > after ? this.atMs : null;
    if (this.everyMs !== undefined) {
      const from = this.fromMs!;
      if (after < from) return from;
      return from + (Math.floor((after - from) / this.everyMs) + 1) * this.everyMs;
    }
    let t = after;
    for (let guard = 0; guard < 8; guard++) {
      const d = this.cron!.nextRun(new Date(t));
      if (!d) return null;
      const ms = d.getTime();
      if (!this.repeatsLocalTime(ms)) return ms;
      t = ms;
    }
    return null;
  }

  /** The newest due time at or before `at`, or null (used for lateness and catch-up). */
  latestAtOrBefore(at: number): number | null {
    if (this.atMs !== undefined) return this.atMs <= at ? this.atMs : null;
    if (this.everyMs !== undefined) {
      const from = this.fromMs!;
      if (at < from) return null;
      return from + Math.floor((at - from) / this.everyMs) * this.everyMs;
    }
    const [prev] = this.cron!.previousRuns(1, new Date(at + 1));
    if (!prev) return null;
    const ms = prev.getTime();
    return this.repeatsLocalTime(ms) ? this.latestAtOrBefore(ms - 1) : ms;
  }

  /** Due times in (after, until], oldest first, at most `limit` of them (the newest `limit` when more). */
  between(after: number, until: number, limit: number): { times: number[]; more: number } {
    if (this.everyMs !== undefined) {
      const first = this.next(after);
      if (first === null || first > until) return { times: [], more: 0 };
      const count = Math.floor((until - first) / this.everyMs) + 1;
      const skip = Math.max(0, count - limit);
      const times: number[] = [];
      for (let i = skip; i < count; i++) times.push(first + i * this.everyMs);
      return { times, more: skip };
    }
    const times: number[] = [];
    let more = 0;
    for (let t = this.next(after); t !== null && t <= until; t = this.next(t)) {
      times.push(t);
      if (times.length > limit) {
        times.shift();
        more++;
      }
      if (more > 100_000) {
        // Years of downtime on a minutely cron: count no further, jump to the newest times.
        const tail = this.tail(t, until, limit);
        return { times: tail.times, more: more + tail.skipped };
      }
    }
    return { times, more };
  }

  private tail(after: number, until: number, limit: number): { times: number[]; skipped: number } {
    const newest: number[] = [];
    let t: number | null = until;
    while (t !== null && t > after && newest.length < limit) {
      t = this.latestAtOrBefore(t);
      if (t === null || t <= after) break;
      newest.unshift(t);
      t -= 1;
    }
    return { times: newest, skipped: 0 };
  }

  /**
   * True when the local wall time of `ms` already occurred earlier (the second pass through an
   * hour when clocks go back): that local time fired at its first occurrence.
   */
  private repeatsLocalTime(ms: number): boolean {
    const window = 3 * 3_600_000; // clocks go back by at most a few hours
    const local = this.localMinutes(ms);
    // No change of offset in the window (nearly always): no wall time can repeat.
    if (local - this.localMinutes(ms - window) === window / 60_000) return false;
    for (let back = 15 * 60_000; back <= window; back += 15 * 60_000)
      if (this.localMinutes(ms - back) === local) return true;
    return false;
  }

  /** The wall time of `ms` in the schedule's timezone, as minutes since 1970-01-01 00:00 of that wall clock. */
  private localMinutes(ms: number): number {
    const parts: Record<string, number> = {};
    for (const p of this.zone!.formatToParts(new Date(ms))) if (p.type !== "literal") parts[p.type] = Number(p.value);
    return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!) / 60_000;
  }
}
