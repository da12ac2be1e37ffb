/**
 * Executes run tasks. Each task joins its session's run queue (the session service's one
 * scheduler, shared with prompts and compactions), so a session runs one thing at a time in
 * arrival order and nothing here polls or requeues. Lifecycle events become progress, and the
 * run's outcome the task's final status — unless the agent already set its own task to
 * blocked/needs_human (or someone ended it), which the end of the run never overwrites.
 */
import type { AgentEvent } from "../agent/agent-events.js";
import type { ClawError } from "../errors.js";
import { toClawError } from "../errors.js";
import { clip, progressOf } from "./run-events.js";
import type { SessionPort, TaskRunResult } from "./session-port.js";
import { markInterrupted, taskError } from "./task-errors.js";
import type { TaskStatus } from "./task-schema.js";
import { ACTIONABLE, TERMINAL } from "./task-status.js";
import type { TaskRecord, TaskStore } from "./task-store.js";
import type { TaskTelemetry } from "./telemetry.js";

/** A task handed to its session's queue. */
interface TaskJob {
  controller: AbortController;
  /** True once the run left the queue. */
  started: boolean;
  done: Promise<void>;
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

  /** Puts a todo run task in its session's queue; it starts when its turn comes. */
  enqueue(task: TaskRecord): void {
    if (!task.sessionId || this.closing || this.jobs.has(task.id)) return;
    const job: TaskJob = { controller: new AbortController(), started: false, done: Promise.resolve() };
    this.jobs.set(task.id, job);
    job.done = this.sessions
      .run(task.sessionId, task.prompt ?? "", {
        taskId: task.id,
        signal: job.controller.signal,
        onStart: () => {
          job.started = this.begin(task.id);
          return job.started;
        },
        onEvent: (e) => this.onEvent(task.id, e),
      })
      .then(
        (result) => {
          this.finish(task.id, result);
          const t = this.store.find(task.id);
          const ms = t?.startedAt ? Date.now() - t.startedAt : 0;
          this.telemetry?.recordRun(task.id, t?.status ?? result.status, ms, result.usage, result.error?.code ?? null);
        },
        (err: unknown) => this.notRun(task, job, toClawError(err)),
      )
      .catch((err: unknown) => this.log(`tsclaw: task ${task.id}: could not record the end of its run: ${String(err)}`))
      .finally(() => {
        if (this.jobs.get(task.id) === job) this.jobs.delete(task.id);
      });
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

  /** Shutdown: running tasks become error/interrupted, runs are aborted and awaited; waiting tasks stay todo. */
  async close(timeoutMs = 15_000): Promise<void> {
    this.closing = true;
    const running = [...this.jobs].filter(([, job]) => job.started);
    for (const [taskId, job] of running) {
      const t = this.store.find(taskId);
      if (t?.status === "in_progress") {
        markInterrupted(this.store, t, {
          message: "the server shut down while this task ran",
          latest: "interrupted by shutdown",
          timeline: "interrupted: the server shut down",
        });
      }
      job.controller.abort();
    }
    await settleWithin(Promise.allSettled(running.map(([, job]) => job.done)), timeoutMs);
  }

  /** The run leaves the queue: the task goes in_progress, unless it was cancelled meanwhile. */
  private begin(taskId: string): boolean {
    const t = this.store.find(taskId);
    if (t?.status !== "todo" || this.closing) return false;
    const now = Date.now();
    this.store.patch(
      taskId,
      {
        status: "in_progress",
        phase: "starting",
        startedAt: t.startedAt ?? now,
        latestUpdate: { at: now, text: "run starting" },
      },
      { timeline: "run started" },
    );
    return true;
  }

  /** The run never started (cancelled while waiting, shutdown, session deleted, no key). */
  private notRun(t: TaskRecord, job: TaskJob, e: ClawError): void {
    if (job.started) {
      // Started, then failed outside the loop (the run row could not be written, …).
      if (e.code === "internal") this.log(`tsclaw: task ${t.id}: run failed: ${e.message}`);
      this.finish(t.id, { sessionId: t.sessionId!, runId: "", status: "error", text: "", error: e });
      return;
    }
    if (this.closing || e.code === "shutting_down" || e.code === "cancelled") return; // stays todo / already cancelled
    const current = this.store.find(t.id);
    if (current?.status !== "todo") return;
    const now = Date.now();
    const error = taskError(e.code, e.message, t.sessionKey);
    this.store.patch(
      t.id,
      {
        status: "error",
        phase: "ended",
        endedAt: now,
        error,
        latestUpdate: { at: now, text: `failed: ${clip(e.message, 200)}` },
      },
      { timeline: `could not start: ${e.code}` },
    );
  }

  private onEvent(taskId: string, e: AgentEvent): void {
    try {
      const p = progressOf(e);
      if (!p.update && !p.phase) return;
      const t = this.store.find(taskId);
      if (!t || TERMINAL.has(t.status)) return; // cancelled or interrupted: the record is final
      const phase = t.status === "in_progress" ? p.phase : undefined; // blocked keeps waiting_human
      const latestUpdate = p.update ? { at: Date.now(), text: p.update } : undefined;
      if (phase === t.phase && !latestUpdate) return;
      this.store.patch(taskId, { phase, latestUpdate }, { timeline: p.timeline });
    } catch (err) {
      this.log(`tsclaw: task ${taskId}: could not record progress: ${String(err)}`);
    }
  }

  private finish(taskId: string, result: Omit<TaskRunResult, "usage">): void {
    const t = this.store.find(taskId);
    if (!t) return;
    const summary = typeof result.text === "string" && result.text.trim() !== "" ? result.text : null;
    const now = Date.now();
    if (t.status === "in_progress") {
      const status: TaskStatus = result.status === "completed" && !summary ? "completed_no_summary" : result.status;
      const error =
        status === "error"
          ? taskError(result.error?.code ?? "run_failed", result.error?.message ?? "the run failed", t.sessionKey)
          : null;
      const text = summary ? clip(summary) : error ? `failed: ${clip(error.message, 200)}` : `run ended: ${status}`;
      this.store.patch(
        taskId,
        { status, phase: "ended", endedAt: now, summary, error, latestUpdate: { at: now, text } },
        { timeline: `run ended: ${status}` },
      );
    } else if (ACTIONABLE.has(t.status)) {
      this.store.patch(
        taskId,
        { phase: "waiting_human", summary: summary ?? t.summary },
        { timeline: `run ended; the task stays ${t.status}` },
      );
    } else if (summary && t.summary === null && TERMINAL.has(t.status)) {
      this.store.patch(taskId, { summary });
    }
  }
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
