/**
 * Executes run tasks. Each task joins its session's run queue (the session service's one
 * scheduler, shared with prompts and compactions), so a session runs one thing at a time in
 * arrival order and nothing here polls or requeues. Lifecycle events become progress, and the
 * run's outcome the task's final status — unless the agent already set its own task to
 * blocked/needs_human (or someone ended it), which the end of the run never overwrites.
 */
import type { AgentEvent } from "../agent/agent-events.js";
import type { RunStart } from "../agent/run-rows.js";
import type { LeaveWith } from "../agent/session-gate.js";
import type { ClawError } from "../core/errors.js";
import { toClawError } from "../core/errors.js";
import { HeldProgress, type PendingProgress, progressChange } from "./held-progress.js";
import { clip, progressOf } from "./run-events.js";
import type { SessionPort, TaskRunResult, TaskSession } from "./session-port.js";
import { endedInError, markInterrupted, taskError } from "./task-errors.js";
import { pausedTasks } from "./task-recovery.js";
import type { TaskStatus } from "./task-schema.js";
import { ACTIONABLE, TERMINAL } from "./task-status.js";
import type { Carry, TaskRecord, TaskStore } from "./task-store.js";
import type { TaskTelemetry } from "./telemetry.js";

/** A task handed to its session's queue. */
interface TaskJob {
  sessionId: string;
  controller: AbortController;
  /** True once the run left the queue. */
  started: boolean;
  done: Promise<void>;
  /** The job's writes to its task, one after another in the order its run reported them. */
  writes: Promise<unknown>;
  /**
   * What the task's end write may carry, handed over once the run's job is over: the session
   * lease's release (none: no lease) and the run row's end (none: the run wrote it).
   */
  leaving: Deferred<Carry>;
  /** Settled once the task's end is written (or will not be). */
  released: Deferred<void>;
  /** Its run's progress on the way to the task (held a moment, for the change after it). */
  progress: HeldProgress;
}

/** Runs queued run tasks. */
export class TaskRunner {
  private readonly jobs = new Map<string, TaskJob>();
  private closing = false;

  constructor(
    private readonly store: TaskStore,
    private readonly sessions: SessionPort,
    private readonly log: (line: string) => void,
    private readonly telemetry?: TaskTelemetry,
  ) {}

  /**
   * Puts a todo run task in its session's queue; it starts when its turn comes. `session`: the
   * task's session as just read (run_task), so the run does not read it again.
   */
  enqueue(task: TaskRecord, session?: TaskSession): void {
    this.track(task, (job, onEvent) =>
      this.sessions.run(job.sessionId, task.prompt ?? "", {
        session,
        taskId: task.id,
        order: task.seq,
        signal: job.controller.signal,
        onStart: async (start) => {
          job.started = await this.begin(task.id, job, start);
          return job.started;
        },
        onEvent,
        leave: leaveWith(job),
      }),
    );
  }

  /**
   * Resumes the task's stored run, paused on call `callId` (an approval), in its session's queue.
   * `claim` is awaited as it leaves the queue: false when someone else resumes it (nothing runs).
   */
  resume(task: TaskRecord, runId: string, callId: string, claim: () => Promise<boolean>): void {
    this.track(task, (job, onEvent) =>
      this.sessions.resume(job.sessionId, runId, callId, {
        taskId: task.id,
        order: task.seq,
        signal: job.controller.signal,
        onStart: async () => {
          job.started = !this.closing && (await claim());
          return job.started;
        },
        onEvent,
        leave: leaveWith(job),
      }),
    );
  }

