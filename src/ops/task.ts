/**
 * Task operations: the run contract (run_task, check_task, get_task, list_tasks, cancel_task),
 * the completion contract (task_create, task_update) and their telemetry (task_telemetry).
 * Every call of these operations except task_telemetry is recorded as request telemetry (never
 * with the prompt text): each declares `telemetry`, and the dispatcher's middleware records it.
 */
import { z } from "zod";
import { taskUpdateInputSchema } from "../tasks/completion.js";
import {
  cancelTaskInput,
  checkTaskInput,
  checkTaskOutput,
  clampWait,
  getTaskInput,
  listTasksInput,
  listTasksOutput,
  replayableTaskOutput,
  runTaskInput,
  runTaskOutput,
  taskCreateInput,
  taskTelemetryInput,
} from "../tasks/task-inputs.js";
import { taskSchema } from "../tasks/task-schema.js";
import { telemetryRecordSchema } from "../tasks/telemetry.js";
import { defineOp } from "./registry.js";

const EXAMPLE_ID = "task_00000000-0000-0000-0000-000000000000";

export const runTaskOp = defineOp({
  name: "run_task",
  group: "task",
  flags: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  summary:
    "Start an agent run of a prompt as a task; returns at once with the taskId and the exact next call (check_task).",
  notes: [
    "The task runs in the session named by `sessionKey` (created when new). Tasks of one session run one at a time, in order; later ones wait as `todo` with phase `queued`.",
    "Poll with `check_task` (it waits server-side). A poll that times out never creates a second task. With `idempotencyKey`, resending the same request returns the same task (`replayed: true`) with its current status.",
    "Fails fast with `provider_auth_missing` (nothing is created) when the provider's API key is missing. Bash run by the agent gets `CLAW_TASK_ID`, so it can report on its own task with task_update (e.g. `blocked`); the end of the run does not overwrite that.",
  ].join("\n\n"),
  input: runTaskInput,
  output: runTaskOutput,
  example: {
    prompt: "Count the TODO lines in this repository and report the number",
    sessionKey: "todo-counter",
    idempotencyKey: "count-todos-1",
  },
  errors: ["provider_auth_missing", "idempotency_conflict", "bus_reserved"],
  handle: "task.run",
  telemetry: true,
  handler: (args, { services }) => services.tasks.runTask(args),
});

export const checkTaskOp = defineOp({
  name: "check_task",
  group: "task",
  flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  scope: "task",
  summary:
    "Wait (default 45 s, at most 600 s) until the task is terminal or actionable; return its snapshot and the next call.",
  notes: [
    'Ordinary progress does not end the wait; a terminal status (completed, completed_no_summary, error, cancelled, done) or an actionable one (blocked, needs_human) does; `until: "update"` also returns on any newer version. The progress of a run (phase, latestUpdate, timeline) is written within 250 ms of the event; what several events report within that time is one version, the last update winning and every timeline line kept.',
    "A wait that times out is not terminal: `continuePolling` is true and `nextAction` is the same check_task call; call it again at once. `nextAction` is null exactly when the task is terminal; for an actionable task it names the call that resumes the work.",
    "`waitMs` is clamped to 0–600000 (negative → 0). Each call increments `pollCount`. A caller that goes away ends only its wait, never the task. check_task never creates or restarts a task.",
  ].join("\n\n"),
  input: checkTaskInput,
  output: checkTaskOutput,
  example: { taskId: EXAMPLE_ID, waitMs: 30000 },
  errors: ["not_found"],
  handle: "task.check",
  telemetry: { fromArgs: (args) => ({ waitAskedMs: clampWait(args.waitMs) }) },
  handler: (args, { services, signal }) => services.tasks.checkTask(args, signal),
});

export const getTaskOp = defineOp({
  name: "get_task",
  group: "task",
  flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  scope: "task",
  aliases: ["task_get"],
  summary: "The task's snapshot, immediately (never waits); include timeline, receipts or prompt on request.",
  notes:
    'After a lost task_update response, read the task here (with `include: ["receipts"]`): when your receipt\'s sessionRef is there, the write succeeded.',
  input: getTaskInput,
  output: taskSchema,
  example: { taskId: EXAMPLE_ID, include: ["timeline", "receipts"] },
  errors: ["not_found"],
  handle: "task.get",
  telemetry: true,
  handler: (args, { services }) => services.tasks.getTask((args.taskId ?? args.jobId)!, args.include),
});

export const listTasksOp = defineOp({
  name: "list_tasks",
  group: "task",
  flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  summary: "List tasks (newest first) with filters, counts per status and a cursor: the aggregate view of active work.",
  notes:
    "A page holds at most `limit` tasks and at most `maxBytes` of their text (default 4 MiB, as `read`), always at least one task; pass `nextCursor` as `cursor` for the rest (null when there is no more).",
  input: listTasksInput,
  output: listTasksOutput,
  example: { active: true, limit: 20 },
  handle: "task.list",
  telemetry: true,
  handler: (args, { services }) => services.tasks.listTasks(args),
});

