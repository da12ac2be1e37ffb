/**
 * Runs firings: starts a pending firing's work (after its jitter), holds it to the schedule's
 * deadline and postcondition, records its outcome (each change an event on the `schedules`
 * bus), then starts the next firing waiting behind it. Also recovers firings whose node is gone
 * (a restart, kill -9, a lost PostgreSQL node): work that was lost is `failed` (interrupted),
 * a task that still runs is followed here.
 */
import type { BashResult } from "../bash/bash-schema.js";
import type { BusService } from "../bus/bus-service.js";
import type { StoredEvent } from "../bus/event-store.js";
import { parseGoDuration } from "../core/duration.js";
import type { TaskStatus } from "../tasks/task-schema.js";
import { ACTIONABLE, TERMINAL } from "../tasks/task-status.js";
import { TASKS_BUS } from "../tasks/tasks-bus.js";
import { checkBash, checkTask, type TaskOutcome } from "./expectations.js";
import { firingEventOf, publishScheduleEvent } from "./schedule-events.js";
import type { Action, Firing, FiringOutcome } from "./schedule-schema.js";
import type { ScheduleRecord, ScheduleStore } from "./schedule-store.js";

/** What running a firing's action needs from the rest of the claw (given by createClaw). */
export interface FiringPorts {
  /** Starts a run task carrying the schedule and due time; its id. */
  runTask(
    action: Extract<Action, { runTask: unknown }>["runTask"],
    origin: { scheduleId: string; firingAt: number },
  ): Promise<string>;
  /** A task's status, error and whether it carries a receipt; undefined when it is gone. */
  taskOutcome(taskId: string): Promise<TaskOutcome | undefined>;
  cancelTask(taskId: string): Promise<void>;
  /** Runs the bash operation. */
  bash(args: Extract<Action, { bash: unknown }>["bash"], signal: AbortSignal): Promise<BashResult>;
  /** Runs the out operation. */
  out(args: Extract<Action, { out: unknown }>["out"]): Promise<void>;
}

/** A firing running on this node. */
interface LocalWork {
  schedule: ScheduleRecord;
  firingAt: number;
  taskId?: string;
  abort: AbortController;
  deadline?: NodeJS.Timeout;
  done: Promise<void>;
}

const FINAL_FROM: readonly FiringOutcome[] = ["running", "overdue"];

const key = (scheduleId: string, firingAt: number) => `${scheduleId}@${firingAt}`;

/** Starts, follows and ends firings on this node. */
export class FiringRunner {
  private readonly local = new Map<string, LocalWork>();
  private readonly byTask = new Map<string, string>();
  private readonly jitters = new Set<NodeJS.Timeout>();
  private unlisten = () => {};
  private closed = false;

  constructor(
    private readonly store: ScheduleStore,
    private readonly bus: BusService,
    private readonly ports: FiringPorts,
    private readonly o: { node: string; historyLimit: number; log: (line: string) => void },
  ) {}

  /** Follows task changes (every node's, on PostgreSQL) to end the firings whose task ended. */
  start(): void {
    this.unlisten = this.bus.listen(TASKS_BUS, (events) => this.onTaskEvents(events));
  }

  /** Publishes a firing's new outcome. */
  announce(f: Firing, name: string): void {
    publishScheduleEvent(this.bus, firingEventOf(f, name), this.o.log);
  }

  /** Starts the oldest pending firing of `s` unless one of its firings runs; after its jitter. */
  async kick(s: ScheduleRecord): Promise<void> {
    if (this.closed) return;
    const active = await this.store.active(s.id);
    if (active.some((f) => f.outcome !== "pending")) return;
    const next = active[0];
    if (next) await this.startAfterJitter(s, next.firingAt, next.kind === "trigger");
  }

  /** Starts pending firing `firingAt` of `s` after a random delay up to its jitter (none for a trigger). */
  async startAfterJitter(s: ScheduleRecord, firingAt: number, now = false): Promise<void> {
    const jitter = s.spec.jitter !== null && !now ? parseGoDuration(s.spec.jitter)! : 0;
    const delay = Math.floor(Math.random() * jitter);
    if (delay <= 0) return this.begin(s, firingAt);
    const timer = setTimeout(() => {
      this.jitters.delete(timer);
      void this.begin(s, firingAt).catch((err) => this.o.log(`tsclaw: firing of ${s.id} not started: ${String(err)}`));
    }, delay);
    timer.unref();
    this.jitters.add(timer);
  }

