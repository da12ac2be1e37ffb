/**
 * The approval policies set on sessions (their default) and on run tasks (for their run), and
 * the policy a run is judged by: its task's, else its session's, else the server's default.
 */
import type { Sql } from "../store/sql.js";
import type { Row } from "../store/tables/tables.js";
import { type ApprovalPolicy, approvalPolicySchema } from "./approval-schema.js";

/** Stores `policy` for a session or task id (inside the caller's transaction with `q`). */
export async function savePolicy(q: Sql, owner: string, policy: ApprovalPolicy): Promise<void> {
  await q.run(
    "INSERT INTO approval_policies (owner, policy) VALUES (?, ?) ON CONFLICT (owner) DO UPDATE SET policy = excluded.policy",
    [owner, JSON.stringify(policy)],
  );
}

/** The read of the policies that may apply to a run of session `sessionId` (for task `taskId`). */
export function policyRead(sessionId: string, taskId: string | undefined): { sql: string; params: string[] } {
  return {
    sql: "SELECT owner, policy FROM approval_policies WHERE owner IN (?, ?)",
    params: [sessionId, taskId ?? sessionId],
  };
}

/** The policy of a run of session `sessionId` (for task `taskId`), `fallback` when neither has one. */
export async function policyFor(
  sql: Sql,
  sessionId: string,
  taskId: string | undefined,
  fallback: ApprovalPolicy,
): Promise<ApprovalPolicy> {
  const read = policyRead(sessionId, taskId);
  return policyOf(await sql.all<Row<"approval_policies">>(read.sql, read.params), sessionId, taskId, fallback);
}

/** The policy among `rows` (those of {@link policyRead}): the task's, else the session's, else `fallback`. */
export function policyOf(
  rows: readonly Row<"approval_policies">[],
  sessionId: string,
  taskId: string | undefined,
  fallback: ApprovalPolicy,
): ApprovalPolicy {
  const row = rows.find((r) => r.owner === taskId) ?? rows.find((r) => r.owner === sessionId);
  return row ? approvalPolicySchema.parse(JSON.parse(row.policy)) : fallback;
}

/** A session's own policy (undefined: it follows the server's default). */
export async function sessionPolicy(sql: Sql, sessionId: string): Promise<ApprovalPolicy | undefined> {
  const row = await sql.get<Pick<Row<"approval_policies">, "policy">>(
    "SELECT policy FROM approval_policies WHERE owner = ?",
    [sessionId],
  );
  return row ? approvalPolicySchema.parse(JSON.parse(row.policy)) : undefined;
}
