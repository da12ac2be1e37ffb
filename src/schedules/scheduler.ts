/**
 * The scheduler of one node: an in-memory index of the enabled schedules' next due times and
 * one timer to the earliest (no polling of the database). It is re-armed by every schedule
 * change, made here or, on PostgreSQL, on another node (their `schedule_changed` events arrive
 * on the `schedules` bus). When a due time arrives, the node claims it in one transaction: the
 * schedule's next unhandled due time moves forward by compare-and-set and the firing rows are
 * inserted under their unique (schedule, due time) key, so exactly one node handles each due
 * time; the overlap policy is decided in the same transaction.
 */
import type { BusService } from "../bus/bus-service.js";
import { type PlannedFiring, planFirings } from "./firing-plan.js";
import type { FiringRunner } from "./firing-runner.js";
import { SCHEDULES_BUS, type ScheduleBusEvent } from "./schedule-events.js";
import type { Firing } from "./schedule-schema.js";
import type { ScheduleRecord, ScheduleStore } from "./schedule-store.js";
import { timetableOf } from "./schedule-view.js";

/** Longest timer Node accepts (about 24.8 days); a later due time re-arms it on expiry. */
const MAX_TIMER_MS = 2_147_483_647;
/** Due times up to this long before this node started still fire normally (a quick restart misses nothing). */
export const START_GRACE_MS = 2000;

/** Options of a scheduler. */
export interface SchedulerOptions {
  node: string;
  historyLimit: number;
  log: (line: string) => void;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** One node's timer over every enabled schedule. */
export class Scheduler {
  private readonly due = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  /** Schedules being handled now (each by one handler at a time). */
  private readonly inFlight = new Set<string>();
  private readonly handling = new Set<Promise<void>>();
  /** True while a re-arm waits for this turn's microtasks to end. */
  private armQueued = false;
  private closed = false;
  private unlisten = () => {};
  private readonly startedAt = Date.now();

  constructor(
    private readonly store: ScheduleStore,
    private readonly runner: FiringRunner,
    private readonly bus: BusService,
    private readonly o: SchedulerOptions,
  ) {}

  /** Loads the index and follows schedule changes; the first tick (missed due times) runs at once after. */
  async start(): Promise<void> {
    this.unlisten = this.bus.listen(SCHEDULES_BUS, (events) => {
      for (const e of events) this.onEvent(JSON.parse(e.payloadJson) as ScheduleBusEvent);
    });
    for (const { id, dueAt } of await this.store.watched()) this.due.set(id, dueAt);
    this.arm();
  }

  private onEvent(e: ScheduleBusEvent): void {
    if (this.closed) return;
    if (e.type === "schedule_changed") {
      if (e.node !== this.o.node) void this.reload(e.scheduleId);
      if (e.change === "deleted") this.runner.stopSchedule(e.scheduleId);
    } else if ((e.outcome === "failed" || e.outcome === "ok") && this.runner.runsHere(e.scheduleId, e.firingAt)) {
      // Work still followed here whose firing ended: another node ended it (overlap
      // cancel_previous), since this node stops following a firing before it ends it.
      this.runner.stopLocal(e.scheduleId, e.firingAt);
    }
  }

  /** Reads one schedule again (after a change) and re-arms the timer. */
  async reload(id: string): Promise<void> {
    const s = await this.store.find(id).catch(() => undefined);
    this.changed(id, s);
  }

  /** A schedule changed here: its next due time (none when paused, deleted or spent). */
  changed(id: string, s: ScheduleRecord | undefined): void {
    if (s?.enabled && s.dueAt !== null) this.due.set(id, s.dueAt);
    else this.due.delete(id);
    this.arm();
  }

  /**
   * Re-arms the timer once the current microtasks have run: a burst of changes (a thousand
   * schedules handled in one second each report their next due time) pays for one scan of the
   * index, not one each.
   */
  private arm(): void {
    if (this.closed || this.armQueued) return;
    this.armQueued = true;
    queueMicrotask(() => {
      this.armQueued = false;
      this.armNow();
    });
  }

  private armNow(): void {
    if (this.closed) return;
    let next = Number.POSITIVE_INFINITY;
    for (const [id, t] of this.due) if (t < next && !this.inFlight.has(id)) next = t;
    if (next === this.timerAt && this.timer) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = next;
    if (next === Number.POSITIVE_INFINITY) return;
    this.timer = setTimeout(() => this.tick(), Math.min(MAX_TIMER_MS, Math.max(0, next - Date.now())));
    this.timer.unref();
  }

  /**
   * Starts handling every due schedule at once (each one at a time: one that is still being
   * handled is left out), then re-arms for the next.
   */
  private tick(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = Date.now();
    for (const [id, t] of this.due) {
      if (t > now || this.inFlight.has(id)) continue;
      this.inFlight.add(id);
      const handled = this.handle(id, now)
        .catch((err) => {
          this.o.log(`tsclaw: schedule ${id}: ${String(err)}`);
          if (this.due.has(id)) this.due.set(id, Date.now() + 1000); // retried in a second, not in a tight loop
        })
        .finally(() => {
          this.inFlight.delete(id);
          this.handling.delete(handled);
          this.arm();
        });
      this.handling.add(handled);
    }
    this.arm();
  }

