/**
 * Approvals of the agent's bash calls. Before a call of the model starts, the run's policy
 * decides: allow runs it, deny gives the model `{denied: true, note}`, ask stores an approval
 * (before anything else happens), holds the task as `needs_human` / `awaiting_approval`,
 * publishes `approval_requested` on the session's bus and on the `approvals` bus, and pauses
 * the run until a decision (approval_decide on any node, or the policy's timeout). An approved
 * command is claimed in the database before it runs, so it runs exactly once.
 */
import type { CallGate, RunGates } from "../agent/agent-loop.js";
import type { ToolOutcome } from "../agent/bash-tool.js";
import { BASH_TOOL_NAME, parseToolArgs } from "../agent/bash-tool.js";
import type { ModelCall } from "../agent/output-items.js";
import { bashArgsSchema } from "../bash/bash-schema.js";
import type { BusService } from "../bus/bus-service.js";
import { ClawError } from "../core/errors.js";
import type { Sql } from "../store/sql.js";
import { policyFor, savePolicy } from "./approval-policies.js";
import { type Approval, type ApprovalPolicy, judge, NO_APPROVAL, timeoutMs } from "./approval-schema.js";
import { type ApprovalFilter, ApprovalStore, type StoredApproval } from "./approval-store.js";

/** The reserved bus every approval event is also published on. */
export const APPROVALS_BUS = "approvals";

/** How an approval changes its task (the claw wires it to the task store). */
export interface ApprovalTaskPort {
  /** The task waits for a human: needs_human, phase awaiting_approval, `text` its latest update. */
  awaiting(taskId: string, text: string): Promise<void>;
  /** The decision came: back to in_progress. */
  resumed(taskId: string, text: string): Promise<void>;
}

/** The run whose calls a gate judges. */
export interface GatedRun {
  sessionId: string;
  /** The session's bus (approval events go there too). */
  bus: string;
  runId: string;
  taskId?: string;
  policy: ApprovalPolicy;
}

/** What `decide` returns. */
export type DecideResult = Approval & { replayed?: true };

const denied = (note: string): ToolOutcome => ({ result: { denied: true, note }, isError: true });
const clip = (s: string, n = 200) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** Stores, decides and waits for approvals. */
export class ApprovalService implements RunGates {
  readonly store: ApprovalStore;
  private readonly waiters = new Map<string, Set<() => void>>();
  private stopListening?: () => void;

  constructor(
    private readonly sql: Sql,
    private readonly bus: BusService,
    node: string,
    private readonly tasks: ApprovalTaskPort,
    private readonly log: (line: string) => void,
    /** The server's default policy. Default: never */
    private readonly fallback: ApprovalPolicy = NO_APPROVAL,
  ) {
    this.store = new ApprovalStore(sql, node);
  }

  /** The gate of one run: its task's policy, else its session's, else the server's. */
  async forRun(run: Omit<GatedRun, "policy">): Promise<CallGate | undefined> {
    const policy = await policyFor(this.sql, run.sessionId, run.taskId, this.fallback);
    return policy.mode === "never" ? undefined : this.gate({ ...run, policy });
  }

  /** Sets a session's default policy. */
  setSessionPolicy(sessionId: string, policy: ApprovalPolicy): Promise<void> {
    return savePolicy(this.sql, sessionId, policy);
  }

  /** Listens for decisions made on any node. */
  start(): void {
    this.stopListening = this.bus.listen(APPROVALS_BUS, (events) => {
      for (const e of events) {
        const p = JSON.parse(e.payloadJson) as { type?: string; approvalId?: string };
        if (p.type === "approval_decided" && p.approvalId) this.wake(p.approvalId);
      }
    });
  }

  /** Stops listening; waiting runs are ended by their own abort. */
  close(): void {
    this.stopListening?.();
  }

  /** The gate a run's loop asks before each call. */
  gate(run: GatedRun): CallGate {
    return { admit: (call, signal) => this.admit(run, call, signal) };
  }

  /** One approval; `not_found` when there is none. */
  async get(approvalId: string): Promise<Approval> {
    const a = await this.store.get(approvalId);
    if (!a) throw new ClawError("not_found", `no approval ${approvalId}; approval_list lists them`, { approvalId });
    return publicView(a);
  }

  /** Newest first. */
  async list(f: ApprovalFilter): Promise<Approval[]> {
    return (await this.store.list(f)).map(publicView);
  }

  /** The task's pending approvals (oldest first). */
  async pendingForTask(taskId: string): Promise<Approval[]> {
    return (await this.store.list({ status: "pending", taskId, limit: 100 })).map(publicView).reverse();
  }

  /**
   * Decides a pending approval. The same decision again returns it with `replayed: true`; a
   * different one is `approval_conflict`.
   */
  async decide(approvalId: string, decision: "approve" | "deny", note?: string): Promise<DecideResult> {
    const status = decision === "approve" ? "approved" : "denied";
    const decided = await this.store.decide(approvalId, status, note ?? null, "human");
    if (decided) {
      await this.announceDecision(decided);
      return publicView(decided);
    }
    const current = await this.store.get(approvalId);
    if (!current)
      throw new ClawError("not_found", `no approval ${approvalId}; approval_list lists them`, { approvalId });
    if (current.status === status) return { ...publicView(current), replayed: true };
    throw new ClawError(
      "approval_conflict",
      `approval ${approvalId} was already decided: ${current.status}${current.decidedBy === "timeout" ? " (timeout)" : ""}`,
      { approvalId, status: current.status, decidedBy: current.decidedBy },
    );
  }

