/**
 * The parity table: cases run in order, per transport, each in a fresh claw whose model is the
 * fake Responses server (default answer "ok"). Every case states whether it succeeds or which
 * error code it gets; the parity test checks each transport gives the same envelope.
 *
 * Adding a case: append `{ op, args, expect }`. `args` may be a function of earlier results
 * (`r["case name"]`) for ids the server made. `streaming: true` marks operations that only work
 * over WebSocket and stdio (compared between those two; the others must say
 * `unsupported_on_transport`).
 */

/** Results of earlier cases, by case name. */
export type Earlier = Record<string, any>;

/** One parity case. */
export interface ParityCase {
  /** Unique; defaults to the op name. */
  name?: string;
  op: string;
  args?: Record<string, unknown> | ((r: Earlier) => Record<string, unknown>);
  /** "ok", or the expected error code. */
  expect: string;
  streaming?: boolean;
}

/** Cases by group. */
export const BUS_CASES: ParityCase[] = [
  { name: "out 1", op: "out", args: { bus: "p", payload: { n: 1, s: "a\u2028b" } }, expect: "ok" },
  { name: "out 2", op: "out", args: { payload: [1, "two", null] }, expect: "ok" },
  { name: "out bad bus", op: "out", args: { bus: "no spaces", payload: 1 }, expect: "invalid_args" },
  { name: "out no payload", op: "out", args: { bus: "p" }, expect: "invalid_args" },
  { name: "out unknown field", op: "out", args: { payload: 1, extra: true }, expect: "invalid_args" },
  { name: "read", op: "read", args: { bus: "p", after: 0 }, expect: "ok" },
  { name: "read empty", op: "read", args: { bus: "nothing-here", after: 0 }, expect: "ok" },
  { name: "read bad limit", op: "read", args: { limit: 0 }, expect: "invalid_args" },
  { name: "subscribe", op: "subscribe", args: { bus: "p", after: 0 }, expect: "ok", streaming: true },
  { name: "unsubscribe unknown", op: "unsubscribe", args: { sub: "sub_nope" }, expect: "ok" },
  { name: "unsubscribe bad", op: "unsubscribe", args: {}, expect: "invalid_args" },
  { name: "list_buses", op: "list_buses", args: {}, expect: "ok" },
  { name: "trim_bus", op: "trim_bus", args: { bus: "p", keepLast: 1 }, expect: "ok" },
  { name: "trim_bus nothing to keep", op: "trim_bus", args: { bus: "p" }, expect: "invalid_args" },
  { name: "read after trim", op: "read", args: { bus: "p" }, expect: "ok" },
];

export const BASH_CASES: ParityCase[] = [
  { name: "bash ok", op: "bash", args: { script: "echo hi; echo err >&2; exit 3" }, expect: "ok" },
  {
    name: "bash events",
    op: "bash",
    args: {
      script: "printf 'a\\nb\\n'",
      stdoutLineEvent: { template: { line: "{payload}", note: "got {payload}" }, bus: "bashev" },
      exitEvent: { template: { code: "{payload}" }, bus: "bashev" },
    },
    expect: "ok",
  },
  { name: "bash events read", op: "read", args: { bus: "bashev" }, expect: "ok" },
  {
    name: "bash stdin env",
    op: "bash",
    args: { script: 'read x; echo "$x-$FOO"', stdin: "in\n", env: { FOO: "bar" } },
    expect: "ok",
  },
  { name: "bash timeout", op: "bash", args: { script: "sleep 5", timeout: "300ms" }, expect: "ok" },
  { name: "bash bad timeout", op: "bash", args: { script: "true", timeout: "soon" }, expect: "invalid_args" },
  { name: "bash no script", op: "bash", args: {}, expect: "invalid_args" },
];

export const META_CASES: ParityCase[] = [
  { op: "ops", args: {}, expect: "ok" },
  { op: "doc", args: {}, expect: "ok" },
  { op: "server_identity", args: {}, expect: "ok" },
  { op: "list_nodes", args: {}, expect: "ok" },
  { name: "unknown op", op: "no_such_op", args: {}, expect: "unknown_op" },
  { name: "ops extra arg", op: "ops", args: { x: 1 }, expect: "invalid_args" },
  {
    name: "cancel_call nothing in flight",
    op: "cancel_call",
    args: { callId: "c_parity_nothing_in_flight" },
    expect: "ok",
  },
  { name: "cancel_call short id", op: "cancel_call", args: { callId: "short" }, expect: "invalid_args" },
  { op: "stream_ticket", args: {}, expect: "ok" },
  { name: "stream_ticket extra arg", op: "stream_ticket", args: { bus: "p" }, expect: "invalid_args" },
];

