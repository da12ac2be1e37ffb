/**
 * task_update and the completion contract: a task is only "done" with a handoff and a receipt,
 * so the next reader knows what happened without asking. In one transaction:
 * receipt replay or conflict, the version check, the transition rules, the write context, the
 * handoff and receipt a completion needs, then the update and the receipt insert. Anything
 * rejected throws before the first write, so a rejected update leaves no change and no receipt.
 */
import { z } from "zod";
import { ClawError } from "../core/errors.js";
import { canonicalJson } from "./idempotency.js";
import {
  type Handoff,
  handoffInputSchema,
  type ReceiptInput,
  receiptInputSchema,
  type TaskPhase,
  type TaskStatus,
  taskStatusSchema,
} from "./task-schema.js";
import { checkTransition, TERMINAL } from "./task-status.js";
import type { TaskPatch, TaskRecord, TaskStore } from "./task-store.js";

/** Arguments of task_update. */
export const taskUpdateInputSchema = z
  .object({
    taskId: z.string().min(1).describe("The task"),
    expectedVersion: z
      .number()
      .int()
      .min(1)
      .describe("The version you last read; a stale one is version_conflict and nothing changes"),
    status: taskStatusSchema.optional().describe("New status; done runs the completion contract"),
    title: z.string().trim().min(1).max(500).optional(),
    body: z.string().optional(),
    handoff: handoffInputSchema
      .optional()
      .describe(
        "Merged over the stored handoff. Completing needs non-empty completed and next; blocked needs non-empty blockers",
      ),
    receipt: receiptInputSchema
      .optional()
      .describe(
        "One work receipt; required to complete. (taskId, sessionRef) is unique: resending the same receipt replays",
      ),
    writeContext: z
      .object({
        instance: z.string().describe("server_identity.instance"),
        project: z.string().describe("The task's project"),
      })
      .strict()
      .optional()
      .describe("The verified instance and project you write to; required to complete"),
  })
  .strict();
/** task_update arguments, inferred from the schema. */
export type TaskUpdateArgs = z.output<typeof taskUpdateInputSchema>;

/** What task_update needs besides the store. */
export interface UpdateContext {
  /** This server's instance id (server_identity.instance). */
  instance: string;
  /** True while the task's agent run is active in this process. */
  runActive: (taskId: string) => boolean;
}

const blank = (s: string | undefined): boolean => s === undefined || s.trim() === "";

/** The receipt as stored: canonical JSON of its fields, so "the same receipt" is textual equality. */
function receiptBody(r: ReceiptInput): string {
  return canonicalJson({
    sessionRef: r.sessionRef,
    worker: r.worker,
    work: r.work,
    next: r.next,
    blockers: r.blockers,
    tests: r.tests,
    gitCheckpoint: r.gitCheckpoint,
  });
}

function phaseFor(t: TaskRecord, to: TaskStatus, runActive: boolean): TaskPhase {
  if (TERMINAL.has(to)) return "ended";
  if (to === "blocked" || to === "needs_human") return "waiting_human";
  if (t.kind === "work") return "open";
  return runActive ? "waiting_model" : t.phase;
}

function receiptGaps(r: ReceiptInput): string[] {
  return (["sessionRef", "worker", "work"] as const).filter((k) => blank(r[k])).map((k) => `receipt.${k}`);
}

/** The writeContext fields that differ from this server's instance and the task's project. */
function contextGaps(t: TaskRecord, instance: string, wc: TaskUpdateArgs["writeContext"]): string[] {
  if (!wc) return ["writeContext"];
  const gaps: string[] = [];
  if (wc.instance !== instance) gaps.push("writeContext.instance");
  if (wc.project !== t.project) gaps.push("writeContext.project");
  return gaps;
}

const CONTEXT_HINT =
  "read server_identity (instance) and the task (project) from the server you mean to write to, and pass both";

/**
 * Every unmet requirement of a completion at once, in the order the guide lists them (handoff,
 * receipt, writeContext), so one retry suffices. The code is the first unmet one's. Expected
 * instance and project are never echoed: the client must read them, which is the check's point.
 */
function checkCompletion(t: TaskRecord, instance: string, args: TaskUpdateArgs): void {
  const missing = (["completed", "next"] as const).filter((k) => blank(args.handoff?.[k])).map((k) => `handoff.${k}`);
  const handoffMissing = missing.length > 0;
  const receiptMissing = args.receipt ? receiptGaps(args.receipt) : ["receipt"];
  missing.push(...receiptMissing);
  const context = contextGaps(t, instance, args.writeContext);
  missing.push(...context);
  if (missing.length === 0) return;
  const code = handoffMissing
    ? "completion_handoff_required"
    : receiptMissing.length > 0
      ? "completion_receipt_required"
      : "write_context_mismatch";
  const parts: string[] = [];
  if (handoffMissing) parts.push(`non-empty ${missing.filter((m) => m.startsWith("handoff.")).join(" and ")}`);
  if (receiptMissing[0] === "receipt")
    parts.push("one receipt {sessionRef, worker, work, next, blockers, tests, gitCheckpoint?}");
  else if (receiptMissing.length > 0) parts.push(`a receipt with non-empty ${receiptMissing.join(", ")}`);
  if (context[0] === "writeContext") parts.push("writeContext {instance, project}");
  else if (context.length > 0) parts.push(`a writeContext whose ${context.join(" and ")} match (${CONTEXT_HINT})`);
  throw new ClawError(code, `completing a task needs ${parts.join("; ")}. Missing: ${missing.join(", ")}`, {
    missing,
  });
}

