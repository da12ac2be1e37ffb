/**
 * Approval operations: the requests the agent's bash calls wait on (approval_list,
 * approval_get) and the decision that resumes the run (approval_decide).
 */
import { z } from "zod";
import { approvalSchema } from "../approvals/approval-schema.js";
import { defineOp } from "./registry.js";

const EXAMPLE_ID = "apr_0mimx3k2a9f1c2d3e4f5a6";

export const approvalListOp = defineOp({
  name: "approval_list",
  group: "approval",
  flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  summary: "Approval requests of the agent's bash calls, newest first; filter by status, session or task.",
  input: z
    .object({
      status: z.enum(["pending", "decided"]).optional().describe("Default: both"),
      sessionId: z.string().optional(),
      taskId: z.string().optional(),
      limit: z.number().int().min(1).max(500).default(50).describe("Default: 50"),
      cursor: z.string().optional().describe("The previous page's `nextCursor`"),
    })
    .strict(),
  output: z.object({
    approvals: z.array(approvalSchema),
    nextCursor: z.string().nullable().describe("null on the last page"),
  }),
  example: { status: "pending", limit: 20 },
  handle: "approval.list",
  handler: async (args, { services }) => {
    const approvals = await services.approvals.list({
      status: args.status,
      sessionId: args.sessionId,
      taskId: args.taskId,
      before: args.cursor,
      limit: args.limit,
    });
    return {
      approvals,
      nextCursor: approvals.length === args.limit ? approvals[approvals.length - 1]!.approvalId : null,
    };
  },
});

export const approvalGetOp = defineOp({
  name: "approval_get",
  group: "approval",
  flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  summary: "One approval request: the command, why it needs a decision, and the decision once made.",
  input: z.object({ approvalId: z.string().min(1) }).strict(),
  output: approvalSchema,
  example: { approvalId: EXAMPLE_ID },
  errors: ["not_found"],
  handle: "approval.get",
  handler: (args, { services }) => services.approvals.get(args.approvalId),
});

export const approvalDecideOp = defineOp({
  name: "approval_decide",
  group: "approval",
  flags: { readOnly: false, destructive: false, idempotent: true, openWorld: true },
  scope: "approve",
  summary: "Approve (the command runs once, the run goes on) or deny (the model is told, the run goes on) a request.",
  notes: [
    'Deny gives the model `{"denied": true, "note": …}` as the bash output. The same decision again returns the approval with `replayed: true`; the other decision is `approval_conflict`.',
    "A command a `deny` rule matched never asks, so it can never be approved into running. A scoped token (an agent's CLAW_TOKEN) cannot decide.",
  ].join("\n\n"),
  input: z
    .object({
      approvalId: z.string().min(1),
      decision: z.enum(["approve", "deny"]),
      note: z.string().max(2000).optional().describe("Given to the model with a denial"),
    })
    .strict(),
  output: approvalSchema.extend({ replayed: z.literal(true).optional() }),
  example: { approvalId: EXAMPLE_ID, decision: "approve", note: "ok, the directory is scratch" },
  errors: ["not_found", "approval_conflict"],
  handle: "approval.decide",
  handler: (args, { services }) => services.approvals.decide(args.approvalId, args.decision, args.note),
});

/** The approval group. */
export const approvalOps = [approvalListOp, approvalGetOp, approvalDecideOp] as const;
