/**
 * The schedule operations through the typed handles: create, invalid input (nothing stored),
 * update with expectedVersion, pause/resume, delete, trigger, firing history; firing on time
 * with `every: "1s"`, the postcondition of bash and out actions, deadlines and health.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ClawError } from "../../src/core/errors.js";
import type { Claw } from "../../src/index.js";
import { apiClaw } from "../helpers/claw.js";

let claw: Claw;
afterEach(async () => {
  await claw?.close();
});

async function rejection(p: Promise<unknown>): Promise<ClawError> {
  try {
    await p;
  } catch (err) {
    return err as ClawError;
  }
  throw new Error("expected a rejection");
}

describe("schedule operations", () => {
  it("creates, reads, lists, updates at a version, pauses, resumes and deletes", async () => {
    claw = await apiClaw();
    const s = await claw.schedule.create({
      name: "weekday report",
      when: { cron: "0 9 * * mon-fri", timezone: "Europe/Berlin" },
      action: { runTask: { prompt: "Write the report" } },
      deadline: "10m",
    });
    expect(s).toMatchObject({
      name: "weekday report",
      version: 1,
      enabled: true,
      overlap: "skip",
      missed: "latest",
      maxCatchUp: 10,
      expect: { status: ["completed"] },
      lastFiring: null,
      health: { status: "unknown", consecutiveFailures: 0, lastOkAt: null },
    });
    const next = new Date(s.nextFireAt!);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    // 09:00 in Berlin is 07:00 or 08:00 UTC, on a weekday.
    expect([7, 8]).toContain(next.getUTCHours());
    expect([1, 2, 3, 4, 5]).toContain(next.getUTCDay());
    expect(await claw.schedule.get({ scheduleId: s.scheduleId })).toMatchObject({ scheduleId: s.scheduleId });
    expect((await claw.schedule.list()).schedules.map((x) => x.scheduleId)).toEqual([s.scheduleId]);

    const updated = await claw.schedule.update({ scheduleId: s.scheduleId, expectedVersion: 1, overlap: "queue" });
    expect(updated).toMatchObject({ version: 2, overlap: "queue", deadline: "10m" });
    const stale = await rejection(
      claw.schedule.update({ scheduleId: s.scheduleId, expectedVersion: 1, overlap: "skip" }),
    );
    expect(stale.code).toBe("version_conflict");
    expect(stale.details).toMatchObject({ currentVersion: 2 });

    const paused = await claw.schedule.pause({ scheduleId: s.scheduleId });
    expect(paused).toMatchObject({ enabled: false, nextFireAt: null, version: 3 });
    expect((await claw.schedule.list({ enabled: false })).schedules).toHaveLength(1);
    const resumed = await claw.schedule.resume({ scheduleId: s.scheduleId });
    expect(resumed).toMatchObject({ enabled: true, version: 4 });
    expect(resumed.nextFireAt).toBe(s.nextFireAt);

    expect(await claw.schedule.delete({ scheduleId: s.scheduleId })).toEqual({ deleted: true });
    expect((await rejection(claw.schedule.get({ scheduleId: s.scheduleId }))).code).toBe("not_found");
    expect(await claw.schedule.delete({ scheduleId: s.scheduleId })).toEqual({ deleted: false });
  });

  it.each([
    [{ cron: "61 * * * *" }, "when.cron"],
    [{ cron: "* * * *" }, "when.cron"],
    [{ cron: "0 9 * * *", timezone: "Europe/Atlantis" }, "when.timezone"],
    [{ every: "500ms" }, "when.every"],
    [{ every: "soon" }, "when.every"],
    [{ at: "tomorrow" }, "when.at"],
    [{ at: "2001-01-01T00:00:00Z" }, "when.at"],
  ])("refuses when %j with invalid_args naming %s, storing nothing", async (when, path) => {
    claw = await apiClaw();
    const err = await rejection(claw.schedule.create({ when, action: { out: { payload: 1 } } } as never));
    expect(err.code).toBe("invalid_args");
    const issues = (err.details as { issues: { path: string; message: string }[] }).issues;
    expect(issues.map((i) => i.path)).toContainEqual(path);
    expect((await claw.schedule.list()).schedules).toEqual([]);
  });

  it("refuses a bad deadline, jitter, action or policy with invalid_args", async () => {
    claw = await apiClaw();
    for (const bad of [
      { deadline: "ten minutes" },
      { jitter: "-" },
      { overlap: "sometimes" },
      { action: { runTask: { prompt: "  " } } },
      { action: { bash: {} } },
    ]) {
      const err = await rejection(
        claw.schedule.create({ when: { every: "1h" }, action: { out: { payload: 1 } }, ...bad } as never),
      );
      expect(err.code, JSON.stringify(bad)).toBe("invalid_args");
    }
    expect((await claw.schedule.list()).schedules).toEqual([]);
  });

  it("fires every second on time, one firing per due time, each an event on the schedules bus", async () => {
    claw = await apiClaw();
    const s = await claw.schedule.create({
      name: "tick",
      when: { every: "1s" },
      action: { out: { bus: "ticks", payload: { tick: true } } },
    });
    await vi.waitFor(
      async () => {
        const { firings } = await claw.schedule.firings({ scheduleId: s.scheduleId });
        expect(firings.filter((f) => f.outcome === "ok").length).toBeGreaterThanOrEqual(3);
      },
      { timeout: 8000, interval: 100 },
    );
    await claw.schedule.pause({ scheduleId: s.scheduleId });
    const { firings } = await claw.schedule.firings({ scheduleId: s.scheduleId });
    const times = firings.map((f) => f.firingAt);
    expect(new Set(times).size).toBe(times.length);
    for (const f of firings.filter((x) => x.outcome === "ok")) {
      expect(f.kind).toBe("due");
      expect(f.startedAt! - f.firingAt).toBeLessThan(1000);
      expect(f.startedAt!).toBeGreaterThanOrEqual(f.firingAt);
    }
    // Consecutive due times one second apart, newest first.
    for (let i = 1; i < times.length; i++) expect(times[i - 1]! - times[i]!).toBe(1000);
    const ticks = await claw.bus.read({ bus: "ticks" });
    expect(ticks.events.length).toBeGreaterThanOrEqual(3);
    const events = (await claw.bus.read({ bus: "schedules", limit: 1000 })).events.map(
      (e) => e.payload as { type: string; outcome?: string; firingAt?: number },
    );
    const firingEvents = events.filter((e) => e.type === "schedule_firing");
    const first = firings.at(-1)!;
    // Claimed and started in one step (no jitter, nothing else running): running, then ok.
    expect(firingEvents.filter((e) => e.firingAt === first.firingAt).map((e) => e.outcome)).toEqual(["running", "ok"]);
    const got = await claw.schedule.get({ scheduleId: s.scheduleId });
    expect(got.health.status).toBe("healthy");
    expect(got.lastFiring?.firingAt).toBe(firings[0]!.firingAt);
  });

  it("holds bash to its exit code, keeps the result, and trigger fires once now", async () => {
    claw = await apiClaw();
    const s = await claw.schedule.create({ when: { every: "1h" }, action: { bash: { script: "echo hi; exit 3" } } });
    const f = await claw.schedule.trigger({ scheduleId: s.scheduleId });
    expect(f.kind).toBe("trigger");
    await vi.waitFor(async () => {
      const [last] = (await claw.schedule.firings({ scheduleId: s.scheduleId })).firings;
      expect(last?.outcome).toBe("failed");
    });
    const [last] = (await claw.schedule.firings({ scheduleId: s.scheduleId })).firings;
    expect(last).toMatchObject({ firingAt: f.firingAt, reason: "exit code 3; expected 0" });
    expect(last!.result).toMatchObject({ stdout: "hi\n", exitCode: 3 });
    const got = await claw.schedule.get({ scheduleId: s.scheduleId });
    expect(got.health).toMatchObject({ status: "failing", consecutiveFailures: 1 });

    const ok = await claw.schedule.update({
      scheduleId: s.scheduleId,
      expectedVersion: 1,
      expect: { exitCode: [0, 3] },
    });
    expect(ok.expect).toEqual({ exitCode: [0, 3] });
    await claw.schedule.trigger({ scheduleId: s.scheduleId });
    await vi.waitFor(async () => {
      const got2 = await claw.schedule.get({ scheduleId: s.scheduleId });
      expect(got2.health).toMatchObject({ status: "healthy", consecutiveFailures: 0 });
    });
  });

  it("marks a firing past its deadline overdue, then its final outcome; history keeps both", async () => {
    claw = await apiClaw();
    const s = await claw.schedule.create({
      when: { every: "1h" },
      action: { bash: { script: "sleep 1.5" } },
      deadline: "300ms",
    });
    const f = await claw.schedule.trigger({ scheduleId: s.scheduleId });
    await vi.waitFor(async () => {
      expect((await claw.schedule.get({ scheduleId: s.scheduleId })).lastFiring?.outcome).toBe("overdue");
    });
    expect((await claw.schedule.get({ scheduleId: s.scheduleId })).health.status).toBe("failing");
    await vi.waitFor(
      async () => {
        expect((await claw.schedule.get({ scheduleId: s.scheduleId })).lastFiring?.outcome).toBe("ok");
      },
      { timeout: 5000 },
    );
    const last = (await claw.schedule.get({ scheduleId: s.scheduleId })).lastFiring!;
    expect(last.overdueAt).toBeGreaterThan(last.startedAt!);
    const outcomes = (await claw.bus.read({ bus: "schedules", limit: 1000 })).events
      .map((e) => e.payload as { type: string; outcome?: string; firingAt?: number })
      .filter((e) => e.type === "schedule_firing" && e.firingAt === f.firingAt)
      .map((e) => e.outcome);
    expect(outcomes).toEqual(["pending", "running", "overdue", "ok"]);
  });

  it("is late when a due time passed with no firing started (paused clocks do not count)", async () => {
    claw = await apiClaw();
    // A due time 2 s ago with a 1 s deadline, that no node handled: as after a stop.
    const s = await claw.schedule.create({ when: { every: "1h" }, action: { out: { payload: 1 } }, deadline: "1s" });
    const sql = claw.services.sql;
    const past = Date.now() - 2000;
    await sql.run("UPDATE schedules SET created_at = ?, watch_from = ?, due_at = ? WHERE id = ?", [
      past - 3_600_000,
      past - 3_600_000,
      past + 3_600_000,
      s.scheduleId,
    ]);
    expect((await claw.schedule.get({ scheduleId: s.scheduleId })).health.status).toBe("late");
    await claw.schedule.trigger({ scheduleId: s.scheduleId });
    await vi.waitFor(async () => {
      expect((await claw.schedule.get({ scheduleId: s.scheduleId })).health.status).toBe("healthy");
    });
  });

  it("pages firings newest first", async () => {
    claw = await apiClaw();
    const s = await claw.schedule.create({ when: { every: "1h" }, action: { out: { payload: 1 } } });
    const fired: number[] = [];
    for (let i = 0; i < 5; i++) fired.push((await claw.schedule.trigger({ scheduleId: s.scheduleId })).firingAt);
    const page1 = await claw.schedule.firings({ scheduleId: s.scheduleId, limit: 3 });
    expect(page1.firings.map((f) => f.firingAt)).toEqual(fired.slice(-3).reverse());
    const page2 = await claw.schedule.firings({ scheduleId: s.scheduleId, limit: 3, before: page1.nextCursor! });
    expect(page2.firings.map((f) => f.firingAt)).toEqual(fired.slice(0, 2).reverse());
    expect(page2.nextCursor).toBeNull();
  });
});
