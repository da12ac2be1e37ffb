/** Zod schemas of the schedule operations' arguments and results. */
import { z } from "zod";
import {
  actionSchema,
  durationField,
  expectSchema,
  firingSchema,
  missedSchema,
  overlapSchema,
  policyFields,
  scheduleSchema,
  whenSchema,
} from "./schedule-schema.js";
import { type When, whenProblem } from "./timetable.js";

const scheduleIdField = z.string().min(1).describe("The schedule id");
const nameField = z.string().trim().min(1).max(200);

/** Adds an issue at `when.<field>` when the cron expression, timezone, interval or time is invalid. */
function checkWhen(when: When | undefined, ctx: z.RefinementCtx): void {
  if (when === undefined) return;
  const problem = whenProblem(when);
  if (problem) ctx.addIssue({ code: "custom", path: ["when", ...problem.path], message: problem.message });
  else if ("at" in when && Date.parse(when.at) < Date.now() - 1000)
    ctx.addIssue({ code: "custom", path: ["when", "at"], message: `"${when.at}" is in the past` });
}

/** Arguments of schedule_create. */
export const scheduleCreateInput = z
  .object({
    name: nameField.optional().describe("A label (not unique). Default: the schedule id"),
    when: whenSchema,
    action: actionSchema,
    ...policyFields,
    enabled: z.boolean().default(true).describe("False: created paused. Default: true"),
  })
  .strict()
  .superRefine((a, ctx) => checkWhen(a.when, ctx));
/** Inferred from its schema. */
export type ScheduleCreateArgs = z.output<typeof scheduleCreateInput>;

/** `{scheduleId}`. */
export const scheduleRefInput = z.object({ scheduleId: scheduleIdField }).strict();

/** Arguments of schedule_update: the fields to change, at the schedule's current version. */
export const scheduleUpdateInput = z
  .object({
    scheduleId: scheduleIdField,
    expectedVersion: z.number().int().describe("The version read; a stale one is version_conflict and nothing changes"),
    name: nameField.optional(),
    when: whenSchema.optional().describe("A new timetable: the next due time is computed from now"),
    action: actionSchema.optional(),
    overlap: overlapSchema.optional(),
    missed: missedSchema.optional(),
    maxCatchUp: z.number().int().min(1).max(1000).optional(),
    jitter: durationField("jitter").nullable().optional().describe("null removes it"),
    deadline: durationField("deadline", 1).nullable().optional().describe("null removes it"),
    expect: expectSchema.nullable().optional().describe("null restores the action's default"),
  })
  .strict()
  .superRefine((a, ctx) => checkWhen(a.when, ctx));
/** Inferred from its schema. */
export type ScheduleUpdateArgs = z.output<typeof scheduleUpdateInput>;

/** Arguments of schedule_list. */
export const scheduleListInput = z
  .object({
    enabled: z.boolean().optional().describe("Only running (true) or paused (false) schedules. Default: both"),
    limit: z.number().int().min(1).max(1000).default(100).describe("Default: 100 (at most 1000)"),
    cursor: z.string().optional().describe("nextCursor of the previous page"),
  })
  .strict();
/** Inferred from its schema. */
export type ScheduleListArgs = z.output<typeof scheduleListInput>;

/** Result of schedule_list. */
export const scheduleListOutput = z.object({
  schedules: z.array(scheduleSchema).describe("Oldest first"),
  nextCursor: z.string().nullable(),
});

/** Arguments of schedule_firings. */
export const scheduleFiringsInput = z
  .object({
    scheduleId: scheduleIdField,
    limit: z.number().int().min(1).max(1000).default(50).describe("Default: 50 (at most 1000)"),
    before: z.number().optional().describe("Only firings due before this time (nextCursor of the previous page)"),
  })
  .strict();
/** Inferred from its schema. */
export type ScheduleFiringsArgs = z.output<typeof scheduleFiringsInput>;

/** Result of schedule_firings. */
export const scheduleFiringsOutput = z.object({
  firings: z.array(firingSchema).describe("Newest due time first"),
  nextCursor: z.number().nullable().describe("Pass as `before` for the next page; null at the end"),
});