  /** Runs `start`'s run for the task and records its progress and end. */
  private track(
    task: TaskRecord,
    start: (job: TaskJob, onEvent: (e: AgentEvent) => void) => Promise<TaskRunResult>,
  ): void {
    if (!task.sessionId || this.closing || this.jobs.has(task.id)) return;
    const job: TaskJob = {
      sessionId: task.sessionId,
      controller: new AbortController(),
      started: false,
      done: Promise.resolve(),
      writes: Promise.resolve(),
      leaving: deferred(),
      released: deferred(),
      progress: new HeldProgress((p) => this.queueProgress(task.id, job, p)),
    };
    this.jobs.set(task.id, job);
    job.done = start(job, (e) => job.progress.add(progressOf(e)))
      .then(
        async (result) => {
          // The run's last message (its answer) goes with the task's end.
          const last = job.progress.take();
          await job.writes;
          // The task's end gives the session's lease back and ends the run's row in the same
          // statement (PostgreSQL): the lease is held until the end is written, and neither costs
          // a round trip.
          const carry = await job.leaving.promise;
          const t = await this.finish(task.id, result, carry, last);
          const ms = t?.startedAt ? Date.now() - t.startedAt : 0;
          this.telemetry?.recordRun(task.id, t?.status ?? result.status, ms, result.usage, result.error?.code ?? null);
        },
        async (err: unknown) => {
          const last = job.progress.take();
          if (last) this.queueProgress(task.id, job, last);
          await job.writes;
          await this.notRun(task, job, toClawError(err));
        },
      )
      .catch((err: unknown) => this.log(`tsclaw: task ${task.id}: could not record the end of its run: ${String(err)}`))
      .finally(() => {
        // Whatever happened, the gate waits no longer: it gives the lease back itself unless
        // the task's end carried the release.
        job.released.resolve();
        if (this.jobs.get(task.id) === job) this.jobs.delete(task.id);
      });
  }

  /** True while the task waits in a session queue here or runs here. */
  holds(taskId: string): boolean {
    return this.jobs.has(taskId);
  }

  /** True while the task's agent run is active in this process. */
  isRunning(taskId: string): boolean {
    return this.jobs.get(taskId)?.started === true;
  }

  /** Takes a waiting task out of its session's queue; true when it was waiting. */
  dequeue(taskId: string): boolean {
    const job = this.jobs.get(taskId);
    if (!job || job.started) return false;
    job.controller.abort();
    return true;
  }

  /** Aborts the task's run (its bash is killed) and waits, up to `timeoutMs`, for it to end. */
  async stop(taskId: string, timeoutMs = 15_000): Promise<void> {
    const job = this.jobs.get(taskId);
    if (!job) return;
    job.controller.abort();
    await settleWithin(job.done, timeoutMs);
  }

  /**
   * Shutdown: running tasks become error/interrupted, runs are aborted and awaited; waiting tasks
   * stay todo, and tasks whose run waits on an approval stay as they are (the run goes on later).
   */
  async close(timeoutMs = 15_000): Promise<void> {
    this.closing = true;
    const running = [...this.jobs].filter(([, job]) => job.started);
    const paused = await pausedTasks(
      this.store.sql,
      running.map(([taskId]) => taskId),
    ).catch(() => new Set<string>());
    await Promise.all(
      running.map(async ([taskId, job]) => {
        if (!paused.has(taskId))
          await markInterrupted(this.store, taskId, {
            message: "the server shut down while this task ran",
            latest: "interrupted by shutdown",
            timeline: "interrupted: the server shut down",
          });
        job.controller.abort();
      }),
    );
    await settleWithin(Promise.allSettled(running.map(([, job]) => job.done)), timeoutMs);
  }

  /** The run leaves the queue: the task goes in_progress, unless it was cancelled meanwhile. */
  private async begin(taskId: string, job: TaskJob, start?: RunStart): Promise<boolean> {
    // The previous task of the session has its end recorded before this one starts.
    const previous = [...this.jobs.values()].filter((j) => j !== job && j.started && j.sessionId === job.sessionId);
    await Promise.all(previous.map((j) => j.done));
    const started = await this.store.change(
      taskId,
      (t) => {
        if (t.status !== "todo" || this.closing) return undefined;
        const now = Date.now();
        return {
          patch: {
            status: "in_progress",
            phase: "starting",
            startedAt: t.startedAt ?? now,
            latestUpdate: { at: now, text: "run starting" },
          },
          timeline: "run started",
        };
      },
      { start },
    );
    return started !== undefined;
  }

