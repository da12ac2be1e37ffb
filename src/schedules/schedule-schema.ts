/**
 * Zod schemas of schedules as clients see them (Schedule, Firing, health) and of their parts
 * (when, action, policies, expect). The schedule operations' inputs and outputs are built from
 * these; TypeScript types are inferred from them.
 */
import { z } from "zod";
import { bashArgsSchema, bashResultSchema } from "../bash/bash-schema.js";
import { busNameSchema } from "../bus/bus-name.js";
import { approvalPolicySchema } from "../config/approval-policy.js";
import { projectNameSchema } from "../config/project-name.js";
import { parseGoDuration } from "../core/duration.js";
import { taskStatusSchema } from "../tasks/task-schema.js";

/** A Go duration string (e.g. "90s", "15m", "1h30m"), checked. */
export function durationField(what: string, minMs = 0) {
  return z.string().superRefine((v, ctx) => {
    const ms = parseGoDuration(v);
    if (ms === undefined)
      ctx.addIssue({ code: "custom", message: `${what}: "${v}" is not a Go duration such as "30s", "15m"` });
    else if (ms < minMs) ctx.addIssue({ code: "custom", message: `${what} must be at least ${minMs / 1000}s` });
  });
}

/** When a schedule is due: a cron expression, a fixed interval, or one instant. */
export const whenSchema = z
  .union([
    z
      .object({
        cron: z
          .string()
          .min(1)
          .describe(
            'Standard 5-field cron (minute hour day-of-month month day-of-week): lists, ranges, steps, month and day names, or @hourly/@daily/@weekly/@monthly/@yearly. E.g. "0 9 * * 1-5"',
          ),
        timezone: z.string().min(1).optional().describe('IANA timezone the fields are read in. Default: "UTC"'),
      })
      .strict(),
    z
      .object({
        every: z.string().describe('A Go duration, at least 1s: "30s", "15m", "1h30m"'),
        from: z
          .string()
          .optional()
          .describe("ISO time of the first due time (the cadence is kept from it). Default: creation + one interval"),
      })
      .strict(),
    z.object({ at: z.string().describe("ISO time: due once, then spent") }).strict(),
  ])
  .describe("When it is due: {cron, timezone?} | {every, from?} | {at}");

/** A runTask action: a durable task per firing (the task carries scheduleId and firingAt). */
export const runTaskActionSchema = z
  .object({
    prompt: z
      .string()
      .refine((s) => s.trim() !== "", "prompt must not be blank")
      .describe("What the agent should do at each firing"),
    sessionKey: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("Session every firing runs in (its tasks run one at a time). Default: a new session per firing"),
    title: z.string().trim().min(1).max(200).optional().describe("Task title. Default: the prompt's first line"),
    project: projectNameSchema.optional().describe("The tasks' project. Default: the server's"),
    approval: approvalPolicySchema
      .optional()
      .describe(
        "Approval policy of the agent's bash calls in each firing's run. Default: the session's, else the server's",
      ),
  })
  .strict();

/** An out action: one bus event per firing. */
export const outActionSchema = z
  .object({
    bus: busNameSchema.optional().describe('Default: "thebus"'),
    payload: z
      .unknown()
      .refine((v) => v !== undefined, "payload is required")
      .describe("Any JSON value"),
  })
  .strict();

/** What a firing does. */
export const actionSchema = z
  .union([
    z.object({ runTask: runTaskActionSchema }).strict(),
    z
      .object({ bash: bashArgsSchema.describe("The bash operation's arguments; the result is kept with the firing") })
      .strict(),
    z.object({ out: outActionSchema }).strict(),
  ])
  .describe("What each firing does: {runTask} | {bash} | {out}");
/** Inferred from its schema. */
export type Action = z.output<typeof actionSchema>;

/** The postcondition a firing's work must meet to be `ok`. */
export const expectSchema = z
  .object({
    status: z
      .array(taskStatusSchema)
      .min(1)
      .optional()
      .describe('runTask: the task statuses that count as ok. Default: ["completed"]'),
    receipt: z.boolean().optional().describe("runTask: the task must carry a completion receipt. Default: false"),
    exitCode: z
      .union([z.number().int(), z.array(z.number().int()).min(1)])
      .optional()
      .describe("bash: the exit code(s) that count as ok (a timeout never does). Default: 0"),
  })
  .strict()
  .describe('Postcondition. Default: {status: ["completed"]} for runTask, {exitCode: 0} for bash');
/** Inferred from its schema. */
export type Expect = z.output<typeof expectSchema>;

/** Overlap policies. */
export const overlapSchema = z
  .enum(["skip", "queue", "cancel_previous"])
  .describe(
    "A due time arrives while the previous firing's work runs: skip it, queue it (at most one waits), or cancel the previous",
  );
