/** The typed task handle: `claw.task.run/check/get/list/cancel/create/update/telemetry`. */
import type { CallContext } from "../dispatch.js";
import type { Caller, OpInput } from "./caller.js";

/** Builds `claw.task`. */
export function createTaskHandle(call: Caller) {
  return {
    /** Starts a prompt as a task; returns at once (run_task). */
    run: (args: OpInput<"run_task">) => call("run_task", args),
    /** Waits (default 45 s) for a terminal or actionable status (check_task); pass `signal` to stop waiting. */
    check: (args: OpInput<"check_task">, ctx: CallContext = {}) => call("check_task", args, ctx),
    /** The task's snapshot, immediately (get_task). */
    get: (args: OpInput<"get_task">) => call("get_task", args),
    /** Lists tasks with counts and a cursor (list_tasks). */
    list: (args: OpInput<"list_tasks"> = {}) => call("list_tasks", args),
    /** Cancels a task, stopping its run (cancel_task). */
    cancel: (args: OpInput<"cancel_task">) => call("cancel_task", args),
    /** Creates a tracked work task (task_create). */
    create: (args: OpInput<"task_create">) => call("task_create", args),
    /** Updates a task at its version; completion contract (task_update). */
    update: (args: OpInput<"task_update">) => call("task_update", args),
    /** Request telemetry of the task operations (task_telemetry). */
    telemetry: (args: OpInput<"task_telemetry"> = {}) => call("task_telemetry", args),
  };
}