  private async admit(run: GatedRun, call: ModelCall, signal: AbortSignal): Promise<ToolOutcome | undefined> {
    if (run.policy.mode === "never" || call.name !== BASH_TOOL_NAME) return undefined;
    const parsed = parseToolArgs(call.arguments);
    const args = parsed.error ? undefined : bashArgsSchema.safeParse(parsed.args);
    // Arguments that are not a bash call run nothing: the tool reports them as invalid.
    if (!args?.success) return undefined;
    const verdict = judge(run.policy, args.data.script);
    if (verdict.decision === "allow") return undefined;
    if (verdict.decision === "deny") return denied(`denied by ${verdict.reason}`);
    const wait = timeoutMs(run.policy);
    const approval = await this.store.insert({
      sessionId: run.sessionId,
      runId: run.runId,
      taskId: run.taskId ?? null,
      callId: call.callId,
      script: args.data.script,
      cwd: args.data.cwd ?? null,
      args: call.arguments,
      reason: verdict.reason,
      onTimeout: run.policy.onTimeout ?? "deny",
      expiresAt: wait === undefined ? null : Date.now() + wait,
    });
    if (approval.status === "pending") await this.announceRequest(run, approval);
    const decided = await this.waitForDecision(approval, signal);
    const fields = { type: "approval_decided", ...eventFields(decided), status: decided.status, note: decided.note };
    await this.bus.out(run.bus, { ...fields, decidedBy: decided.decidedBy }).catch(() => {});
    if (run.taskId) await this.tasks.resumed(run.taskId, `approval ${decided.status}: ${clip(decided.script, 120)}`);
    if (decided.status === "denied") return denied(decided.note ?? `denied (${decided.reason})`);
    if (await this.store.claimRun(decided.approvalId)) return undefined;
    // Claimed before (a restart between the claim and the result): never a second run.
    return {
      result: { error: { code: "interrupted", message: "the approved command was started before and not finished" } },
      isError: true,
    };
  }

  private async announceRequest(run: GatedRun, a: StoredApproval): Promise<void> {
    if (a.taskId) await this.tasks.awaiting(a.taskId, `waiting for approval: ${clip(a.script, 160)}`);
    const payload = { type: "approval_requested", ...eventFields(a) };
    await Promise.all([this.bus.out(run.bus, payload), this.bus.out(APPROVALS_BUS, payload)]);
  }

  private async announceDecision(a: StoredApproval): Promise<void> {
    const payload = {
      type: "approval_decided",
      ...eventFields(a),
      status: a.status,
      note: a.note,
      decidedBy: a.decidedBy,
    };
    this.wake(a.approvalId);
    // The waiting run, which knows its session's bus, publishes the decision there.
    await this.bus
      .out(APPROVALS_BUS, payload)
      .catch((err: Error) => this.log(`tsclaw: approval event: ${err.message}`));
  }

  /** Resolves with the approval once decided (by anyone, or by its timeout here). */
  private async waitForDecision(a: StoredApproval, signal: AbortSignal): Promise<StoredApproval> {
    for (;;) {
      if (signal.aborted) throw new ClawError("cancelled", "the run was aborted while waiting for an approval");
      let wake!: () => void;
      const woken = new Promise<void>((resolve) => (wake = resolve));
      const set = this.waiters.get(a.approvalId) ?? new Set();
      this.waiters.set(a.approvalId, set);
      set.add(wake);
      const onAbort = () => wake();
      signal.addEventListener("abort", onAbort, { once: true });
      const left = a.expiresAt === null ? undefined : Math.max(0, a.expiresAt - Date.now());
      const timer = left === undefined ? undefined : setTimeout(() => void this.expire(a).finally(wake), left);
      try {
        const current = await this.store.get(a.approvalId);
        if (current && current.status !== "pending") return current;
        await woken;
      } finally {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        set.delete(wake);
        if (set.size === 0) this.waiters.delete(a.approvalId);
      }
    }
  }

  private async expire(a: StoredApproval): Promise<void> {
    const status = a.onTimeout === "allow" ? "approved" : "denied";
    const decided = await this.store.decide(
      a.approvalId,
      status,
      `no decision in time (${status} on timeout)`,
      "timeout",
    );
    if (decided) await this.announceDecision(decided);
  }

  private wake(approvalId: string): void {
    for (const w of this.waiters.get(approvalId) ?? []) w();
  }
}

/** The approval as operations show it (the raw argument text stays inside). */
function publicView(a: StoredApproval): Approval {
  const { args: _args, ...rest } = a;
  return rest;
}

/** The fields every approval event carries. */
function eventFields(a: StoredApproval) {
  return {
    approvalId: a.approvalId,
    sessionId: a.sessionId,
    runId: a.runId,
    ...(a.taskId ? { taskId: a.taskId } : {}),
    callId: a.callId,
    script: a.script,
    cwd: a.cwd,
    reason: a.reason,
    requestedAt: a.requestedAt,
    expiresAt: a.expiresAt,
  };
}
