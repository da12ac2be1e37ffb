/**
 * Zod schemas of tasks as clients see them (Task, TaskRow, handoff, receipt, error, next
 * action). The task operations' inputs and outputs are built from these; TypeScript types are
 * inferred from them, never written twice.
 */
import { z } from "zod";
import { TASK_STATUSES } from "./task-statuses.js";

export { TASK_STATUSES } from "./task-statuses.js";

/** A task status. */
export const taskStatusSchema = z.enum(TASK_STATUSES);
/** Inferred from its schema. */
export type TaskStatus = z.infer<typeof taskStatusSchema>;

/**
 * Phases: what a task is doing right now, finer than its status.
 * - `queued`: a run task waiting for its session (earlier tasks of the session run first)
 * - `waiting_session`: a run task whose session is busy with a run that is not a task
 * - `starting`: picked up, the agent run is starting
 * - `waiting_model`: a model turn is in flight
 * - `running_tool`: the agent's bash is running
 * - `waiting_human`: blocked or needs_human; someone must act
 * - `open`: a work task (task_create) that is not finished; tsclaw tracks it, a worker does it
 * - `ended`: terminal
 */
export const TASK_PHASES = [
  "queued",
  "waiting_session",
  "starting",
  "waiting_model",
  "running_tool",
  "waiting_human",
  "awaiting_approval",
  "open",
  "ended",
] as const;
/** A task phase. */
export const taskPhaseSchema = z.enum(TASK_PHASES);
/** Inferred from its schema. */
export type TaskPhase = z.infer<typeof taskPhaseSchema>;

/** `run`: a prompt executed by an agent (run_task). `work`: tracked work done elsewhere (task_create). */
export const taskKindSchema = z.enum(["run", "work"]);
/** Inferred from its schema. */
export type TaskKind = z.infer<typeof taskKindSchema>;

/** The handoff a worker leaves: what is done, what comes next, what blocks it. */
export const handoffSchema = z.object({
  completed: z.string().describe("What was done"),
  next: z.string().describe("The next step"),
  blockers: z.string().describe("What blocks the work; may be empty when nothing does"),
});
/** Inferred from its schema. */
export type Handoff = z.infer<typeof handoffSchema>;

/** A handoff as sent in task_update: each field optional, merged over the stored one. */
export const handoffInputSchema = z
  .object({
    completed: z.string().optional().describe("What was done (non-empty to complete)"),
    next: z.string().optional().describe("The next step (non-empty to complete)"),
    blockers: z
      .string()
      .optional()
      .describe('What blocks the work (non-empty to set "blocked"; may be empty otherwise)'),
  })
  .strict();

/**
 * A work receipt: the durable claim of who did what. Completing a task requires one, so "done"
 * always names a worker and the work; (taskId, sessionRef) is unique so a retried completion
 * replays instead of appending a second claim.
 */
export const receiptInputSchema = z
  .object({
    sessionRef: z
      .string()
      .describe("The worker's session reference; (taskId, sessionRef) is unique, so a retry never appends twice"),
    worker: z.string().describe("Who did the work (agent, model, person)"),
    work: z.string().describe("What was actually done"),
    next: z.string().default("").describe("The next step"),
    blockers: z.string().default("").describe("Blockers; may be empty"),
    tests: z.string().default("").describe("Tests run and their outcome"),
    gitCheckpoint: z.string().optional().describe("Commit (or ref) when code changed"),
  })
  .strict();
/** Inferred from its schema. */
export type ReceiptInput = z.output<typeof receiptInputSchema>;

/** A stored receipt. */
export const receiptSchema = z.object({
  sessionRef: z.string(),
  worker: z.string(),
  work: z.string(),
  next: z.string(),
  blockers: z.string(),
  tests: z.string(),
  gitCheckpoint: z.string().optional(),
  createdAt: z.number(),
});
/** Inferred from its schema. */
export type Receipt = z.infer<typeof receiptSchema>;

/** Why a task failed and what to do about it. */
export const taskErrorSchema = z.object({
  code: z.string().describe('e.g. "interrupted", "node_lost", "provider_error", "provider_auth_missing"'),
  message: z.string(),
  category: z.string().describe('"restart", "provider", "auth", "run", "internal"'),
  suggestedRecovery: z.string().describe("What a caller should do next"),
});
/** Inferred from its schema. */
export type TaskError = z.infer<typeof taskErrorSchema>;

/** The latest meaningful thing that happened. */
export const latestUpdateSchema = z.object({ at: z.number(), text: z.string() });
/** Inferred from its schema. */
export type LatestUpdate = z.infer<typeof latestUpdateSchema>;

/** One entry of the compact, bounded timeline. */
export const timelineEntrySchema = z.object({
  at: z.number(),
  version: z.number().int(),
  status: taskStatusSchema,
  phase: taskPhaseSchema,
  text: z.string(),
});
/** Inferred from its schema. */
export type TimelineEntry = z.infer<typeof timelineEntrySchema>;

/** The operation (and its arguments) a caller should invoke next; null when the task is terminal. */
export const nextActionSchema = z.object({ op: z.string(), args: z.record(z.string(), z.unknown()) }).nullable();
/** Inferred from its schema. */
export type NextAction = z.infer<typeof nextActionSchema>;

/** Fields shared by Task and TaskRow. */
const taskBase = {
  taskId: z.string(),
  jobId: z.string().describe("Same as taskId"),
  kind: taskKindSchema,
  title: z.string(),
  body: z.string().nullable(),
  sessionKey: z.string().nullable(),
  sessionId: z.string().nullable(),
  project: z.string(),
  status: taskStatusSchema,
  phase: taskPhaseSchema,
  version: z.number().int().describe("Starts at 1; +1 with every accepted change (not with polls)"),
  createdAt: z.number(),
  updatedAt: z.number(),
  startedAt: z.number().nullable(),
  endedAt: z.number().nullable(),
  elapsedMs: z.number().describe("From creation to the end (or now)"),
  latestUpdate: latestUpdateSchema.nullable(),
  pollCount: z.number().int().describe("check_task calls so far"),
  error: taskErrorSchema.nullable(),
  handoff: handoffSchema.nullable(),
  scheduleId: z.string().optional().describe("A scheduled task: the schedule whose firing started it"),
  firingAt: z.number().nullable().optional().describe("A scheduled task: that firing's due time (epoch ms)"),
};

/** A task snapshot. `timeline`, `receipts` and `prompt` appear when asked for with `include`. */
export const taskSchema = z.object({
  ...taskBase,
  summary: z.string().nullable().describe("The run's last assistant text"),
  timeline: z.array(timelineEntrySchema).optional(),
  receipts: z.array(receiptSchema).optional(),
  prompt: z.string().nullable().optional(),
});
/** Inferred from its schema. */
export type Task = z.infer<typeof taskSchema>;

/** The compact form used in lists: summary cut to 500 characters. */
export const taskRowSchema = z.object({
  ...taskBase,
  summary: z.string().nullable(),
  summaryTruncated: z.boolean(),
});
/** Inferred from its schema. */
export type TaskRow = z.infer<typeof taskRowSchema>;

/** Extra parts of a Task a caller may ask for. */
export const includeSchema = z
  .array(z.enum(["timeline", "receipts", "prompt"]))
  .default([])
  .describe('Extra parts: "timeline", "receipts", "prompt". Default: none');
/** Inferred from its schema. */
export type TaskInclude = z.output<typeof includeSchema>;
