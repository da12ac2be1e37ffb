/** Zod schemas of the task operations' arguments and results (except task_update's, in completion.ts). */

import { z } from "zod";
import { busNameSchema } from "../bus/bus-name.js";
import { approvalPolicySchema } from "../config/approval-policy.js";
import { projectNameSchema } from "../config/project-name.js";
import { pageBytesInput } from "../core/byte-page.js";
import { includeSchema, nextActionSchema, taskRowSchema, taskSchema, taskStatusSchema } from "./task-schema.js";

/** Default check_task wait. */
export const DEFAULT_WAIT_MS = 45_000;
/** Longest check_task wait; longer asks are clamped. */
export const MAX_WAIT_MS = 600_000;

/** Clamps a wait to 0–600 s (negative → 0, huge → 600 s). */
export function clampWait(ms: number): number {
  return Math.round(Math.min(MAX_WAIT_MS, Math.max(0, ms)));
}

const taskIdField = z.string().min(1).describe("The task id (jobId is the same value)");
const idempotencyKeyField = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .describe(
    "Same key + same arguments replays the original result (replayed: true); same key + other arguments is idempotency_conflict",
  );

/** `{taskId}` or `{jobId}`: both name the same task. */
function withTaskRef<S extends z.ZodRawShape>(shape: S) {
  return z
    .object({
      taskId: taskIdField.optional(),
      jobId: z.string().min(1).optional().describe("Alias of taskId"),
      ...shape,
    })
    .strict()
    .refine((a) => (a as { taskId?: string }).taskId !== undefined || (a as { jobId?: string }).jobId !== undefined, {
      message: "give taskId (or jobId)",
      path: ["taskId"],
    });
}

/** Arguments of run_task. */
export const runTaskInput = z
  .object({
    prompt: z
      .string()
      .refine((s) => s.trim() !== "", "prompt must not be blank")
      .describe("What the agent should do"),
    sessionKey: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("Session to run in (created when new). Default: a new session"),
    title: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe("Default: the prompt's first line, cut to 80 characters"),
    idempotencyKey: idempotencyKeyField,
    model: z.string().min(1).optional().describe("Model of a new session. Default: the server's"),
    provider: z.string().min(1).optional().describe("Provider of a new session. Default: the server's"),
    bus: busNameSchema.optional().describe('Bus of a new session. Default: "thebus"'),
    project: projectNameSchema.optional().describe("Default: the server's project"),
    approval: approvalPolicySchema
      .optional()
      .describe("Approval policy of this run's bash calls. Default: the session's, else the server's"),
  })
  .strict();
/** RunTaskArgs, inferred from its schema. */
export type RunTaskArgs = z.output<typeof runTaskInput>;

/** Result of run_task. */
export const runTaskOutput = z.object({
  taskId: z.string(),
  jobId: z.string().describe("Same as taskId"),
  sessionKey: z.string(),
  sessionId: z.string(),
  status: taskStatusSchema,
  version: z.number().int(),
  replayed: z.boolean().describe("True when an earlier call with the same idempotencyKey created the task"),
  continuePolling: z.boolean(),
  nextAction: nextActionSchema,
  task: taskSchema
    .optional()
    .describe("The final Task: only in the result of a task-augmented MCP call (tasks/result), given once it ended"),
});

/** Arguments of check_task. */
export const checkTaskInput = withTaskRef({
  waitMs: z
    .number()
    .default(DEFAULT_WAIT_MS)
    .describe("How long to wait for a terminal or actionable status, clamped to 0–600000. Default: 45000"),
  until: z
    .enum(["settled", "update"])
    .default("settled")
    .describe(
      '"settled": return early only on a terminal or actionable status; "update": also on any new version. Default: "settled"',
    ),
  afterVersion: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('With until "update": return as soon as the version is above this. Default: the version at the call'),
  include: includeSchema,
});
/** CheckTaskArgs, inferred from its schema. */
export type CheckTaskArgs = z.output<typeof checkTaskInput>;

/** Result of check_task. */
export const checkTaskOutput = z.object({
  task: taskSchema,
  isTerminal: z.boolean(),
  isActionable: z.boolean().describe("blocked or needs_human: someone must act (see nextAction)"),
  continuePolling: z.boolean().describe("True exactly while the task is todo or in_progress"),
  nextAction: nextActionSchema.describe(
    "check_task while running; the op that resumes an actionable task; null when terminal",
  ),
  waitedMs: z.number().int(),
  pollNumber: z.number().int().describe("This call's number among the task's check_task calls"),
});
/** CheckTaskResult, inferred from its schema. */
export type CheckTaskResult = z.input<typeof checkTaskOutput>;

/** Arguments of get_task (alias task_get). */
export const getTaskInput = withTaskRef({ include: includeSchema });
/** GetTaskArgs, inferred from its schema. */
export type GetTaskArgs = z.output<typeof getTaskInput>;

/** Arguments of list_tasks. */
export const listTasksInput = z
  .object({
    status: z
      .union([taskStatusSchema, z.array(taskStatusSchema).min(1)])
      .optional()
      .describe("One status or several"),
    active: z.boolean().optional().describe("true: todo, in_progress, blocked, needs_human; false: terminal ones"),
    sessionKey: z.string().optional(),
    project: z.string().optional(),
    kind: z.enum(["run", "work"]).optional(),
    limit: z.number().int().min(1).max(500).default(50).describe("1-500. Default: 50"),
    maxBytes: pageBytesInput,
    cursor: z.string().optional().describe("nextCursor of the previous page"),
  })
  .strict();
/** ListTasksArgs, inferred from its schema. */
export type ListTasksArgs = z.output<typeof listTasksInput>;

/** Result of list_tasks. */
export const listTasksOutput = z.object({
  tasks: z.array(taskRowSchema).describe("Newest first"),
  counts: z
    .record(z.string(), z.number().int())
    .describe("Tasks per status matching the filters other than status/active"),
  nextCursor: z.string().nullable(),
});
/** ListTasksResult, inferred from its schema. */
export type ListTasksResult = z.input<typeof listTasksOutput>;

/** Arguments of cancel_task. */
export const cancelTaskInput = withTaskRef({});

/** Arguments of task_create. */
export const taskCreateInput = z
  .object({
    title: z.string().trim().min(1).max(500),
    body: z.string().optional(),
    project: projectNameSchema.optional().describe("Default: the server's project"),
    idempotencyKey: idempotencyKeyField,
  })
  .strict();
/** TaskCreateArgs, inferred from its schema. */
export type TaskCreateArgs = z.output<typeof taskCreateInput>;

/** A Task with the replay flag of task_create / task_update. */
export const replayableTaskOutput = taskSchema.extend({ replayed: z.boolean() });

/** Arguments of task_telemetry. */
export const taskTelemetryInput = z
  .object({
    taskId: z.string().optional(),
    op: z.string().optional(),
    limit: z.number().int().min(1).max(1000).default(100).describe("1-1000. Default: 100"),
  })
  .strict();