export const cancelTaskOp = defineOp({
  name: "cancel_task",
  group: "task",
  flags: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  summary:
    "Cancel a task: a queued one just ends; a running one has its run stopped and its bash killed. Ended tasks are returned unchanged.",
  input: cancelTaskInput,
  output: taskSchema,
  example: { taskId: EXAMPLE_ID },
  errors: ["not_found"],
  handle: "task.cancel",
  telemetry: true,
  handler: (args, { services }) => services.tasks.cancelTask((args.taskId ?? args.jobId)!),
});

export const taskCreateOp = defineOp({
  name: "task_create",
  group: "task",
  flags: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  summary:
    "Create a tracked work task (status todo, version 1); tsclaw does not execute it — a worker claims and completes it with task_update.",
  input: taskCreateInput,
  output: replayableTaskOutput,
  example: {
    title: "Write the release notes",
    body: "Cover the bus and the task contract",
    idempotencyKey: "release-notes-1",
  },
  errors: ["idempotency_conflict"],
  handle: "task.create",
  telemetry: true,
  handler: (args, { services }) => services.tasks.createTask(args),
});

export const taskUpdateOp = defineOp({
  name: "task_update",
  group: "task",
  flags: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  scope: "task",
  summary:
    "Change a task at its current version (expectedVersion); completing it (done) needs a handoff, one receipt and the write context.",
  notes: [
    "Every update needs `expectedVersion`; a stale one is `version_conflict` (details.currentVersion) and nothing changes: re-read, compare, decide again — never resend the stale payload blindly.",
    "A new transition to `done` needs non-empty `handoff.completed` and `handoff.next` (`completion_handoff_required`), one `receipt` (`completion_receipt_required`) and `writeContext` equal to server_identity's instance and the task's project (`write_context_mismatch`). The update and the receipt insert are one transaction; a rejected completion changes nothing and stores no receipt.",
    "`(taskId, receipt.sessionRef)` is unique: resending the same receipt returns the current task with `replayed: true`; a different receipt under the same sessionRef is `receipt_conflict`. `blocked` needs a non-empty `handoff.blockers` (`blocker_required`). Metadata edits of a done task need no receipt; reopening (done → todo/in_progress) is allowed and completing again uses the contract.",
    "Transitions refused with `invalid_transition`: completed/completed_no_summary/error (only a run sets them); cancelled on a run task (use cancel_task); anything from cancelled to done; todo/in_progress on a run task (resume with run_task in the same session; the agent itself may go from blocked back to in_progress while its run lasts); blocked/needs_human from an ended task or a run task that has not started.",
    "Read the task back (get_task) after a successful write and treat that as the durable confirmation.",
  ].join("\n\n"),
  input: taskUpdateInputSchema,
  output: replayableTaskOutput,
  example: {
    taskId: EXAMPLE_ID,
    expectedVersion: 3,
    status: "done",
    handoff: { completed: "Release notes written", next: "Review by a maintainer", blockers: "" },
    receipt: {
      sessionRef: "worker-42/run-1",
      worker: "agent worker-42",
      work: "Wrote docs/RELEASE.md",
      next: "Review",
      blockers: "",
      tests: "npm test: 120 passed",
      gitCheckpoint: "abc1234",
    },
    writeContext: { instance: "<server_identity.instance>", project: "<task project>" },
  },
  errors: [
    "not_found",
    "version_conflict",
    "completion_handoff_required",
    "completion_receipt_required",
    "write_context_mismatch",
    "blocker_required",
    "receipt_conflict",
    "invalid_transition",
  ],
  handle: "task.update",
  telemetry: true,
  handler: (args, { services }) => services.tasks.updateTask(args),
});

export const taskTelemetryOp = defineOp({
  name: "task_telemetry",
  group: "task",
  flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  summary:
    "Request telemetry of the task operations (op, task, poll number, wait asked and waited, status returned, duration, duplicate, terminal retrieval, error), newest first.",
  input: taskTelemetryInput,
  output: z.object({ records: z.array(telemetryRecordSchema) }),
  example: { limit: 20 },
  handle: "task.telemetry",
  handler: async (args, { services }) => ({ records: await services.tasks.telemetry.list(args) }),
});

/** Task operations. */
export const taskOps = [
  runTaskOp,
  checkTaskOp,
  getTaskOp,
  listTasksOp,
  cancelTaskOp,
  taskCreateOp,
  taskUpdateOp,
  taskTelemetryOp,
] as const;