  /** The run never started (cancelled while waiting, shutdown, session deleted, no key). */
  private async notRun(t: TaskRecord, job: TaskJob, e: ClawError): Promise<void> {
    // Paused on an approval as the claw closed (or taken over by another node): it resumes later.
    if (e.code === "shutting_down" && job.started) return;
    if (job.started) {
      // Started, then failed outside the loop (the run row could not be written, …).
      if (e.code === "internal") this.log(`tsclaw: task ${t.id}: run failed: ${e.message}`);
      await this.finish(t.id, { sessionId: t.sessionId!, runId: "", status: "error", text: "", error: e });
      return;
    }
    if (this.closing || e.code === "shutting_down" || e.code === "cancelled") return; // stays todo / already cancelled
    await this.store.change(t.id, (current) =>
      current.status === "todo"
        ? {
            patch: endedInError(taskError(e.code, e.message, t.sessionKey), `failed: ${clip(e.message, 200)}`),
            timeline: `could not start: ${e.code}`,
          }
        : undefined,
    );
  }

  /** Writes `p` after the job's writes before it. */
  private queueProgress(taskId: string, job: TaskJob, p: PendingProgress): void {
    job.writes = job.writes.then(() => this.writeProgress(taskId, p));
  }

  private async writeProgress(taskId: string, p: PendingProgress): Promise<void> {
    try {
      await this.store.change(taskId, (t) => progressChange(t, p));
    } catch (err) {
      this.log(`tsclaw: task ${taskId}: could not record progress: ${String(err)}`);
    }
  }

  /** Records the run's outcome (with what `carry` holds); returns the task as it ends up. */
  private async finish(
    taskId: string,
    result: Omit<TaskRunResult, "usage">,
    carry: Carry = {},
    /** Progress still held (the run's answer): its timeline lines go first. */
    last?: PendingProgress,
  ): Promise<TaskRecord | undefined> {
    const lines = last?.timeline ?? [];
    const summary = typeof result.text === "string" && result.text.trim() !== "" ? result.text : null;
    const written = await this.store.change(
      taskId,
      (t) => {
        const now = Date.now();
        if (t.status === "in_progress") {
          const status: TaskStatus = result.status === "completed" && !summary ? "completed_no_summary" : result.status;
          const error =
            status === "error"
              ? taskError(result.error?.code ?? "run_failed", result.error?.message ?? "the run failed", t.sessionKey)
              : null;
          const text = summary ? clip(summary) : error ? `failed: ${clip(error.message, 200)}` : `run ended: ${status}`;
          return {
            patch: { status, phase: "ended", endedAt: now, summary, error, latestUpdate: { at: now, text } },
            timeline: [...lines, `run ended: ${status}`],
          };
        }
        if (ACTIONABLE.has(t.status)) {
          const latestUpdate = last?.update ? { at: now, text: last.update } : undefined;
          return {
            patch: { phase: "waiting_human", summary: summary ?? t.summary, latestUpdate },
            timeline: [...lines, `run ended; the task stays ${t.status}`],
          };
        }
        if (summary && t.summary === null && TERMINAL.has(t.status)) return { patch: { summary } };
        return undefined;
      },
      carry,
    );
    return written ?? this.store.find(taskId);
  }
}

/** A promise with its resolve function. */
interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** The job's `leave`: hands the lease's release and the run's end to the task's end; resolves once that end is written. */
function leaveWith(job: TaskJob): LeaveWith {
  return (release, runEnd) => {
    job.leaving.resolve({ release, runEnd });
    return job.released.promise;
  };
}

/** Waits for `p`, at most `ms`. */
function settleWithin(p: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    p.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      () => {
        clearTimeout(timer);
        resolve();
      },
    );
  });
}