/** Outside a completion: a receipt needs its fields, and a writeContext given must match. */
function checkOtherUpdate(t: TaskRecord, instance: string, args: TaskUpdateArgs): void {
  if (args.receipt) {
    const missing = receiptGaps(args.receipt);
    if (missing.length > 0)
      throw new ClawError("completion_receipt_required", `the receipt needs non-empty ${missing.join(", ")}`, {
        missing,
      });
  }
  if (args.writeContext) {
    const mismatched = contextGaps(t, instance, args.writeContext);
    if (mismatched.length > 0)
      throw new ClawError(
        "write_context_mismatch",
        `${mismatched.join(" and ")} ${mismatched.length > 1 ? "do" : "does"} not match; ${CONTEXT_HINT}`,
        { missing: mismatched },
      );
  }
}

/**
 * Applies a task_update. Returns the updated task, or the current one with `replayed: true`
 * when the same receipt was already stored.
 */
export async function applyUpdate(
  tasks: TaskStore,
  ctx: UpdateContext,
  args: TaskUpdateArgs,
): Promise<{ task: TaskRecord; replayed: boolean }> {
  const { taskId, receipt, handoff } = args;
  if (
    args.status === undefined &&
    args.title === undefined &&
    args.body === undefined &&
    handoff === undefined &&
    receipt === undefined
  ) {
    throw new ClawError(
      "invalid_args",
      "task_update needs something to change: status, title, body, handoff or receipt",
      { issues: [{ path: "status", message: "nothing to change" }] },
    );
  }
  return tasks.tx(async (store) => {
    const t = await store.get(taskId);
    let body: string | undefined;
    if (receipt) {
      body = receiptBody(receipt);
      const prior = await store.receiptBody(taskId, receipt.sessionRef);
      if (prior !== undefined) {
        if (prior === body) return { task: t, replayed: true };
        throw new ClawError(
          "receipt_conflict",
          `task ${taskId} already has a different receipt with sessionRef "${receipt.sessionRef}"; a new logical receipt needs a new sessionRef`,
          { taskId, sessionRef: receipt.sessionRef },
        );
      }
    }
    if (t.version !== args.expectedVersion) {
      throw new ClawError(
        "version_conflict",
        `task ${taskId} is at version ${t.version}, not ${args.expectedVersion}; re-read it (get_task), check what changed, and decide again`,
        { currentVersion: t.version, expectedVersion: args.expectedVersion, taskId },
      );
    }
    const to = args.status ?? t.status;
    const runActive = ctx.runActive(taskId);
    checkTransition({ kind: t.kind, from: t.status, to, runActive });
    const completing = to === "done" && t.status !== "done";
    if (completing) checkCompletion(t, ctx.instance, args);
    else checkOtherUpdate(t, ctx.instance, args);
    if (to === "blocked" && (t.status !== "blocked" || handoff?.blockers !== undefined) && blank(handoff?.blockers)) {
      throw new ClawError(
        "blocker_required",
        "a blocked task needs a non-empty handoff.blockers saying what blocks it",
        { missing: ["handoff.blockers"] },
      );
    }
    const patch: TaskPatch = { title: args.title, body: args.body };
    if (handoff) {
      const prev: Handoff = t.handoff ?? { completed: "", next: "", blockers: "" };
      patch.handoff = {
        completed: handoff.completed ?? prev.completed,
        next: handoff.next ?? prev.next,
        blockers: handoff.blockers ?? prev.blockers,
      };
    }
    let timeline: string | undefined;
    if (to !== t.status) {
      patch.status = to;
      patch.phase = phaseFor(t, to, runActive);
      if (TERMINAL.has(to)) patch.endedAt = Date.now();
      else if (TERMINAL.has(t.status)) patch.endedAt = null; // reopened
      if (to === "in_progress" && t.startedAt === null) patch.startedAt = Date.now();
      timeline = `status ${t.status} → ${to}${receipt ? ` (receipt ${receipt.sessionRef})` : ""}`;
      patch.latestUpdate = {
        at: Date.now(),
        text: to === "blocked" ? `blocked: ${handoff!.blockers!.trim()}` : timeline,
      };
    } else if (receipt) {
      timeline = `receipt ${receipt.sessionRef}`;
    }
    const updated = await store.patch(taskId, patch, { expectedVersion: args.expectedVersion, timeline });
    if (!updated)
      throw new ClawError("version_conflict", `task ${taskId} changed while it was being updated; re-read it`, {
        currentVersion: (await store.get(taskId)).version,
        taskId,
      });
    if (receipt && body !== undefined) await store.insertReceipt(taskId, receipt.sessionRef, body);
    return { task: updated, replayed: false };
  });
}