export const SESSION_CASES: ParityCase[] = [
  { name: "start_session", op: "start_session", args: { sessionKey: "par", name: "Parity" }, expect: "ok" },
  { name: "prompt", op: "prompt", args: { sessionKey: "par", message: "say ok" }, expect: "ok" },
  { name: "get_messages", op: "get_messages", args: { sessionKey: "par" }, expect: "ok" },
  { name: "get_last_assistant_text", op: "get_last_assistant_text", args: { sessionKey: "par" }, expect: "ok" },
  { name: "get_session_stats", op: "get_session_stats", args: { sessionKey: "par" }, expect: "ok" },
  { name: "get_state", op: "get_state", args: { sessionKey: "par" }, expect: "ok" },
  { name: "set_session_name", op: "set_session_name", args: { sessionKey: "par", name: "Renamed" }, expect: "ok" },
  { name: "fork", op: "fork", args: { sessionKey: "par", newSessionKey: "par-fork" }, expect: "ok" },
  { name: "list_sessions", op: "list_sessions", args: {}, expect: "ok" },
  { name: "export_session", op: "export_session", args: { sessionKey: "par", format: "jsonl" }, expect: "ok" },
  { name: "steer idle", op: "steer", args: { sessionKey: "par", message: "later" }, expect: "ok" },
  { name: "follow_up idle", op: "follow_up", args: { sessionKey: "par", message: "then this" }, expect: "ok" },
  { name: "abort idle", op: "abort", args: { sessionKey: "par" }, expect: "ok" },
  { name: "set_model", op: "set_model", args: { sessionKey: "par", model: "parity-model" }, expect: "ok" },
  { name: "compact", op: "compact", args: { sessionKey: "par", instructions: "keep it short" }, expect: "ok" },
  { name: "compact unknown session", op: "compact", args: { sessionKey: "nobody" }, expect: "not_found" },
  { name: "clear_queue", op: "clear_queue", args: { sessionKey: "par" }, expect: "ok" },
  { name: "delete_session", op: "delete_session", args: { sessionKey: "par-fork" }, expect: "ok" },
  { name: "prompt unknown session", op: "prompt", args: { sessionKey: "nobody", message: "hi" }, expect: "not_found" },
  { name: "prompt no message", op: "prompt", args: { sessionKey: "par" }, expect: "invalid_args" },
];

export const TASK_CASES: ParityCase[] = [
  {
    name: "run_task",
    op: "run_task",
    args: { prompt: "say ok", sessionKey: "par-task", idempotencyKey: "par-1" },
    expect: "ok",
  },
  { name: "check_task", op: "check_task", args: (r) => ({ taskId: r.run_task.taskId, waitMs: 20_000 }), expect: "ok" },
  {
    name: "run_task replay",
    op: "run_task",
    args: { prompt: "say ok", sessionKey: "par-task", idempotencyKey: "par-1" },
    expect: "ok",
  },
  {
    name: "run_task conflict",
    op: "run_task",
    args: { prompt: "something else", sessionKey: "par-task", idempotencyKey: "par-1" },
    expect: "idempotency_conflict",
  },
  { name: "task_create", op: "task_create", args: { title: "Parity work" }, expect: "ok" },
  {
    name: "task_update stale",
    op: "task_update",
    args: (r) => ({ taskId: r.task_create.taskId, expectedVersion: 99, title: "x" }),
    expect: "version_conflict",
  },
  {
    name: "task_update done without handoff",
    op: "task_update",
    args: (r) => ({
      taskId: r.task_create.taskId,
      expectedVersion: 1,
      status: "done",
      writeContext: { instance: r.server_identity.instance, project: r.task_create.project },
    }),
    expect: "completion_handoff_required",
  },
  {
    name: "task_update done",
    op: "task_update",
    args: (r) => ({
      taskId: r.task_create.taskId,
      expectedVersion: 1,
      status: "done",
      handoff: { completed: "checked parity", next: "nothing", blockers: "" },
      receipt: {
        sessionRef: "parity/1",
        worker: "parity test",
        work: "ran the table",
        next: "none",
        blockers: "",
        tests: "parity: ok",
      },
      writeContext: { instance: r.server_identity.instance, project: r.task_create.project },
    }),
    expect: "ok",
  },
  {
    name: "get_task done",
    op: "get_task",
    args: (r) => ({ taskId: r.task_create.taskId, include: ["receipts"] }),
    expect: "ok",
  },
  { name: "get_task unknown", op: "get_task", args: { taskId: "task_missing" }, expect: "not_found" },
  {
    name: "get_task run",
    op: "get_task",
    args: (r) => ({ taskId: r.run_task.taskId, include: ["timeline"] }),
    expect: "ok",
  },
  { name: "list_tasks", op: "list_tasks", args: {}, expect: "ok" },
  { name: "task_create 2", op: "task_create", args: { title: "To cancel" }, expect: "ok" },
  { name: "cancel_task", op: "cancel_task", args: (r) => ({ taskId: r["task_create 2"].taskId }), expect: "ok" },
  { name: "task_telemetry", op: "task_telemetry", args: { limit: 5 }, expect: "ok" },
  { name: "continuity_context", op: "continuity_context", args: { limit: 5 }, expect: "ok" },
  { name: "memory_add", op: "memory_add", args: { text: "parity notes live here", tags: ["p"] }, expect: "ok" },
  { name: "memory_search", op: "memory_search", args: { query: "parity" }, expect: "ok" },
  { name: "approval_list", op: "approval_list", args: { status: "pending" }, expect: "ok" },
  { name: "approval_get", op: "approval_get", args: { approvalId: "apr_unknown" }, expect: "not_found" },
  {
    name: "approval_decide",
    op: "approval_decide",
    args: { approvalId: "apr_unknown", decision: "deny" },
    expect: "not_found",
  },
];

