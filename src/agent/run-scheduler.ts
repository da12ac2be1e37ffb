/**
 * One run queue per session: prompts, tasks and compactions all join it, and the session runs
 * one job at a time, in arrival order. The next job starts in the same tick the previous one
 * ends, so nothing polls and nothing can slip in between. A job aborted while it waits leaves
 * the queue at once. Task runs carry their task's seq (`order`) and keep that order among
 * themselves, even when they reach the queue in another order: a task run still waiting for the
 * session's lease (several nodes) steps back for an earlier task that arrives behind it, which
 * the lease would otherwise wait for.
 */
import { ClawError } from "../core/errors.js";
import { type LeaveWith, LOCAL_GATE, type SessionGate } from "./session-gate.js";
import type { RunResult } from "./session-schemas.js";

/** One unit of work on a session. */
export interface Job {
  readonly kind: "agent" | "compact";
  readonly runId: string;
  readonly taskId?: string;
  /** A task run's place among its session's tasks (the task's seq); lower goes first. */
  readonly order?: number;
  /** Aborting it cancels the job, waiting or running. */
  readonly controller: AbortController;
  /** Agent jobs: the run's result, for callers that join it (steer, follow_up). */
  readonly result?: Promise<RunResult>;
  /**
   * The job's own end, which may give the session's lease back in its statement (a task run:
   * its task's end); called once the job is over. Default: the gate gives it back alone
   */
  readonly leave?: LeaveWith;
  /** Does the work; resolves when it is over (never rejects). */
  start(): Promise<void>;
  /** The job will never start: aborted while waiting, its session deleted, or shutdown. */
  drop(reason: ClawError): void;
}

interface Active {
  job: Job;
  done: Promise<void>;
  /** True once the gate admitted it (at once with the local gate). */
  admitted: boolean;
  /** Aborting it makes a job still waiting at the gate step back into the queue. */
  stepBack?: AbortController;
}

interface Lane {
  active?: Active;
  waiting: Job[];
}

/** True when `a` must start before `b` (both task runs, `a` accepted first). */
function before(a: Job, b: Job): boolean {
  return a.order !== undefined && b.order !== undefined && a.order < b.order;
}

/** Holds every session's lane. */
export class RunScheduler {
  private readonly lanes = new Map<string, Lane>();
  private closing = false;

  /** @param gate Admits a session's job across nodes (LOCAL_GATE: this process is the only runner). */
  constructor(private readonly gate: SessionGate = LOCAL_GATE) {}

  /** Starts `job` now when the session is idle, else queues it; "queued" when it has to wait. */
  submit(sessionId: string, job: Job): "started" | "queued" {
    if (this.closing) throw new ClawError("shutting_down", "the claw is closing; no new runs start");
    const lane = this.lanes.get(sessionId) ?? { waiting: [] };
    this.lanes.set(sessionId, lane);
    if (!lane.active) {
      this.begin(sessionId, lane, job);
      return "started";
    }
    this.enqueue(lane, job);
    const active = lane.active;
    if (!active.admitted && before(job, active.job)) active.stepBack?.abort();
    return "queued";
  }

  /** True when the session has an active job. */
  busy(sessionId: string): boolean {
    return this.lanes.get(sessionId)?.active !== undefined;
  }

  /** The session's active job. */
  active(sessionId: string): Job | undefined {
    return this.lanes.get(sessionId)?.active?.job;
  }

  /** The session's active job once it runs (with several nodes: once it holds the session's lease). */
  running(sessionId: string): Job | undefined {
    const active = this.lanes.get(sessionId)?.active;
    return active?.admitted ? active.job : undefined;
  }

  /** Jobs waiting behind the active one (of `kind` only, when given). */
  waiting(sessionId: string, kind?: Job["kind"]): number {
    const waiting = this.lanes.get(sessionId)?.waiting ?? [];
    return kind === undefined ? waiting.length : waiting.filter((j) => j.kind === kind).length;
  }