/** Missed policies. */
export const missedSchema = z
  .enum(["skip", "latest", "all"])
  .describe(
    "Due times that passed while no node ran (or while paused): skip them, fire the newest, or fire each (at most maxCatchUp)",
  );

/** A firing's outcome. */
export const FIRING_OUTCOMES = ["pending", "running", "ok", "failed", "skipped", "missed", "overdue"] as const;
export const firingOutcomeSchema = z.enum(FIRING_OUTCOMES);
/** Inferred from its schema. */
export type FiringOutcome = z.infer<typeof firingOutcomeSchema>;

/** Why a firing exists: its due time, a catch-up after downtime, or schedule_trigger. */
export const firingKindSchema = z.enum(["due", "catch_up", "trigger"]);
/** Inferred from its schema. */
export type FiringKind = z.infer<typeof firingKindSchema>;

/** One due time and what happened to it. */
export const firingSchema = z.object({
  scheduleId: z.string(),
  firingAt: z.number().describe("The due time (epoch ms); (scheduleId, firingAt) is unique"),
  kind: firingKindSchema,
  outcome: firingOutcomeSchema.describe(
    "pending (waiting to start) → running → ok | failed (overdue in between when past the deadline); skipped, missed: never ran",
  ),
  reason: z.string().nullable().describe("Why it has this outcome (failed, skipped, missed, overdue)"),
  taskId: z.string().nullable().describe("runTask: the firing's task"),
  result: bashResultSchema.nullable().describe("bash: the run's result"),
  node: z.string().nullable().describe("The node that ran it"),
  startedAt: z.number().nullable(),
  endedAt: z.number().nullable(),
  overdueAt: z.number().nullable().describe("When it passed its deadline unfinished (kept after its final outcome)"),
});
/** Inferred from its schema. */
export type Firing = z.infer<typeof firingSchema>;

/** A schedule's health. */
export const healthSchema = z.object({
  lastOkAt: z.number().nullable(),
  consecutiveFailures: z.number().int(),
  status: z
    .enum(["healthy", "failing", "late", "unknown"])
    .describe(
      "late: a due time passed more than the deadline (or 60 s) ago with no firing started; failing: the last firing failed (or is overdue); healthy: it was ok; unknown: no firing ended yet",
    ),
});
/** Inferred from its schema. */
export type Health = z.infer<typeof healthSchema>;

/** The policies a schedule is created with (each with its default). */
export const policyFields = {
  overlap: overlapSchema.default("skip"),
  missed: missedSchema.default("latest"),
  maxCatchUp: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(10)
    .describe('missed "all": at most this many missed due times fire (the newest); older ones are recorded missed'),
  jitter: durationField("jitter")
    .nullable()
    .default(null)
    .describe("A random delay up to it before each firing. Default: none"),
  deadline: durationField("deadline", 1)
    .nullable()
    .default(null)
    .describe("A firing not finished within it becomes overdue (its work goes on). Default: none"),
  expect: expectSchema.optional(),
};

/** A schedule. */
export const scheduleSchema = z.object({
  scheduleId: z.string(),
  name: z.string(),
  version: z.number().int().describe("Starts at 1; +1 with every change (update, pause, resume)"),
  when: whenSchema,
  action: actionSchema,
  overlap: overlapSchema,
  missed: missedSchema,
  maxCatchUp: z.number().int(),
  jitter: z.string().nullable(),
  deadline: z.string().nullable(),
  expect: expectSchema.describe("The postcondition in force (the default filled in)"),
  enabled: z.boolean().describe("False while paused"),
  createdAt: z.number(),
  updatedAt: z.number(),
  nextFireAt: z.string().nullable().describe("ISO (UTC): the next due time from now; null when paused or spent"),
  lastFiring: firingSchema.nullable(),
  health: healthSchema,
});
/** Inferred from its schema. */
export type Schedule = z.infer<typeof scheduleSchema>;

/** The stored definition of a schedule (everything a caller sets). */
export interface ScheduleSpec {
  when: z.output<typeof whenSchema>;
  action: Action;
  overlap: z.output<typeof overlapSchema>;
  missed: z.output<typeof missedSchema>;
  maxCatchUp: number;
  jitter: string | null;
  deadline: string | null;
  expect: Expect;
}

/** The postcondition in force: the given one, else the action's default. */
export function expectFor(action: Action, given: Expect | undefined): Expect {
  if (given && Object.keys(given).length > 0) return given;
  if ("runTask" in action) return { status: ["completed"] };
  if ("bash" in action) return { exitCode: 0 };
  return {};
}
