/**
 * Executes run tasks: one FIFO queue per session (a session runs one task at a time, in
 * order), each task run through `sessions.run` with its own abort signal, lifecycle events
 * turned into progress, and the run's outcome turned into the task's final status — unless the
 * agent already set its own task to blocked/needs_human (or someone ended it), which the end of
 * the run never overwrites.
 */
import { toClawError } from "../errors.js";
import { clip, progressOf } from "./run-events.js";
import type { SessionPort, TaskRunResult } from "./session-port.js";
import { taskError } from "./task-errors.js";
import type { TaskStatus } from "./task-schema.js";
import { ACTIONABLE, TERMINAL } from "./task-status.js";
import type { TaskRecord, TaskStore } from "./task-store.js";

/** A run in progress. */
interface ActiveRun {
  taskId: string;
  sessionId: string;
  controller: AbortController;
  done: Promise<void>;
}

const BUSY_RETRY_MIN_MS = 100;
const BUSY_RETRY_MAX_MS = 2000;

/** Runs queued run tasks. */
export class TaskRunner {
  private readonly queues = new Map<string, string[]>();
  private readonly active = new Map<string, ActiveRun>();
  private readonly retries = new Map<string, { timer: NodeJS.Timeout; delay: number }>();
  private closing = false;

  constructor(
    private readonly store: TaskStore,
    private readonly sessions: SessionPort,
    private readonly log: (line: string) => void,
  ) {}

  /** Appends a todo run task to its session's queue and starts it when the session is free. */
  enqueue(task: TaskRecord): void {
    if (!task.sessionId) return;
    const queue = this.queues.get(task.sessionId) ?? [];
    queue.push(task.id);
    this.queues.set(task.sessionId, queue);
    this.pump(task.sessionId);
  }

  /** True while the task's agent run is active in this process. */
  isRunning(taskId: string): boolean {
    return this.runOf(taskId) !== undefined;
  }

  /** Removes a queued task from its queue; true when it was queued. */
  dequeue(taskId: string): boolean {
    for (const queue of this.queues.values()) {
      const i = queue.indexOf(taskId);
      if (i >= 0) {
        queue.splice(i, 1);
        return true;
      }
    }
    return false;
  }

  /** Aborts the task's run (its bash is killed) and waits, up to `timeoutMs`, for it to end. */
  async stop(taskId: string, timeoutMs = 15_000): Promise<void> {
    const run = this.runOf(taskId);
    if (!run) return;
    run.controller.abort();
    this.sessions.abort(run.sessionId);
    await settleWithin(run.done, timeoutMs);
  }

  /** Shutdown: running tasks become error/interrupted, runs are aborted and awaited; queued tasks stay todo. */
  async close(timeoutMs = 15_000): Promise<void> {
    this.closing = true;
    for (const { timer } of this.retries.values()) clearTimeout(timer);
    this.retries.clear();
    const runs = [...this.active.values()];
    for (const run of runs) {
      const t = this.store.find(run.taskId);
      if (t?.status === "in_progress") {
        const error = taskError("interrupted", "the server shut down while this task ran", t.sessionKey);
        this.store.patch(
          t.id,
          {
            status: "error",
            phase: "ended",
            endedAt: Date.now(),
            error,
            latestUpdate: { at: Date.now(), text: "interrupted by shutdown" },
          },
          { timeline: "interrupted: the server shut down" },
        );
      }
      run.controller.abort();
      this.sessions.abort(run.sessionId);
    }
    await settleWithin(Promise.allSettled(runs.map((r) => r.done)), timeoutMs);
  }

  private runOf(taskId: string): ActiveRun | undefined {
    for (const run of this.active.values()) if (run.taskId === taskId) return run;
    return undefined;
  }

  private pump(sessionId: string): void {
    if (this.closing || this.active.has(sessionId) || this.retries.has(sessionId)) return;
    const queue = this.queues.get(sessionId);
    let next: TaskRecord | undefined;
    while (queue && queue.length > 0) {
      const t = this.store.find(queue[0]!);
      if (t?.status === "todo") {
        next = t;
        break;
      }
      queue.shift(); // cancelled (or otherwise moved on) while it waited
    }
    if (!next) {
      this.queues.delete(sessionId);
      return;
    }
    if (this.sessions.isRunning(sessionId)) {
      this.waitForSession(next);
      return;
    }
    queue!.shift();
    this.start(next);
  }

  /** The session runs something that is not a task (a direct prompt): retry with backoff. */
  private waitForSession(t: TaskRecord): void {
    const sessionId = t.sessionId!;
    if (t.phase !== "waiting_session") {
      this.store.patch(
        t.id,
        {
          phase: "waiting_session",
          latestUpdate: { at: Date.now(), text: "waiting: the session is busy with another run" },
        },
        { timeline: "waiting for the session" },
      );
    }
    const delay = Math.min(BUSY_RETRY_MAX_MS, (this.retries.get(sessionId)?.delay ?? BUSY_RETRY_MIN_MS / 2) * 2);
    const timer = setTimeout(() => {
      this.retries.delete(sessionId);
      this.pump(sessionId);
    }, delay);
    timer.unref();
    this.retries.set(sessionId, { timer, delay });
  }

  private start(t: TaskRecord): void {
    const sessionId = t.sessionId!;
    const controller = new AbortController();
    const now = Date.now();
    this.store.patch(
      t.id,
      {
        status: "in_progress",
        phase: "starting",
        startedAt: t.startedAt ?? now,
        latestUpdate: { at: now, text: "run starting" },
      },
      { timeline: "run started" },
    );
    const run: ActiveRun = { taskId: t.id, sessionId, controller, done: Promise.resolve() };
    this.active.set(sessionId, run);
    run.done = this.execute(t, controller).finally(() => {
      if (this.active.get(sessionId) === run) this.active.delete(sessionId);
      this.pump(sessionId);
    });
  }

  private async execute(t: TaskRecord, controller: AbortController): Promise<void> {
    let result: TaskRunResult;
    try {
      result = await this.sessions.run(t.sessionId!, t.prompt ?? "", {
        taskId: t.id,
        signal: controller.signal,
        onEvent: (e) => this.onEvent(t.id, e),
      });
    } catch (err) {
      const e = toClawError(err);
      if (e.code === "session_busy" && !this.closing && !controller.signal.aborted) return this.requeue(t);
      if (e.code === "internal") this.log(`tsclaw: task ${t.id}: run failed: ${(err as Error)?.stack ?? String(err)}`);
      result = {
        sessionId: t.sessionId!,
        runId: "",
        status: controller.signal.aborted ? "cancelled" : "error",
        text: null,
        error: { code: e.code, message: e.message },
      };
    }
    try {
      this.finish(t.id, result);
    } catch (err) {
      this.log(`tsclaw: task ${t.id}: could not record the end of its run: ${String(err)}`);
    }
  }

  /** A run raced us onto the session: back to todo, first in line. */
  private requeue(t: TaskRecord): void {
    const current = this.store.find(t.id);
    if (current?.status !== "in_progress") return;
    this.store.patch(t.id, { status: "todo", phase: "waiting_session" }, { timeline: "waiting for the session" });
    const queue = this.queues.get(t.sessionId!) ?? [];
    queue.unshift(t.id);
    this.queues.set(t.sessionId!, queue);
    this.waitForSession({ ...current, status: "todo", phase: "waiting_session" });
  }

  private onEvent(taskId: string, e: Record<string, unknown>): void {
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

  private finish(taskId: string, result: TaskRunResult): void {
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