  /** Sessions with an active job. */
  activeSessionIds(): string[] {
    return [...this.lanes].filter(([, lane]) => lane.active).map(([id]) => id);
  }

  /** Resolves when the session's active job (if any) is over. */
  async idle(sessionId: string): Promise<void> {
    await this.lanes.get(sessionId)?.active?.done;
  }

  /** Drops every waiting job of the session with `reason`. */
  dropWaiting(sessionId: string, reason: ClawError): void {
    const lane = this.lanes.get(sessionId);
    if (!lane) return;
    for (const job of lane.waiting.splice(0)) job.drop(reason);
  }

  /** Shutdown: waiting jobs are dropped (`shutting_down`), active ones aborted and awaited. */
  async close(): Promise<void> {
    this.closing = true;
    const reason = new ClawError("shutting_down", "the claw closed before this run started");
    const done: Promise<void>[] = [];
    for (const [sessionId, lane] of this.lanes) {
      this.dropWaiting(sessionId, reason);
      if (lane.active) {
        lane.active.job.controller.abort();
        done.push(lane.active.done);
      }
    }
    await Promise.allSettled(done);
  }

  /** Puts `job` in the lane's queue: behind everything, except task runs accepted after it. */
  private enqueue(lane: Lane, job: Job): void {
    const later = lane.waiting.findIndex((w) => before(job, w));
    lane.waiting.splice(later < 0 ? lane.waiting.length : later, 0, job);
    const onAbort = () => {
      const i = lane.waiting.indexOf(job);
      if (i < 0) return;
      lane.waiting.splice(i, 1);
      job.drop(new ClawError("cancelled", "cancelled before it started"));
    };
    if (job.controller.signal.aborted) onAbort();
    else job.controller.signal.addEventListener("abort", onAbort, { once: true });
  }

  private begin(sessionId: string, lane: Lane, job: Job): void {
    const entry: Active = { job, done: Promise.resolve(), admitted: this.gate === LOCAL_GATE };
    lane.active = entry;
    const settle = () => {
      if (lane.active === entry) lane.active = undefined;
      this.next(sessionId, lane);
    };
    if (this.gate === LOCAL_GATE) {
      entry.done = job
        .start()
        .finally(() => {
          this.gate.leave(sessionId, job.leave).catch(() => {});
        })
        .finally(settle);
      return;
    }
    // Another node may be running this session: the job holds the lane (this node's later jobs
    // wait behind it) while it waits for the session's lease, and gives the lease back at its end.
    const stepBack = new AbortController();
    entry.stepBack = stepBack;
    entry.done = this.gate
      .enter(sessionId, AbortSignal.any([job.controller.signal, stepBack.signal]), job.order)
      .then(
        () => {
          entry.admitted = true;
          return job.start().finally(() => {
            // Not awaited: the lane is free as soon as the job ends (an abort then finds nothing
            // to abort), and the gate orders this release before the node's next take. A lease
            // not given back lapses by itself.
            this.gate.leave(sessionId, job.leave).catch(() => {});
          });
        },
        (err: unknown) => {
          // An earlier task arrived behind it: back into the queue, after that one.
          if (stepBack.signal.aborted && !job.controller.signal.aborted && !this.closing) this.enqueue(lane, job);
          else job.drop(err instanceof ClawError ? err : new ClawError("cancelled", "cancelled before it started"));
        },
      )
      .finally(settle);
  }

  private next(sessionId: string, lane: Lane): void {
    if (lane.active) return;
    const job = lane.waiting.shift();
    if (!job) {
      this.lanes.delete(sessionId);
      return;
    }
    if (this.closing) {
      job.drop(new ClawError("shutting_down", "the claw closed before this run started"));
      this.next(sessionId, lane);
      return;
    }
    this.begin(sessionId, lane, job);
  }
}
