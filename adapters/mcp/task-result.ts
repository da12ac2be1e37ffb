/**
 * tasks/result: waits for the task's end on the change itself (check_task's wait, not the
 * SDK's default sleep loop), then answers what the task-augmented run_task call yields.
 * blocked/needs_human are not an end in MCP (input_required), so the wait goes on past them.
 */
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  ErrorCode,
  McpError,
  RELATED_TASK_META_KEY,
  type Result,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { Claw } from "../../src/claw/claw.js";
import type { CheckTaskResult } from "../../src/tasks/task-inputs.js";
import { type ClawTaskStore, protocolError } from "./task-store.js";

/** Longest single wait of check_task; tasks/result chains as many as it needs. */
const WAIT_MS = 600_000;

/** Handles tasks/result for `taskId`. */
export async function taskResult(
  claw: Claw,
  store: ClawTaskStore,
  taskId: string,
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
): Promise<Result> {
  const first = await store.find(taskId);
  if (!first) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
  let afterVersion = first.version;
  let until: "settled" | "update" = "settled";
  for (;;) {
    if (extra.signal.aborted) throw new McpError(ErrorCode.InvalidRequest, "Request cancelled");
    const r = await claw.do(
      { op: "check_task", args: { taskId, waitMs: WAIT_MS, until, afterVersion } },
      { transport: "mcp", signal: extra.signal },
    );
    if (!r.ok) throw protocolError(r);
    const snapshot = r.result as CheckTaskResult;
    if (snapshot.isTerminal) break;
    // Actionable: check_task returns at once; wait for the next change instead.
    until = snapshot.isActionable ? "update" : "settled";
    afterVersion = snapshot.task.version;
  }
  const result = await store.getTaskResult(taskId);
  return { ...result, _meta: { ...(result._meta ?? {}), [RELATED_TASK_META_KEY]: { taskId } } };
}
