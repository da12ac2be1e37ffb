/**
 * Schedules across restarts: due times that passed while the claw was closed, or while a
 * `tsclaw serve` process was stopped with SIGTERM, follow the missed policy within 5 s of the
 * start; a firing whose process was killed with SIGKILL while it ran becomes failed
 * (interrupted) and the next due time fires normally; no due time is recorded or fired twice.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type Claw, createClaw } from "../../src/index.js";
import type { Firing } from "../../src/schedules/schedule-schema.js";
import { type ServeProcess, startServe } from "../fault/serve-process.js";
import { tempDir } from "../helpers/claw.js";

const claws: Claw[] = [];
const servers: ServeProcess[] = [];
afterEach(async () => {
  for (const c of claws.splice(0)) await c.close();
  for (const s of servers.splice(0)) await s.kill9().catch(() => {});
});

async function firingsOf(claw: Claw, scheduleId: string): Promise<Firing[]> {
  return (await claw.schedule.firings({ scheduleId, limit: 1000 })).firings.reverse();
}

async function served(server: ServeProcess, scheduleId: string): Promise<Firing[]> {
  const r = await server.op("schedule_firings", { scheduleId, limit: 1000 });
  expect(r.body.ok, JSON.stringify(r.body)).toBe(true);
  return (r.body.result.firings as Firing[]).reverse();
}

function fileClaw(db: string): Claw {
  const claw = createClaw({ db, project: "test", validateOutputs: true, log: () => {} });
  claws.push(claw);
  return claw;
}

/** Due times of the timetable (not triggers) are each recorded once, one interval apart. */
function expectEachDueTimeOnce(firings: Firing[], intervalMs: number): void {
  const times = firings.filter((f) => f.kind !== "trigger").map((f) => f.firingAt);
  expect(new Set(times).size).toBe(times.length);
  for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(intervalMs);
}

async function serve(db: string): Promise<ServeProcess> {
  const server = await startServe(db, ["--listen", "127.0.0.1:0"]);
  servers.push(server);
  return server;
}