  /** Claims a pending firing (compare-and-set: one node wins) and runs its action. */
  private async begin(s: ScheduleRecord, firingAt: number): Promise<void> {
    if (this.closed) return;
    const startedAt = Date.now();
    const started = await this.store.setOutcome(s.id, firingAt, ["pending"], "running", {
      node: this.o.node,
      startedAt,
      reason: null,
    });
    if (!started) return;
    await this.store.started(s.id, firingAt);
    this.announce(started, s.name);
    this.runStarted(s, started);
  }

  /** Runs the work of a firing this node recorded `running` (its event already announced or to be). */
  runStarted(s: ScheduleRecord, f: Firing): void {
    if (this.closed) return;
    const work: LocalWork = {
      schedule: s,
      firingAt: f.firingAt,
      abort: new AbortController(),
      done: Promise.resolve(),
    };
    this.local.set(key(s.id, f.firingAt), work);
    this.armDeadline(work, f.startedAt ?? Date.now());
    work.done = this.run(work).catch((err) => this.o.log(`tsclaw: firing of ${s.id} failed to run: ${String(err)}`));
  }

  private async run(work: LocalWork): Promise<void> {
    const { schedule: s, firingAt } = work;
    const action = s.spec.action;
    if ("runTask" in action) {
      let taskId: string;
      try {
        taskId = await this.ports.runTask(action.runTask, { scheduleId: s.id, firingAt });
      } catch (err) {
        return this.finish(work, false, `task not started: ${describe(err)}`, {});
      }
      work.taskId = taskId;
      this.byTask.set(taskId, key(s.id, firingAt));
      const f = await this.store.setOutcome(s.id, firingAt, FINAL_FROM, "running", { taskId });
      if (f) this.announce(f, s.name);
      // It may have ended before it was followed.
      await this.checkTask(work);
      return;
    }
    if ("bash" in action) {
      let result: BashResult;
      try {
        result = await this.ports.bash(action.bash, work.abort.signal);
      } catch (err) {
        return this.finish(work, false, this.closed ? "interrupted" : `bash not run: ${describe(err)}`, {});
      }
      const verdict = checkBash(result, s.spec.expect);
      return this.finish(work, verdict.ok, verdict.reason, { result });
    }
    try {
      await this.ports.out(action.out);
      return this.finish(work, true, null, {});
    } catch (err) {
      return this.finish(work, false, `out failed: ${describe(err)}`, {});
    }
  }

  private armDeadline(work: LocalWork, startedAt: number): void {
    const deadline = work.schedule.spec.deadline;
    if (deadline === null) return;
    const due = startedAt + parseGoDuration(deadline)!;
    work.deadline = setTimeout(
      () => {
        const s = work.schedule;
        void this.store
          .setOutcome(s.id, work.firingAt, ["running"], "overdue", {
            overdueAt: Date.now(),
            reason: `not finished within ${deadline}`,
          })
          .then((f) => f && this.announce(f, s.name))
          .catch((err) => this.o.log(`tsclaw: overdue firing of ${s.id} not recorded: ${String(err)}`));
      },
      Math.max(0, due - Date.now()),
    );
    work.deadline.unref();
  }

  private onTaskEvents(events: readonly StoredEvent[]): void {
    // No firing waits for a task: nothing here to parse every task event of the node for.
    if (this.byTask.size === 0) return;
    for (const e of events) {
      const { taskId, status } = JSON.parse(e.payloadJson) as { taskId?: string; status?: TaskStatus };
      if (taskId === undefined || status === undefined || !(TERMINAL.has(status) || ACTIONABLE.has(status))) continue;
      const k = this.byTask.get(taskId);
      const work = k === undefined ? undefined : this.local.get(k);
      if (work)
        void this.checkTask(work).catch((err) => this.o.log(`tsclaw: firing of task ${taskId}: ${String(err)}`));
    }
  }

  /** Ends a runTask firing whose task is terminal or waits for a human, held to the postcondition. */
  private async checkTask(work: LocalWork): Promise<void> {
    const outcome = await this.ports.taskOutcome(work.taskId!);
    if (outcome && !TERMINAL.has(outcome.status) && !ACTIONABLE.has(outcome.status)) return;
    const verdict = outcome
      ? checkTask(outcome, work.schedule.spec.expect)
      : { ok: false, reason: "its task was deleted" };
    await this.finish(work, verdict.ok, verdict.reason, {});
  }

