/**
 * Cron due times checked against cron-parser, an independent implementation, over a table of
 * expressions and timezones, and around daylight-saving changes (Europe/Berlin and
 * America/New_York, spring forward and fall back) against the rules every schedule follows: a
 * local time that does not exist fires once at the next instant that does, and a repeated local
 * time fires once. Also `every` (cadence kept from its origin) and `at`.
 */
import { CronExpressionParser } from "cron-parser";
import { describe, expect, it } from "vitest";
import { Timetable, whenProblem } from "../../src/schedules/timetable.js";

const ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Sydney"];
const EXPRESSIONS = [
  "*/5 * * * *",
  "0 9 * * 1-5",
  "30 8 1,15 * *",
  "0 0 * jan,jul *",
  "15 14 * * sun",
  "0 */6 * * *",
  "5 4 * * mon-fri",
  "*/15 9-17 * * *",
  "0 22 * * 1-5",
  "0 12 29 2 *",
  "@hourly",
  "@daily",
  "@weekly",
  "@monthly",
  "@yearly",
];

function ours(cron: string, timezone: string, from: string, n: number): string[] {
  const tt = new Timetable({ cron, timezone }, 0);
  const out: string[] = [];
  let t = Date.parse(from);
  for (let i = 0; i < n; i++) {
    const next = tt.next(t);
    if (next === null) break;
    out.push(new Date(next).toISOString());
    t = next;
  }
  return out;
}

/** UTC offset of `ms` in `tz`, in minutes (from Intl, not from either cron library). */
function offsetMinutes(ms: number, tz: string): number {
  const name = new Intl.DateTimeFormat("en-US", { timeZone: tz, timeZoneName: "longOffset" })
    .formatToParts(new Date(ms))
    .find((p) => p.type === "timeZoneName")!.value;
  const m = /GMT([+-])(\d\d):(\d\d)/.exec(name);
  return m ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}

/** True when the wall time of `ms` occurred before (clocks went back over it within 3 hours). */
function repeatsWallTime(ms: number, tz: string): boolean {
  const back = offsetMinutes(ms - 3 * 3_600_000, tz) - offsetMinutes(ms, tz);
  if (back <= 0) return false;
  const f = new Intl.DateTimeFormat("en-GB", { timeZone: tz, dateStyle: "short", timeStyle: "short" });
  return f.format(new Date(ms)) === f.format(new Date(ms - back * 60_000));
}

/** cron-parser's next times, a repeated wall time dropped (its first occurrence fired). */
function reference(cron: string, tz: string, from: string, n: number): string[] {
  const it = CronExpressionParser.parse(cron, { tz, currentDate: new Date(from) });
  const out: string[] = [];
  while (out.length < n) {
    const ms = it.next().toDate().getTime();
    if (!repeatsWallTime(ms, tz)) out.push(new Date(ms).toISOString());
  }
  return out;
}

describe("cron due times agree with cron-parser", () => {
  const cases = EXPRESSIONS.flatMap((cron) => ZONES.map((tz) => [cron, tz] as const));
  it.each(cases)("%s in %s", (cron, tz) => {
    // Six due times each; three for the leap day, where cron-parser walks four years of days per
    // due time (about a second of CPU for six in a zone), and three leap years show the cadence.
    const n = cron === "0 12 29 2 *" ? 3 : 6;
    for (const from of ["2026-05-04T10:17:00Z", "2026-12-31T23:59:30Z"]) {
      expect(ours(cron, tz, from, n)).toEqual(reference(cron, tz, from, n));
    }
  });
});