describe("schedules across restarts", () => {
  it("handles due times that passed while closed by each policy, within 5 s of the start", async () => {
    const db = join(tempDir(), "claw.db");
    const first = fileClaw(db);
    const ids: Record<string, string> = {};
    for (const missed of ["skip", "latest", "all"] as const)
      ids[missed] = (
        await first.schedule.create({
          name: missed,
          when: { every: "1s" },
          missed,
          maxCatchUp: 2,
          action: { out: { payload: missed } },
        })
      ).scheduleId;
    await vi.waitFor(
      async () => expect((await firingsOf(first, ids.skip!)).some((f) => f.outcome === "ok")).toBe(true),
      {
        timeout: 5000,
      },
    );
    await first.close();
    const stoppedAt = Date.now();
    // The downtime itself: due times within 2 s of a start count as a quick restart, so 6.5 s
    // leaves at least four missed due times, more than `all`'s maxCatchUp of 2.
    await new Promise((r) => setTimeout(r, 6500));
    const second = fileClaw(db);
    await second.ready();
    const startedAt = Date.now();
    await vi.waitFor(
      async () => {
        for (const id of Object.values(ids))
          expect((await firingsOf(second, id)).some((f) => f.outcome === "missed")).toBe(true);
        const all = await firingsOf(second, ids.all!);
        expect(all.filter((f) => f.kind === "catch_up" && f.outcome === "ok")).toHaveLength(2);
      },
      { timeout: 5000, interval: 50 },
    );
    expect(Date.now() - startedAt).toBeLessThan(5000);
    for (const c of claws)
      if (c === second) for (const id of Object.values(ids)) await c.schedule.pause({ scheduleId: id });
    const down = (f: Firing) => f.firingAt > stoppedAt && f.firingAt < startedAt - 2000;
    const skip = (await firingsOf(second, ids.skip!)).filter(down);
    const latest = (await firingsOf(second, ids.latest!)).filter(down);
    const all = (await firingsOf(second, ids.all!)).filter(down);
    expect(skip.length).toBeGreaterThanOrEqual(2);
    expect(skip.every((f) => f.outcome === "missed" && f.reason?.startsWith("no node was running"))).toBe(true);
    expect(latest.at(-1)).toMatchObject({ kind: "catch_up", outcome: "ok" });
    expect(latest.slice(0, -1).every((f) => f.outcome === "missed")).toBe(true);
    expect(all.slice(-2).map((f) => [f.kind, f.outcome])).toEqual([
      ["catch_up", "ok"],
      ["catch_up", "ok"],
    ]);
    expect(all.slice(0, -2).every((f) => f.outcome === "missed")).toBe(true);
    // Every due time has exactly one record, none twice, none lost.
    for (const id of Object.values(ids)) {
      const times = (await firingsOf(second, id)).filter((f) => f.kind !== "trigger").map((f) => f.firingAt);
      expect(new Set(times).size).toBe(times.length);
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(1000);
    }
  });

  it("a serve process stopped with SIGTERM catches up by policy when started again", async () => {
    const db = join(tempDir(), "claw.db");
    let server = await serve(db);
    const created = await server.op("schedule_create", {
      when: { every: "1s" },
      missed: "all",
      maxCatchUp: 2,
      action: { out: { bus: "beats", payload: "beat" } },
    });
    const id = created.body.result.scheduleId as string;
    await vi.waitFor(async () => expect((await served(server, id)).some((f) => f.outcome === "ok")).toBe(true), {
      timeout: 5000,
    });
    expect(await server.stop()).toBe(0);
    servers.splice(servers.indexOf(server), 1);
    // The downtime itself (time is what is tested): 5 s of a 1 s schedule. Due times up to 2 s
    // before the new start count as a quick restart's (they fire as usual), so 3 or 4 due times
    // are missed, whatever the machine's speed: more than maxCatchUp (with 3, a quick start left
    // exactly 3, all caught up, and none recorded missed).
    await new Promise((r) => setTimeout(r, 5000));
    server = await serve(db);
    const startedAt = Date.now();
    await vi.waitFor(
      async () => {
        const f = await served(server, id);
        expect(f.filter((x) => x.kind === "catch_up" && x.outcome === "ok")).toHaveLength(2);
      },
      { timeout: 5000, interval: 50 },
    );
    expect(Date.now() - startedAt).toBeLessThan(5000);
    await server.op("schedule_pause", { scheduleId: id });
    const f = await served(server, id);
    expect(f.filter((x) => x.outcome === "missed").length).toBeGreaterThanOrEqual(1);
    expect(f.some((x) => x.outcome === "running" || x.outcome === "pending")).toBe(false);
    expectEachDueTimeOnce(f, 1000);
  });

  it("kill -9 while a firing runs: it becomes failed (interrupted) and the next due time fires", async () => {
    const db = join(tempDir(), "claw.db");
    let server = await serve(db);
    const created = await server.op("schedule_create", {
      when: { every: "2s" },
      missed: "skip",
      action: { bash: { script: "sleep 30" } },
    });
    const id = created.body.result.scheduleId as string;
    let running: Firing | undefined;
    await vi.waitFor(
      async () => {
        running = (await served(server, id)).find((f) => f.outcome === "running");
        expect(running).toBeDefined();
      },
      { timeout: 6000 },
    );
    await server.kill9();
    servers.splice(servers.indexOf(server), 1);
    server = await serve(db);
    await vi.waitFor(
      async () => {
        const f = await served(server, id);
        expect(f.find((x) => x.firingAt === running!.firingAt)).toMatchObject({
          outcome: "failed",
          reason: "interrupted",
        });
        expect(f.some((x) => x.firingAt > running!.firingAt && x.outcome === "running")).toBe(true);
      },
      { timeout: 8000, interval: 100 },
    );
    await server.op("schedule_pause", { scheduleId: id });
    expectEachDueTimeOnce(await served(server, id), 2000);
    const got = await server.op("schedule_get", { scheduleId: id });
    expect(got.body.result.health.consecutiveFailures).toBeGreaterThanOrEqual(1);
  });
});
