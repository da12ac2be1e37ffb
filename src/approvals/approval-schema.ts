/**
 * The approval policy and the approval record: one zod schema each, used by start_session,
 * run_task, a schedule's runTask action, the server's default and the approval operations, and
 * the pure decision of a policy for one bash script.
 */
import { z } from "zod";
import type { ApprovalPolicy } from "../config/approval-policy.js";
import { parseGoDuration } from "../core/duration.js";

export {
  type ApprovalPolicy,
  approvalPolicySchema,
  approvalRuleSchema,
  NO_APPROVAL,
} from "../config/approval-policy.js";

/** What a policy says about one script, and why (the matched rule or the mode). */
export interface PolicyVerdict {
  decision: "allow" | "ask" | "deny";
  reason: string;
}

/** Decides `script` under `policy`: in rules mode the first matching rule, no match asks. */
export function judge(policy: ApprovalPolicy, script: string): PolicyVerdict {
  if (policy.mode === "never") return { decision: "allow", reason: "mode never" };
  if (policy.mode === "always") return { decision: "ask", reason: "mode always" };
  for (const rule of policy.rules ?? []) {
    if (new RegExp(rule.match).test(script)) return { decision: rule.decision, reason: `rule ${rule.match}` };
  }
  return { decision: "ask", reason: "no rule matched" };
}

/** The policy's timeout in milliseconds (undefined: waits until decided). */
export function timeoutMs(policy: ApprovalPolicy): number | undefined {
  return policy.timeout === undefined ? undefined : parseGoDuration(policy.timeout);
}

/** Where an approval stands. */
export const approvalStatusSchema = z.enum(["pending", "approved", "denied"]);

/** One stored approval request. */
export const approvalSchema = z.object({
  approvalId: z.string(),
  status: approvalStatusSchema,
  sessionId: z.string(),
  runId: z.string(),
  taskId: z.string().nullable(),
  callId: z.string(),
  script: z.string(),
  cwd: z.string().nullable(),
  reason: z.string().describe('The matched rule, "mode always" or "no rule matched"'),
  requestedAt: z.number().int(),
  expiresAt: z.number().int().nullable().describe("When a timeout decides it (null: waits until decided)"),
  onTimeout: z.enum(["deny", "allow"]),
  decidedAt: z.number().int().nullable(),
  note: z.string().nullable().describe("The decider's note (a timeout's: why)"),
  decidedBy: z.enum(["human", "timeout"]).nullable(),
  executedAt: z.number().int().nullable().describe("When an approved command was claimed to run (exactly once)"),
});

/** A stored approval. */
export type Approval = z.infer<typeof approvalSchema>;
