/**
 * Status rules: terminal and actionable sets, what a caller should do next, and which status
 * changes task_update accepts.
 */
import { ClawError } from "../core/errors.js";
import type { NextAction, TaskKind, TaskStatus } from "./task-schema.js";

/** Statuses after which nothing more happens unless someone reopens the task. */
export const TERMINAL: ReadonlySet<TaskStatus> = new Set([
  "completed",
  "completed_no_summary",
  "error",
  "cancelled",
  "done",
]);
/** Statuses that wait for someone to act. */
export const ACTIONABLE: ReadonlySet<TaskStatus> = new Set(["blocked", "needs_human"]);
/** Statuses of open work (list_tasks active: true, continuity openTasks). */
export const OPEN: readonly TaskStatus[] = ["todo", "in_progress", "blocked", "needs_human"];
/** Statuses only the runner sets (the outcome of a run). */
const RUN_OUTCOMES: ReadonlySet<TaskStatus> = new Set(["completed", "completed_no_summary", "error"]);

/** True while a caller should keep polling: exactly `todo` and `in_progress`. */
export function continuePolling(status: TaskStatus): boolean {
  return status === "todo" || status === "in_progress";
}

/** What the task needs from its caller. */
export interface NextActionInput {
  id: string;
  kind: TaskKind;
  status: TaskStatus;
  version: number;
  sessionKey: string | null;
}

/**
 * The exact next call: `check_task` while the task runs, null when terminal, and for an
 * actionable status the call that resumes the work (a new run in the same session for run
 * tasks, a task_update back to in_progress for work tasks).
 */
export function nextActionFor(t: NextActionInput): NextAction {
  if (TERMINAL.has(t.status)) return null;
  if (!ACTIONABLE.has(t.status)) return { op: "check_task", args: { taskId: t.id } };
  if (t.kind === "run" && t.sessionKey) {
    return {
      op: "run_task",
      args: { sessionKey: t.sessionKey, prompt: "<answer the blockers in handoff.blockers, then continue the work>" },
    };
  }
  return { op: "task_update", args: { taskId: t.id, expectedVersion: t.version, status: "in_progress" } };
}

/** Facts checkTransition needs about the task besides its status. */
export interface TransitionFacts {
  kind: TaskKind;
  from: TaskStatus;
  to: TaskStatus;
  /** True while an agent run of this task is active in this process. */
  runActive: boolean;
}

function reject(f: TransitionFacts, why: string): never {
  throw new ClawError("invalid_transition", `cannot change a ${f.kind} task from ${f.from} to ${f.to}: ${why}`, {
    from: f.from,
    to: f.to,
    kind: f.kind,
  });
}

/**
 * Rejects nonsense status changes with `invalid_transition`. The rules:
 * - completed / completed_no_summary / error are outcomes of a run; only the runner sets them.
 * - cancelled: work tasks from any open status; run tasks through cancel_task (it stops the run).
 * - done: from any status except cancelled (reopen first); the completion contract applies.
 * - todo / in_progress: work tasks from any status (reopening included); run tasks only
 *   blocked/needs_human → in_progress while their own run is still active (the agent changed
 *   its mind). A finished run is resumed with run_task in the same session instead.
 * - blocked / needs_human: from todo, in_progress, blocked or needs_human (work tasks), and for
 *   run tasks from in_progress, blocked or needs_human; never from a terminal status.
 */
export function checkTransition(f: TransitionFacts): void {
  if (f.from === f.to) return;
  if (RUN_OUTCOMES.has(f.to)) reject(f, `${f.to} is the outcome of a run and only the runner sets it`);
  switch (f.to) {
    case "cancelled":
      if (f.kind === "run") reject(f, "use cancel_task, which also stops the run");
      if (TERMINAL.has(f.from)) reject(f, "the task already ended; reopen it first");
      return;
    case "done":
      if (f.from === "cancelled")
        reject(f, "a cancelled task is reopened (todo or in_progress) before it is completed");
      return;
    case "todo":
    case "in_progress":
      if (f.kind === "work") return;
      if (f.to === "in_progress" && ACTIONABLE.has(f.from) && f.runActive) return;
      reject(f, "run tasks are started by run_task; to resume, call run_task with the same sessionKey");
      break;
    case "blocked":
    case "needs_human":
      if (TERMINAL.has(f.from)) reject(f, "the task already ended; reopen it first");
      if (f.kind === "run" && f.from === "todo")
        reject(f, "the run has not started; cancel it with cancel_task or wait until it runs");
      return;
  }
}
