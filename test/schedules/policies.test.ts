/**
 * Overlap and missed policies in one process: skip, queue (one waits at most), cancel_previous;
 * due times that passed while paused (missed); runTask firings held to a postcondition with a receipt.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Claw } from "../../src/index.js";
import type { Firing } from "../../src/schedules/schedule-schema.js";
import { answer } from "../fixtures/fake-responses.js";
import { apiClaw } from "../helpers/claw.js";
import { fixture } from "../tasks/helpers.js";

const claws: Claw[] = [];
afterEach(async () => {
  for (const c of claws.splice(0)) await c.close();
});

async function firingsOf(claw: Claw, scheduleId: string): Promise<Firing[]> {
  return (await claw.schedule.firings({ scheduleId, limit: 1000 })).firings.reverse();
}

describe("overlap", () => {
  it("skip: due times that find the previous firing running are recorded skipped", async () => {
    const claw = await apiClaw();
    claws.push(claw);
    const s = await claw.schedule.create({ when: { every: "1s" }, action: { bash: { script: "sleep 2.4" } } });
    await vi.waitFor(
      async () => {
        const f = await firingsOf(claw, s.scheduleId);
        expect(f.some((x) => x.outcome === "ok")).toBe(true);
        expect(f.filter((x) => x.outcome === "skipped").length).toBeGreaterThanOrEqual(2);
      },
      { timeout: 8000, interval: 100 },
    );
    await claw.schedule.pause({ scheduleId: s.scheduleId });
    const f = await firingsOf(claw, s.scheduleId);
    expect(f[0]!.outcome).toBe("ok");
    expect(f[1]).toMatchObject({
      outcome: "skipped",
      reason: expect.stringMatching(/^overlap: the firing due .* has not ended$/),
    });
    expect(f[1]!.startedAt).toBeNull();
  });

  it("queue: one due time waits and runs after the previous ends; a second is skipped", async () => {
    const claw = await apiClaw();
    claws.push(claw);
    const s = await claw.schedule.create({
      when: { every: "1s" },
      overlap: "queue",
      action: { bash: { script: "sleep 2.2" } },
    });
    await vi.waitFor(
      async () => {
        const f = await firingsOf(claw, s.scheduleId);
        expect(f.filter((x) => x.outcome === "ok").length).toBeGreaterThanOrEqual(2);
      },
      { timeout: 9000, interval: 100 },
    );
    await claw.schedule.pause({ scheduleId: s.scheduleId });
    const f = await firingsOf(claw, s.scheduleId);
    const events = (await claw.bus.read({ bus: "schedules", limit: 1000 })).events.map(
      (e) => e.payload as { firingAt?: number; outcome?: string; reason?: string },
    );
    expect(events.find((e) => e.firingAt === f[1]!.firingAt && e.outcome === "pending")?.reason).toMatch(
      /^queued behind the firing due/,
    );
    expect(f[1]!.startedAt!).toBeGreaterThanOrEqual(f[0]!.endedAt!);
    expect(f[2]).toMatchObject({ outcome: "skipped", reason: "overlap: a firing already waits (queue holds one)" });
    expect(f.filter((x) => x.outcome === "running" || x.outcome === "pending").length).toBeLessThanOrEqual(2);
  });

  it("cancel_previous: the next due time fails the running firing and kills its bash", async () => {
    const claw = await apiClaw();
    claws.push(claw);
    const s = await claw.schedule.create({
      when: { every: "1s" },
      overlap: "cancel_previous",
      action: { bash: { script: "sleep 30" } },
    });
    await vi.waitFor(
      async () => {
        const f = await firingsOf(claw, s.scheduleId);
        expect(f.filter((x) => x.outcome === "failed").length).toBeGreaterThanOrEqual(2);
      },
      { timeout: 8000, interval: 100 },
    );
    await claw.schedule.pause({ scheduleId: s.scheduleId });
    const f = await firingsOf(claw, s.scheduleId);
    expect(f[0]!.reason).toMatch(/^cancelled: the next due time .* arrived \(overlap cancel_previous\)$/);
    expect(f[0]!.endedAt! - f[1]!.firingAt).toBeLessThan(1000);
    expect(f[1]!.startedAt).not.toBeNull();
  });
});

describe("missed", () => {
  it("resume: due times that passed while paused follow the missed policy", async () => {
    const claw = await apiClaw();
    claws.push(claw);
    const s = await claw.schedule.create({ when: { every: "1s" }, missed: "latest", action: { out: { payload: 1 } } });
    await claw.schedule.pause({ scheduleId: s.scheduleId });
    // The pause itself (time is what is tested): 2.6 s of a 1 s schedule leaves due times behind it.
    await new Promise((r) => setTimeout(r, 2600));
    await claw.schedule.resume({ scheduleId: s.scheduleId });
    await vi.waitFor(async () => {
      const f = await firingsOf(claw, s.scheduleId);
      expect(f.some((x) => x.kind === "catch_up" && x.outcome === "ok")).toBe(true);
    });
    const f = await firingsOf(claw, s.scheduleId);
    expect(f.filter((x) => x.outcome === "missed").every((x) => x.reason?.startsWith("the schedule was paused"))).toBe(
      true,
    );
    expect(f.filter((x) => x.outcome === "missed").length).toBeGreaterThanOrEqual(1);
  });
});

describe("runTask", () => {
  it("starts a task per firing carrying scheduleId and firingAt; expect status done with a receipt", async () => {
    const fx = await fixture();
    claws.push({ close: () => fx.close() } as Claw);
    const claw = await apiClaw({ baseURL: fx.fake.url });
    claws.push(claw);
    fx.fake.script(answer("report written"));
    const plain = await claw.schedule.create({
      when: { every: "1h" },
      action: { runTask: { prompt: "Write the report" } },
    });
    const f = await claw.schedule.trigger({ scheduleId: plain.scheduleId });
    await vi.waitFor(async () =>
      expect((await claw.schedule.get({ scheduleId: plain.scheduleId })).lastFiring?.outcome).toBe("ok"),
    );
    const fired = (await claw.schedule.get({ scheduleId: plain.scheduleId })).lastFiring!;
    const task = await claw.task.get({ taskId: fired.taskId! });
    expect(task).toMatchObject({ status: "completed", scheduleId: plain.scheduleId, firingAt: f.firingAt });

    fx.fake.script(answer("done, I think"));
    const strict = await claw.schedule.create({
      when: { every: "1h" },
      action: { runTask: { prompt: "Write the report" } },
      expect: { status: ["done"], receipt: true },
    });
    await claw.schedule.trigger({ scheduleId: strict.scheduleId });
    await vi.waitFor(async () =>
      expect((await claw.schedule.get({ scheduleId: strict.scheduleId })).lastFiring?.outcome).toBe("failed"),
    );
    const failed = await claw.schedule.get({ scheduleId: strict.scheduleId });
    expect(failed.lastFiring!.reason).toBe("task ended completed; expected done");
    expect(failed.health.status).toBe("failing");
  });
});
