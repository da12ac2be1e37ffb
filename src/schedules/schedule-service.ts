/**
 * Schedules: the schedule operations (create, get, list, update, pause, resume, delete,
 * trigger, firings) over the store, and the scheduler and firing runner of this node, started
 * and stopped with the claw.
 */
import { randomUUID } from "node:crypto";
import type { BusService } from "../bus/bus-service.js";
import { ClawError } from "../core/errors.js";
import type { Sql } from "../store/sql.js";
import { type FiringPorts, FiringRunner } from "./firing-runner.js";
import { publishScheduleEvent, type ScheduleChanged } from "./schedule-events.js";
import type {
  ScheduleCreateArgs,
  ScheduleFiringsArgs,
  ScheduleListArgs,
  ScheduleUpdateArgs,
} from "./schedule-inputs.js";
import { expectFor, type Firing, type Schedule } from "./schedule-schema.js";
import { type ScheduleRecord, ScheduleStore } from "./schedule-store.js";
import { timetableOf, toSchedule } from "./schedule-view.js";
import { Scheduler } from "./scheduler.js";

/** What the schedule service is built from. */
export interface ScheduleServiceDeps {
  sql: Sql;
  bus: BusService;
  ports: FiringPorts;
  /** This process's node id. */
  node: string;
  /** The nodes alive now (this one included): firings of the others lost their work. */
  liveNodes: () => Promise<string[]>;
  /** Most schedules on the database. Default (from the config): 10 000 */
  maxSchedules: number;
  /** Firings kept per schedule, newest first. Default (from the config): 1 000 */
  historyLimit: number;
  log: (line: string) => void;
}

/** Owns schedules and their firings. */
export class ScheduleService {
  readonly store: ScheduleStore;
  private readonly runner: FiringRunner;
  private readonly scheduler: Scheduler;
  private closed = false;

  constructor(private readonly deps: ScheduleServiceDeps) {
    this.store = new ScheduleStore(deps.sql);
    const o = { node: deps.node, historyLimit: deps.historyLimit, log: deps.log };
    this.runner = new FiringRunner(this.store, deps.bus, deps.ports, o);
    this.scheduler = new Scheduler(this.store, this.runner, deps.bus, o);
  }

  /** Follows tasks and schedule changes, recovers firings a gone process left, arms the timer. */
  async start(): Promise<void> {
    this.runner.start();
    await this.recoverLostWork();
    await this.scheduler.start();
  }

  /** Firings of gone nodes: lost work is failed (interrupted), running tasks are followed here. */
  async recoverLostWork(): Promise<void> {
    if (this.closed) return;
    await this.runner.recover(await this.deps.liveNodes(), (id) => this.store.find(id));
  }

  /** Stops the timer and the work this node runs (bash firings end failed, interrupted). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.scheduler.close();
    await this.runner.close();
  }

  private changed(s: ScheduleRecord, change: ScheduleChanged["change"]): void {
    this.scheduler.changed(s.id, change === "deleted" ? undefined : s);
    const event: ScheduleChanged = {
      type: "schedule_changed",
      scheduleId: s.id,
      change,
      version: s.version,
      node: this.deps.node,
    };
    publishScheduleEvent(this.deps.bus, event, this.deps.log);
  }

  private async view(s: ScheduleRecord): Promise<Schedule> {
    const [last] = await this.store.firings(s.id, 1);
    return toSchedule(s, last ?? null);
  }

  private async record(id: string): Promise<ScheduleRecord> {
    const s = await this.store.find(id);
    if (!s) throw new ClawError("not_found", `no schedule ${id}`, { scheduleId: id });
    return s;
  }

  /** schedule_create. */
  async create(args: ScheduleCreateArgs): Promise<Schedule> {
    if ((await this.store.count()) >= this.deps.maxSchedules)
      throw new ClawError("limit_reached", `at most ${this.deps.maxSchedules} schedules; delete one first`, {
        limit: "maxSchedules",
        max: this.deps.maxSchedules,
      });
    const now = Date.now();
    const id = `sch_${randomUUID()}`;
    const { name, enabled, when, action, expect, ...policies } = args;
    const s: ScheduleRecord = {
      id,
      name: name ?? id,
      version: 1,
      spec: { when, action, ...policies, expect: expectFor(action, expect) },
      enabled,
      createdAt: now,
      updatedAt: now,
      dueAt: null,
      watchFrom: now,
      lastStartedDue: null,
      lastOkAt: null,
      consecutiveFailures: 0,
    };
    // `at` may be up to a second old (a clock apart): it is still due, not missed.
    s.dueAt = "at" in when ? Date.parse(when.at) : timetableOf(s).next(now);
    s.watchFrom = Math.min(now, s.dueAt ?? now);
    await this.store.insert(s);
    this.changed(s, "created");
    return this.view(s);
  }

  /** schedule_get. */
  async get(id: string): Promise<Schedule> {
    return this.view(await this.record(id));
  }

