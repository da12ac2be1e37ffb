/**
 * The request telemetry as registry middleware: every operation whose definition declares
 * `telemetry` is recorded (op, duration, error code, and the notes below) by the dispatcher,
 * on every transport, with no telemetry code in its handler. The notes common to the task
 * operations are derived here from the arguments and the result, so an operation declares only
 * what cannot be derived (check_task: the wait it was asked for, after clamping).
 */
import type { AnyOpDef, OpMiddleware, OpTelemetry } from "../ops/registry.js";
import type { TaskStatus } from "../tasks/task-schema.js";
import { TERMINAL } from "../tasks/task-status.js";
import type { TelemetryNote } from "../tasks/telemetry.js";

type Fields = Record<string, unknown>;
const isObject = (v: unknown): v is Fields => v !== null && typeof v === "object";
const text = (v: unknown) => (typeof v === "string" ? v : undefined);
const int = (v: unknown) => (typeof v === "number" ? v : undefined);

/** The task named by a call's arguments (`taskId`, or its older name `jobId`). */
function fromArgs(args: unknown): TelemetryNote {
  if (!isObject(args)) return {};
  const taskId = text(args.taskId) ?? text(args.jobId);
  return taskId === undefined ? {} : { taskId };
}

/** The task a result returns (itself, or its `task`), its status, and the poll's figures. */
function fromResult(result: unknown): TelemetryNote {
  if (!isObject(result)) return {};
  const task = isObject(result.task) ? result.task : result;
  const note: TelemetryNote = {};
  const taskId = text(task.taskId);
  const status = text(task.status);
  if (taskId !== undefined) note.taskId = taskId;
  if (status !== undefined) {
    note.status = status;
    note.terminalRetrieval = TERMINAL.has(status as TaskStatus);
  }
  if (task.replayed === true) note.duplicate = true;
  const pollNumber = int(result.pollNumber);
  const waitedMs = int(result.waitedMs);
  if (pollNumber !== undefined) note.pollNumber = pollNumber;
  if (waitedMs !== undefined) note.waitedMs = waitedMs;
  return note;
}

/** What `op` declares beyond the derived notes ({} for `telemetry: true`). */
const declared = (op: AnyOpDef): OpTelemetry => (op.telemetry === true ? {} : (op.telemetry ?? {}));

/** Records each call of the operations that declare `telemetry`. */
export const telemetryMiddleware: OpMiddleware = {
  applies: (op) => op.telemetry !== undefined,
  around: (op, args, ctx, next) => {
    const spec = declared(op);
    return ctx.services.tasks.telemetry.trace(op.name, async (note) => {
      Object.assign(note, fromArgs(args), spec.fromArgs?.(args));
      const result = await next();
      Object.assign(note, fromResult(result), spec.fromResult?.(result, args));
      return result;
    });
  },
};
