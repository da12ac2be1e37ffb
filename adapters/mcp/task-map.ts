/**
 * tsclaw tasks as MCP tasks: the status mapping, the MCP Task shape, and the run_task-shaped
 * result a task-augmented run_task yields once its task has ended.
 */
import type { Task as McpTask } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { runTaskOutput } from "../../src/tasks/task-inputs.js";
import type { Task, TaskRow, TaskStatus } from "../../src/tasks/task-schema.js";

/** How often a client should poll tasks/get, in ms. tasks/result itself waits on the change. */
export const POLL_INTERVAL_MS = 1000;

const STATUS: Record<TaskStatus, McpTask["status"]> = {
  todo: "working",
  in_progress: "working",
  blocked: "input_required",
  needs_human: "input_required",
  completed: "completed",
  completed_no_summary: "completed",
  done: "completed",
  error: "failed",
  cancelled: "cancelled",
};

/** The MCP status of a tsclaw status. */
export function mcpStatus(status: TaskStatus): McpTask["status"] {
  return STATUS[status];
}

/** A tsclaw task (or list row) as an MCP Task. Kept until deleted, so `ttl` is null. */
export function toMcpTask(t: Task | TaskRow): McpTask {
  const message = t.latestUpdate?.text ?? t.error?.message;
  return {
    taskId: t.taskId,
    status: mcpStatus(t.status),
    ttl: null,
    createdAt: new Date(t.createdAt).toISOString(),
    lastUpdatedAt: new Date(t.updatedAt).toISOString(),
    pollInterval: POLL_INTERVAL_MS,
    ...(message !== undefined ? { statusMessage: message } : {}),
  };
}

/** What a task-augmented run_task yields at its end: run_task's result with the final Task under `task`. */
export function finalRunResult(t: Task): z.input<typeof runTaskOutput> {
  return {
    taskId: t.taskId,
    jobId: t.jobId,
    sessionKey: t.sessionKey ?? "",
    sessionId: t.sessionId ?? "",
    status: t.status,
    version: t.version,
    replayed: false,
    continuePolling: false,
    nextAction: null,
    task: t,
  };
}