describe("daylight-saving changes", () => {
  it.each([
    // Spring forward: 02:30 does not exist; it fires once at 03:00, the next instant that does.
    [
      "30 2 * * *",
      "Europe/Berlin",
      "2026-03-28T00:00:00Z",
      ["2026-03-28T01:30:00.000Z", "2026-03-29T01:00:00.000Z", "2026-03-30T00:30:00.000Z"],
    ],
    [
      "30 2 * * *",
      "America/New_York",
      "2026-03-07T00:00:00Z",
      ["2026-03-07T07:30:00.000Z", "2026-03-08T07:00:00.000Z", "2026-03-09T06:30:00.000Z"],
    ],
    // Every 30 minutes over the gap: 02:00 and 02:30 do not exist; 03:00 fires once.
    [
      "*/30 * * * *",
      "Europe/Berlin",
      "2026-03-29T00:00:00Z",
      ["2026-03-29T00:30:00.000Z", "2026-03-29T01:00:00.000Z", "2026-03-29T01:30:00.000Z"],
    ],
    [
      "0 * * * *",
      "America/New_York",
      "2026-03-08T05:30:00Z",
      ["2026-03-08T06:00:00.000Z", "2026-03-08T07:00:00.000Z", "2026-03-08T08:00:00.000Z"],
    ],
    // Fall back: 02:30 (Berlin) and 01:30 (New York) happen twice; each fires once, at the first.
    [
      "30 2 * * *",
      "Europe/Berlin",
      "2026-10-24T00:00:00Z",
      ["2026-10-24T00:30:00.000Z", "2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"],
    ],
    [
      "30 1 * * *",
      "America/New_York",
      "2026-10-31T00:00:00Z",
      ["2026-10-31T05:30:00.000Z", "2026-11-01T05:30:00.000Z", "2026-11-02T06:30:00.000Z"],
    ],
    // Every 30 minutes over the repeated hour: 02:00 and 02:30 fire once each.
    [
      "*/30 * * * *",
      "Europe/Berlin",
      "2026-10-25T00:00:00Z",
      ["2026-10-25T00:30:00.000Z", "2026-10-25T02:00:00.000Z", "2026-10-25T02:30:00.000Z"],
    ],
    [
      "0 * * * *",
      "America/New_York",
      "2026-11-01T04:00:00Z",
      ["2026-11-01T05:00:00.000Z", "2026-11-01T07:00:00.000Z", "2026-11-01T08:00:00.000Z"],
    ],
  ])("%s in %s from %s", (cron, tz, from, expected) => {
    expect(ours(cron, tz, from, expected.length)).toEqual(expected);
  });

  it("agrees with cron-parser over the repeated hour (cron-parser moves a nonexistent time by the shift instead)", () => {
    for (const [cron, tz, from] of [
      ["30 2 * * *", "Europe/Berlin", "2026-10-20T00:00:00Z"],
      ["*/30 * * * *", "Europe/Berlin", "2026-10-24T22:00:00Z"],
      ["0 * * * *", "America/New_York", "2026-11-01T00:00:00Z"],
      ["30 1 * * *", "America/New_York", "2026-10-28T00:00:00Z"],
      ["*/20 * * * *", "America/New_York", "2026-11-01T03:00:00Z"],
    ] as const)
      expect(ours(cron, tz, from, 12), `${cron} ${tz}`).toEqual(reference(cron, tz, from, 12));
    // cron-parser puts 02:30 of the gap day at 03:30; the rule here is the next instant that exists, 03:00.
    expect(reference("30 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z", 1)).toEqual(["2026-03-29T01:30:00.000Z"]);
    expect(ours("30 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z", 1)).toEqual(["2026-03-29T01:00:00.000Z"]);
  });
});

describe("every and at", () => {
  it("keeps the cadence of every from its origin", () => {
    const tt = new Timetable({ every: "15m", from: "2026-01-01T00:05:00Z" }, 0);
    expect(tt.next(Date.parse("2026-06-01T10:00:00Z"))).toBe(Date.parse("2026-06-01T10:05:00Z"));
    expect(tt.next(Date.parse("2026-06-01T10:05:00Z"))).toBe(Date.parse("2026-06-01T10:20:00Z"));
    expect(tt.latestAtOrBefore(Date.parse("2026-06-01T10:19:59Z"))).toBe(Date.parse("2026-06-01T10:05:00Z"));
    const created = Date.parse("2026-06-01T00:00:00Z");
    expect(new Timetable({ every: "1h30m" }, created).next(created)).toBe(created + 90 * 60_000);
  });

  it("lists the due times in a window, the newest when there are more", () => {
    const tt = new Timetable({ every: "1s", from: "2026-01-01T00:00:00Z" }, 0);
    const start = Date.parse("2026-01-01T00:00:00Z");
    const { times, more } = tt.between(start - 1, start + 9_999, 3);
    expect(times).toEqual([start + 7000, start + 8000, start + 9000]);
    expect(more).toBe(7);
    const cron = new Timetable({ cron: "* * * * *" }, 0).between(start - 1, start + 10 * 60_000, 4);
    expect(cron.times).toEqual([7, 8, 9, 10].map((m) => start + m * 60_000));
    expect(cron.more).toBe(7);
  });

  it("is due once at `at`", () => {
    const tt = new Timetable({ at: "2026-07-01T12:00:00Z" }, 0);
    const at = Date.parse("2026-07-01T12:00:00Z");
    expect(tt.next(at - 1)).toBe(at);
    expect(tt.next(at)).toBeNull();
  });

  it("names the field of an invalid when", () => {
    expect(whenProblem({ cron: "0 9 * * *", timezone: "Nowhere/City" })?.path).toEqual(["timezone"]);
    expect(whenProblem({ cron: "0 25 * * *" })?.path).toEqual(["cron"]);
    expect(whenProblem({ cron: "0 0 9 * * *" })?.message).toMatch(/5 fields/);
    expect(whenProblem({ every: "0.5s" })?.message).toMatch(/at least 1s/);
    expect(whenProblem({ every: "1m", from: "later" })?.path).toEqual(["from"]);
    expect(whenProblem({ cron: "0 9 * * MON-FRI", timezone: "Asia/Kolkata" })).toBeUndefined();
  });
});