  /** Records the final outcome (once), then starts what waits behind it. */
  private async finish(
    work: LocalWork,
    ok: boolean,
    reason: string | null,
    fields: { result?: BashResult },
  ): Promise<void> {
    const s = work.schedule;
    const k = key(s.id, work.firingAt);
    if (this.local.get(k) !== work) return;
    this.local.delete(k);
    if (work.taskId) this.byTask.delete(work.taskId);
    clearTimeout(work.deadline);
    const endedAt = Date.now();
    const f = await this.store.setOutcome(s.id, work.firingAt, FINAL_FROM, ok ? "ok" : "failed", {
      reason,
      endedAt,
      ...fields,
    });
    if (!f) return; // ended elsewhere (cancelled by the next due time, or the schedule deleted)
    await this.store.ended(s.id, ok, endedAt);
    this.announce(f, s.name);
    await this.store.trim(s.id, this.o.historyLimit);
    if (!this.closed) await this.kick(s);
  }

  /** A firing ended elsewhere (cancel_previous on another node): its work here stops. */
  stopLocal(scheduleId: string, firingAt: number): void {
    const work = this.local.get(key(scheduleId, firingAt));
    if (!work) return;
    this.local.delete(key(scheduleId, firingAt));
    if (work.taskId) this.byTask.delete(work.taskId);
    clearTimeout(work.deadline);
    work.abort.abort();
  }

  /**
   * A firing cancelled by the next due time: its task is cancelled (any node may), its bash
   * here is killed (another node's stops when that node sees the firing's event).
   */
  async cancelWork(f: Firing): Promise<void> {
    this.stopLocal(f.scheduleId, f.firingAt);
    if (f.taskId) await this.ports.cancelTask(f.taskId).catch(() => {});
  }

  /** Stops the local work of every firing of a deleted schedule. */
  stopSchedule(scheduleId: string): void {
    for (const work of [...this.local.values()])
      if (work.schedule.id === scheduleId) this.stopLocal(scheduleId, work.firingAt);
  }

  /** Whether this node runs that firing. */
  runsHere(scheduleId: string, firingAt: number): boolean {
    return this.local.has(key(scheduleId, firingAt));
  }

  /**
   * Firings whose node is not in `live`: a task that still runs is followed here; anything else
   * lost its work and is `failed` (interrupted). Then each schedule's next waiting firing starts.
   */
  async recover(live: readonly string[], schedule: (id: string) => Promise<ScheduleRecord | undefined>): Promise<void> {
    const touched = new Map<string, ScheduleRecord>();
    for (const f of await this.store.allActive()) {
      if (f.node !== null && live.includes(f.node)) continue;
      if (this.runsHere(f.scheduleId, f.firingAt)) continue;
      const s = await schedule(f.scheduleId);
      if (!s) continue;
      touched.set(s.id, s);
      const task = f.taskId ? await this.ports.taskOutcome(f.taskId) : undefined;
      if (task && f.outcome !== "pending" && !TERMINAL.has(task.status) && !ACTIONABLE.has(task.status)) {
        const adopted = await this.store.setOutcome(s.id, f.firingAt, [f.outcome], f.outcome, { node: this.o.node });
        if (!adopted) continue;
        const work: LocalWork = {
          schedule: s,
          firingAt: f.firingAt,
          taskId: f.taskId!,
          abort: new AbortController(),
          done: Promise.resolve(),
        };
        this.local.set(key(s.id, f.firingAt), work);
        this.byTask.set(f.taskId!, key(s.id, f.firingAt));
        if (f.outcome === "running") this.armDeadline(work, f.startedAt ?? Date.now());
        continue;
      }
      const verdict =
        task && f.outcome !== "pending" ? checkTask(task, s.spec.expect) : { ok: false, reason: "interrupted" };
      const ended = await this.store.setOutcome(s.id, f.firingAt, [f.outcome], verdict.ok ? "ok" : "failed", {
        reason: verdict.reason,
        endedAt: Date.now(),
      });
      if (!ended) continue;
      await this.store.ended(s.id, verdict.ok, Date.now());
      this.announce(ended, s.name);
    }
    for (const s of touched.values()) await this.kick(s);
  }

  /** Stops: jitter waits end, bash work is aborted (its firing ends `failed`, interrupted); tasks are left to the task service. */
  async close(): Promise<void> {
    this.closed = true;
    this.unlisten();
    for (const t of this.jitters) clearTimeout(t);
    this.jitters.clear();
    const works = [...this.local.values()];
    for (const w of works) {
      clearTimeout(w.deadline);
      if (!w.taskId) w.abort.abort();
    }
    await Promise.all(works.map((w) => w.done));
    this.local.clear();
    this.byTask.clear();
  }
}

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return e?.code ? `${e.code}: ${e.message}` : String(err);
}
