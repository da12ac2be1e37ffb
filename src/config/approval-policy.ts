/**
 * The approval policy of the agent's bash calls: one zod schema for the server's default (here,
 * below the services that use it), start_session, run_task and a schedule's runTask action.
 */
import { z } from "zod";
import { parseGoDuration } from "../core/duration.js";

/** One rule: a regular expression on the script and what a match decides. */
export const approvalRuleSchema = z.object({
  match: z
    .string()
    .min(1)
    .refine((s) => {
      try {
        new RegExp(s);
        return true;
      } catch {
        return false;
      }
    }, "not a valid regular expression")
    .describe("Regular expression (JavaScript syntax) tested against the script"),
  decision: z.enum(["allow", "ask", "deny"]).describe("allow: run; ask: wait for a human; deny: never run"),
});

/** How the model's bash calls are approved. */
export const approvalPolicySchema = z
  .object({
    mode: z
      .enum(["never", "always", "rules"])
      .describe("never: no approval; always: every call asks; rules: the first matching rule decides, no match asks"),
    rules: z.array(approvalRuleSchema).optional().describe("rules mode: checked in order"),
    timeout: z
      .string()
      .refine((s) => (parseGoDuration(s) ?? -1) > 0, "not a positive Go duration such as 30s, 10m, 1h")
      .optional()
      .describe("How long a request waits for a decision (Go duration). Default: until decided"),
    onTimeout: z.enum(["deny", "allow"]).optional().describe("What a timeout decides. Default: deny"),
  })
  .describe("Approval policy for the agent's bash calls");

/** An approval policy. */
export type ApprovalPolicy = z.infer<typeof approvalPolicySchema>;

/** The server's default: no approval. */
export const NO_APPROVAL: ApprovalPolicy = { mode: "never" };