  /** Claims and records the due times of one schedule that have arrived, then starts what fires. */
  private async handle(id: string, now: number): Promise<void> {
    if (this.closed) return;
    type Claimed = { s: ScheduleRecord | undefined; written: Firing[]; started?: Firing };
    const claimed = await this.store.tx(async (store): Promise<Claimed> => {
      const s = await store.lockForClaim(id);
      if (!s?.enabled || s.dueAt === null || s.dueAt > now) return { s, written: [] };
      const plan = planFirings(s, timetableOf(s), now, this.startedAt - START_GRACE_MS, this.o.historyLimit);
      if (!(await store.advance(s.id, s.dueAt, plan.nextDue, null))) return { s: undefined, written: [] };
      s.dueAt = plan.nextDue;
      return { s, ...(await this.record(store, s, plan.firings)) };
    });
    if (!claimed.s) {
      // Gone, or another node holds it to handle the same due times: watch the next one after now.
      const s = await this.store.find(id);
      if (s?.dueAt != null && s.dueAt <= now) s.dueAt = timetableOf(s).next(now);
      this.changed(id, s);
      return;
    }
    this.changed(id, claimed.s);
    for (const f of claimed.written) {
      this.runner.announce(f, claimed.s.name);
      // Cancelled by this due time (overlap cancel_previous): its work stops, here or on its node.
      if (f.outcome === "failed") await this.runner.cancelWork(f);
    }
    // The common case (one firing, nothing else active, no jitter) was recorded running: its work starts now.
    if (claimed.started) this.runner.runStarted(claimed.s, claimed.started);
    else await this.runner.kick(claimed.s);
  }

  /**
   * Inserts the planned rows, applying the overlap policy to a due firing that finds work still
   * running. A lone due firing of an idle schedule without jitter is recorded `running` at once
   * (claimed and started in one transaction: one write and one event less per firing).
   */
  private async record(
    store: ScheduleStore,
    s: ScheduleRecord,
    planned: PlannedFiring[],
  ): Promise<{ written: Firing[]; started?: Firing }> {
    const written: Firing[] = [];
    let started: Firing | undefined;
    const active = await store.active(s.id);
    const direct =
      active.length === 0 && s.spec.jitter === null && planned.filter((p) => p.outcome === "pending").length === 1;
    const now = Date.now();
    for (const p of planned) {
      let row = p;
      if (p.outcome === "pending" && p.kind === "due" && active.length > 0) {
        const overlap = await this.overlap(store, s, p, active, now);
        written.push(...overlap.ended);
        row = overlap.row;
      }
      const startNow = direct && row.outcome === "pending";
      const f = await store.insertFiring(
        { scheduleId: s.id, node: this.o.node, ...row, ...(startNow ? { outcome: "running", startedAt: now } : {}) },
        now,
      );
      if (!f) continue;
      written.push(f);
      if (startNow) {
        started = f;
        await store.started(s.id, f.firingAt);
      }
      if (f.outcome === "pending") active.push(f);
    }
    // Many rows at once (catch-up after downtime): keep the history bounded now; else a firing's end trims it.
    if (planned.length > 1) await store.trim(s.id, this.o.historyLimit);
    return { written, started };
  }

  /** A due firing while earlier work runs: skipped, queued (one waits at most), or the earlier work cancelled. */
  private async overlap(store: ScheduleStore, s: ScheduleRecord, p: PlannedFiring, active: Firing[], now: number) {
    const previous = active[0]!;
    const ended: Firing[] = [];
    if (s.spec.overlap === "skip")
      return {
        row: {
          ...p,
          outcome: "skipped" as const,
          reason: `overlap: the firing due ${iso(previous.firingAt)} has not ended`,
        },
        ended,
      };
    if (s.spec.overlap === "queue") {
      if (active.some((f) => f.outcome === "pending"))
        return {
          row: { ...p, outcome: "skipped" as const, reason: "overlap: a firing already waits (queue holds one)" },
          ended,
        };
      return { row: { ...p, reason: `queued behind the firing due ${iso(previous.firingAt)}` }, ended };
    }
    for (const f of active.splice(0)) {
      const cancelled = await store.setOutcome(s.id, f.firingAt, [f.outcome], "failed", {
        reason: `cancelled: the next due time ${iso(p.firingAt)} arrived (overlap cancel_previous)`,
        endedAt: now,
      });
      if (!cancelled) continue;
      ended.push(cancelled);
      await store.ended(s.id, false, now);
    }
    return { row: p, ended };
  }

  /** Stops the timer and stops following changes. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.unlisten();
    await Promise.all(this.handling);
  }
}
