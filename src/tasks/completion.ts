/**
 * task_update and the completion contract (seed 003, DESIGN §7). In one transaction:
 * receipt replay or conflict, the version check, the transition rules, the write context, the
 * handoff and receipt a completion needs, then the update and the receipt insert. Anything
 * rejected throws before the first write, so a rejected update leaves no change and no receipt.
 */
import { z } from "zod";
import { ClawError } from "../errors.js";
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
    title: z.string().trim().min(1).optional(),
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

function checkReceipt(r: ReceiptInput): void {
  const missing = (["sessionRef", "worker", "work"] as const).filter((k) => blank(r[k]));
  if (missing.length) {
    throw new ClawError("completion_receipt_required", `the receipt needs non-empty ${missing.join(", ")}`, {
      missing: missing.map((k) => `receipt.${k}`),
    });
  }
}

function checkWriteContext(
  t: TaskRecord,
  instance: string,
  wc: TaskUpdateArgs["writeContext"],
  completing: boolean,
): void {
  if (!wc) {
    if (completing)
      throw new ClawError(
        "write_context_mismatch",
        "completing a task needs writeContext {instance, project}: read server_identity and the task, then pass both",
        { expected: { instance, project: t.project } },
      );
    return;
  }
  if (wc.instance !== instance || wc.project !== t.project) {
    throw new ClawError(
      "write_context_mismatch",
      `writeContext {instance: ${wc.instance}, project: ${wc.project}} does not match this server's instance ${instance} and the task's project ${t.project}; you may be talking to the wrong server or task`,
      {
        expected: { instance, project: t.project },
        got: wc,
      },
    );
  }
}

/**
 * Applies a task_update. Returns the updated task, or the current one with `replayed: true`
 * when the same receipt was already stored.
 */
export function applyUpdate(
  store: TaskStore,
  ctx: UpdateContext,
  args: TaskUpdateArgs,
): { task: TaskRecord; replayed: boolean } {
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
  return store.transaction(() => {
    const t = store.get(taskId);
    let body: string | undefined;
    if (receipt) {
      checkReceipt(receipt);
      body = receiptBody(receipt);
      const prior = store.receiptBody(taskId, receipt.sessionRef);
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
    checkWriteContext(t, ctx.instance, args.writeContext, completing);
    if (completing) {
      const missing = (["completed", "next"] as const).filter((k) => blank(handoff?.[k]));
      if (missing.length) {
        throw new ClawError(
          "completion_handoff_required",
          `completing a task needs a non-empty handoff.${missing.join(" and handoff.")}`,
          { missing: missing.map((k) => `handoff.${k}`) },
        );
      }
      if (!receipt)
        throw new ClawError(
          "completion_receipt_required",
          "completing a task needs one receipt {sessionRef, worker, work, next, blockers, tests, gitCheckpoint?}",
          { missing: ["receipt"] },
        );
    }
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
    const updated = store.patch(taskId, patch, { expectedVersion: args.expectedVersion, timeline });
    if (!updated)
      throw new ClawError("version_conflict", `task ${taskId} changed while it was being updated; re-read it`, {
        currentVersion: store.get(taskId).version,
        taskId,
      });
    if (receipt && body !== undefined) store.insertReceipt(taskId, receipt.sessionRef, body);
    return { task: updated, replayed: false };
  });
}