  /** schedule_list: oldest first, paged. */
  async list(args: ScheduleListArgs): Promise<{ schedules: Schedule[]; nextCursor: string | null }> {
    let after: { createdAt: number; id: string } | undefined;
    if (args.cursor !== undefined) {
      const dot = args.cursor.indexOf(".");
      const createdAt = Number(args.cursor.slice(0, dot));
      if (dot < 0 || !Number.isFinite(createdAt))
        throw new ClawError("invalid_args", "cursor is not a nextCursor of schedule_list", {
          issues: [{ path: ["cursor"], message: "not a nextCursor of schedule_list" }],
        });
      after = { createdAt, id: args.cursor.slice(dot + 1) };
    }
    const rows = await this.store.list(args.enabled, args.limit + 1, after);
    const page = rows.slice(0, args.limit);
    const last = page.at(-1);
    return {
      schedules: await Promise.all(page.map((s) => this.view(s))),
      nextCursor: rows.length > args.limit && last ? `${last.createdAt}.${last.id}` : null,
    };
  }

  /** Writes a change at the version read; version_conflict when another change came first. */
  private async write(
    s: ScheduleRecord,
    expectedVersion: number,
    change: ScheduleChanged["change"],
  ): Promise<Schedule> {
    s.version = expectedVersion + 1;
    s.updatedAt = Date.now();
    if (!(await this.store.write(s, expectedVersion))) {
      const now = await this.record(s.id);
      throw new ClawError("version_conflict", `schedule ${s.id} is at version ${now.version}`, {
        currentVersion: now.version,
      });
    }
    this.changed(s, change);
    return this.view(s);
  }

  /** schedule_update: the given fields, at `expectedVersion`. A new `when` takes effect from now. */
  async update(args: ScheduleUpdateArgs): Promise<Schedule> {
    const s = await this.record(args.scheduleId);
    if (s.version !== args.expectedVersion)
      throw new ClawError("version_conflict", `schedule ${s.id} is at version ${s.version}`, {
        currentVersion: s.version,
      });
    const { scheduleId: _, expectedVersion, name, expect, ...fields } = args;
    const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
    const spec = { ...s.spec, ...defined };
    spec.expect = expectFor(
      spec.action,
      expect === null ? undefined : (expect ?? (fields.action ? undefined : s.spec.expect)),
    );
    const next: ScheduleRecord = { ...s, name: name ?? s.name, spec };
    if (fields.when) {
      const now = Date.now();
      next.dueAt = "at" in fields.when ? Date.parse(fields.when.at) : timetableOf(next).next(now);
      next.watchFrom = Math.min(now, next.dueAt ?? now);
    }
    return this.write(next, expectedVersion, "updated");
  }

  /** schedule_pause: no firing until resumed (a paused schedule is returned unchanged). */
  async pause(id: string): Promise<Schedule> {
    const s = await this.record(id);
    if (!s.enabled) return this.view(s);
    return this.write({ ...s, enabled: false }, s.version, "paused");
  }

  /** schedule_resume: due times that passed while paused follow the `missed` policy. */
  async resume(id: string): Promise<Schedule> {
    const s = await this.record(id);
    if (s.enabled) return this.view(s);
    return this.write({ ...s, enabled: true, watchFrom: Date.now() }, s.version, "resumed");
  }

  /** schedule_delete: the schedule and its history; its bash work stops (its tasks go on). */
  async delete(id: string): Promise<{ deleted: boolean }> {
    const s = await this.store.find(id);
    if (!s) return { deleted: false };
    const deleted = await this.store.delete(id);
    this.runner.stopSchedule(id);
    this.changed({ ...s, version: s.version + 1 }, "deleted");
    return { deleted };
  }

  /** schedule_trigger: one firing now, outside the timetable (it waits for a firing that still runs). */
  async trigger(id: string): Promise<Firing> {
    const s = await this.record(id);
    let at = Date.now();
    const firing = {
      scheduleId: id,
      kind: "trigger" as const,
      outcome: "pending" as const,
      reason: "triggered",
      node: this.deps.node,
    };
    // A due time of the same millisecond holds that key: the trigger takes the next free one.
    let f = await this.store.insertFiring({ ...firing, firingAt: at }, at);
    while (!f) f = await this.store.insertFiring({ ...firing, firingAt: ++at }, at);
    this.runner.announce(f, s.name);
    await this.runner.kick(s);
    return (await this.store.firing(id, at)) ?? f;
  }

  /** schedule_firings: newest first, paged by due time. */
  async firings(args: ScheduleFiringsArgs): Promise<{ firings: Firing[]; nextCursor: number | null }> {
    await this.record(args.scheduleId);
    const rows = await this.store.firings(args.scheduleId, args.limit + 1, args.before);
    const page = rows.slice(0, args.limit);
    return { firings: page, nextCursor: rows.length > args.limit ? page.at(-1)!.firingAt : null };
  }
}