export const SCHEDULE_CASES: ParityCase[] = [
  {
    name: "schedule_create",
    op: "schedule_create",
    args: {
      name: "parity",
      when: { cron: "0 9 * * mon-fri", timezone: "Europe/Berlin" },
      action: { bash: { script: "sleep 5" } },
    },
    expect: "ok",
  },
  {
    name: "schedule_create bad timezone",
    op: "schedule_create",
    args: { when: { cron: "0 9 * * *", timezone: "Mars/Olympus" }, action: { out: { payload: 1 } } },
    expect: "invalid_args",
  },
  {
    name: "schedule_get",
    op: "schedule_get",
    args: (r) => ({ scheduleId: r.schedule_create.scheduleId }),
    expect: "ok",
  },
  { name: "schedule_get unknown", op: "schedule_get", args: { scheduleId: "sch_missing" }, expect: "not_found" },
  { name: "schedule_list", op: "schedule_list", args: {}, expect: "ok" },
  {
    name: "schedule_update stale",
    op: "schedule_update",
    args: (r) => ({ scheduleId: r.schedule_create.scheduleId, expectedVersion: 9, overlap: "queue" }),
    expect: "version_conflict",
  },
  {
    name: "schedule_update",
    op: "schedule_update",
    args: (r) => ({ scheduleId: r.schedule_create.scheduleId, expectedVersion: 1, overlap: "queue", deadline: "10m" }),
    expect: "ok",
  },
  {
    name: "schedule_pause",
    op: "schedule_pause",
    args: (r) => ({ scheduleId: r.schedule_create.scheduleId }),
    expect: "ok",
  },
  {
    name: "schedule_resume",
    op: "schedule_resume",
    args: (r) => ({ scheduleId: r.schedule_create.scheduleId }),
    expect: "ok",
  },
  {
    name: "schedule_trigger",
    op: "schedule_trigger",
    args: (r) => ({ scheduleId: r.schedule_create.scheduleId }),
    expect: "ok",
  },
  {
    name: "schedule_firings",
    op: "schedule_firings",
    args: (r) => ({ scheduleId: r.schedule_create.scheduleId }),
    expect: "ok",
  },
  {
    name: "schedule_delete",
    op: "schedule_delete",
    args: (r) => ({ scheduleId: r.schedule_create.scheduleId }),
    expect: "ok",
  },
];

/** Every case, in order. */
export const PARITY_CASES: ParityCase[] = [
  ...BUS_CASES,
  ...BASH_CASES,
  ...META_CASES,
  ...SESSION_CASES,
  ...TASK_CASES,
  ...SCHEDULE_CASES,
];

/** A case's name. */
export const caseName = (c: ParityCase): string => c.name ?? c.op;

const VOLATILE_KEY = /^(ts|at|sub|instance|id|ticket|lastHeartbeat)$|At$|Ms$|Id$/;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/**
 * Replaces what legitimately differs between two runs: times, generated ids and the server URL.
 * Keys named like `…At`, `…Ms`, `…Id`, `ts`, `sub`, `instance` keep only their type.
 */
export function normalize(value: unknown, key = ""): unknown {
  if (Array.isArray(value)) return value.map((v) => normalize(v));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v, k)]));
  }
  if (VOLATILE_KEY.test(key) && value !== null && value !== undefined) return `<${typeof value}>`;
  if (typeof value === "string") {
    return value
      .replace(/"(ts|at|id|sub|instance|\w+At|\w+Ms|\w+Id)":("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?)/g, '"$1":"<v>"') // JSON text inside a string (exports)
      .replace(UUID, "<uuid>")
      .replace(/\bsub_[0-9a-f]{8}\b/g, "<sub>")
      .replace(/https?:\/\/(127\.0\.0\.1|localhost):\d+/g, "<url>")
      .replace(/\b(resp|msg|fc|call|run|ses)_[0-9a-z]+\b/g, "<$1>");
  }
  return value;
}
