/**
 * The MCP SDK's TaskStore backed by tsclaw's task service, through the operations: an MCP task
 * is a tsclaw run task with the same id, so it is durable across restarts and visible from
 * every MCP session that holds the token (the session id is deliberately ignored). tasks/get
 * answers any tsclaw task, whichever way it was created; tasks/list lists the agent runs.
 */
import type { CreateTaskOptions, TaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/interfaces.js";
import {
  ErrorCode,
  McpError,
  type Task as McpTask,
  type Request,
  type RequestId,
  type Result,
} from "@modelcontextprotocol/sdk/types.js";
import type { Claw } from "../../src/claw/claw.js";
import type { Response } from "../../src/core/wire.js";
import type { ListTasksResult } from "../../src/tasks/task-inputs.js";
import type { Task } from "../../src/tasks/task-schema.js";
import { finalRunResult, toMcpTask } from "./task-map.js";
import { TASK_TOOL } from "./tool-list.js";
import { toToolResult } from "./tool-result.js";

/** Page size of tasks/list. */
const LIST_PAGE = 100;

/** A tsclaw error envelope as a JSON-RPC error (for the task methods, which have no tool-result form). */
export function protocolError(response: Extract<Response, { ok: false }>): McpError {
  const code =
    response.error.code === "not_found" || response.error.code === "invalid_args"
      ? ErrorCode.InvalidParams
      : ErrorCode.InternalError;
  return new McpError(code, response.error.message, { error: response.error });
}

/** TaskStore over a claw. */
export class ClawTaskStore implements TaskStore {
  constructor(private readonly claw: Claw) {}

  /** The tsclaw Task (any the caller may see, however it was created), or null when there is none. */
  async find(taskId: string): Promise<Task | null> {
    const r = await this.claw.do({ op: "get_task", args: { taskId } });
    if (!r.ok) {
      if (r.error.code === "not_found") return null;
      throw protocolError(r);
    }
    return r.result as Task;
  }

  /** Starts the run: the request is a task-augmented `tools/call` of run_task. */
  async createTask(_options: CreateTaskOptions, _requestId: RequestId, request: Request): Promise<McpTask> {
    const params = request.params as { name?: string; arguments?: Record<string, unknown> } | undefined;
    if (request.method !== "tools/call" || params?.name !== TASK_TOOL) {
      throw new McpError(ErrorCode.InvalidRequest, `only ${TASK_TOOL} runs as an MCP task`);
    }
    const started = await this.claw.do({ op: TASK_TOOL, args: params.arguments ?? {} });
    if (!started.ok) throw protocolError(started);
    const task = await this.find((started.result as { taskId: string }).taskId);
    if (!task) throw new McpError(ErrorCode.InternalError, "the task vanished right after it was created");
    return toMcpTask(task);
  }

  async getTask(taskId: string): Promise<McpTask | null> {
    const task = await this.find(taskId);
    return task ? toMcpTask(task) : null;
  }

  /** A tsclaw task's result is its own final state; nothing else may be stored as its result. */
  async storeTaskResult(taskId: string): Promise<void> {
    throw new McpError(
      ErrorCode.InvalidRequest,
      `task ${taskId}: a tsclaw task's result is its final state; it cannot be replaced`,
    );
  }

  /** The run_task-shaped result of an ended task (tasks/result waits for the end before asking). */
  async getTaskResult(taskId: string): Promise<Result> {
    const task = await this.find(taskId);
    if (!task) throw new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);
    return toToolResult({ id: null, ok: true, result: finalRunResult(task) });
  }

  /** Only cancellation can be asked of a tsclaw task from MCP; it goes through cancel_task. */
  async updateTaskStatus(taskId: string, status: McpTask["status"]): Promise<void> {
    if (status !== "cancelled") {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `task ${taskId}: tsclaw decides its own status; only cancellation can be asked`,
      );
    }
    const r = await this.claw.do({ op: "cancel_task", args: { taskId } });
    if (!r.ok) throw protocolError(r);
  }

  async listTasks(cursor?: string): Promise<{ tasks: McpTask[]; nextCursor?: string }> {
    const r = await this.claw.do({
      op: "list_tasks",
      args: { kind: "run", limit: LIST_PAGE, ...(cursor ? { cursor } : {}) },
    });
    if (!r.ok) throw protocolError(r);
    const page = r.result as ListTasksResult;
    return { tasks: page.tasks.map(toMcpTask), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }
}
