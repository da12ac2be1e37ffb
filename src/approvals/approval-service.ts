/**
 * Approvals of the agent's bash calls. Before a call of the model starts, the run's policy
 * decides: allow runs it, deny gives the model `{denied: true, note}`, ask stores an approval
 * (before anything else happens), holds the task as `needs_human` / `awaiting_approval`,
 * publishes `approval_requested` on the session's bus and on the `approvals` bus, and pauses
 * the run until a decision (approval_decide on any node, or the policy's timeout). An approved
 * command is claimed in the database before it runs, so it runs exactly once.
 */
import { randomBytes } from "node:crypto";
import { type CallGate, type RunGates, RunPaused } from "../agent/agent-loop.js";
import type { ToolOutcome } from "../agent/bash-tool.js";
import { BASH_TOOL_NAME, parseToolArgs } from "../agent/bash-tool.js";
import type { ModelCall } from "../agent/output-items.js";
import { bashArgsSchema } from "../bash/bash-schema.js";
import type { BusService } from "../bus/bus-service.js";
import { ClawError } from "../core/errors.js";
import { liveNodes } from "../nodes/owners.js";
import type { Sql } from "../store/sql.js";
import type { Row } from "../store/tables/tables.js";
import { policyFor, policyOf, policyRead, savePolicy } from "./approval-policies.js";
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

/**
 * Continues a decided approval's run that no process is running (its node is gone): in its
 * session's queue, calling `claim` as it starts (false: another resumer has it; nothing runs).
 */
export type ApprovalResumer = (a: StoredApproval, claim: () => Promise<boolean>) => void;

/** What `decide` returns. */
export type DecideResult = Approval & { replayed?: true };

const denied = (note: string): ToolOutcome => ({ result: { denied: true, note }, isError: true });
const clip = (s: string, n = 200) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** Stores, decides and waits for approvals. */
export class ApprovalService implements RunGates {
  readonly store: ApprovalStore;
  private readonly waiters = new Map<string, Set<() => void>>();
  private stopListening?: () => void;
  private closing = false;
  private resumer?: ApprovalResumer;
  /** Resumes claimed here, by approval: the claim its resumed run's gate repeats. */
  private readonly claims = new Map<string, string>();
  /** Timeouts of approvals whose run waits nowhere (its process is gone). */
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly sql: Sql,
    private readonly bus: BusService,
    private readonly node: string,
    private readonly tasks: ApprovalTaskPort,
    private readonly log: (line: string) => void,
    /** The server's default policy. Default: never */
    private readonly fallback: ApprovalPolicy = NO_APPROVAL,
  ) {
    this.store = new ApprovalStore(sql, node);
  }

  /** The gate of one run: its task's policy, else its session's, else the server's. */
  async forRun(
    run: Omit<GatedRun, "policy"> & { resumed?: boolean },
    policyRows?: Promise<unknown[]>,
  ): Promise<CallGate | undefined> {
    const { resumed, ...ids } = run;
    const policy = policyRows
      ? policyOf((await policyRows) as Row<"approval_policies">[], run.sessionId, run.taskId, this.fallback)
      : await policyFor(this.sql, run.sessionId, run.taskId, this.fallback);
    return policy.mode === "never" && !resumed ? undefined : this.gate({ ...ids, policy });
  }

  /** The read of a run's policy rows (see {@link forRun}). */
  policyRead(run: { sessionId: string; taskId?: string }): { sql: string; params: string[] } {
    return policyRead(run.sessionId, run.taskId);
  }

  /** Who continues runs stranded by a gone process once their approval is decided. */
  setResumer(resumer: ApprovalResumer): void {
    this.resumer = resumer;
  }

  /**
   * Recovery (at start, and on each heartbeat with several nodes): the approvals whose run waits
   * nowhere (its node is gone) are resumed when decided, decided by their timeout when it
   * passed, and timed otherwise.
   */
  async recover(): Promise<void> {
    if (this.closing) return;
    const live = await liveNodes(this.sql, this.node);
    for (const a of await this.store.unresumed()) {
      if (a.runNode !== null && live.includes(a.runNode)) continue; // its run waits there
      if (a.status !== "pending") this.resume(a);
      else if (a.expiresAt !== null && !this.timers.has(a.approvalId)) {
        const timer = setTimeout(
          () => {
            this.timers.delete(a.approvalId);
            void this.expire(a);
          },
          Math.max(0, a.expiresAt - Date.now()),
        );
        timer.unref();
        this.timers.set(a.approvalId, timer);
      }
    }
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

  /**
   * Stops listening. Runs waiting for a decision then pause when aborted (they are not ended and
   * their approvals stay pending): they resume after a restart, once decided.
   */
  close(): void {
    this.closing = true;
    this.stopListening?.();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
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
      await this.resumeIfStranded(decided);
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
    if (call.name !== BASH_TOOL_NAME) return undefined;
    // A call asked before (a resumed run) goes by its stored approval, whatever the policy is now.
    let approval = await this.store.byCall(run.runId, call.callId);
    if (!approval) {
      const asked = await this.ask(run, call);
      if (!asked || !("approvalId" in asked)) return asked;
      approval = asked;
    }
    const decided = await this.waitForDecision(approval, signal);
    const by = this.claims.get(decided.approvalId) ?? `${this.node}:${run.runId}`;
    this.claims.delete(decided.approvalId);
    if (!(await this.store.claimResume(decided.approvalId, by)))
      throw new RunPaused(`another node resumed run ${run.runId} after approval ${decided.approvalId}`);
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

  /** Judges a new call: undefined (it runs), an outcome (denied by rule), or the stored request. */
  private async ask(run: GatedRun, call: ModelCall): Promise<ToolOutcome | StoredApproval | undefined> {
    if (run.policy.mode === "never") return undefined;
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
    return approval;
  }

  /** Resumes a just-decided approval's run when no process runs it (its node is gone). */
  private async resumeIfStranded(a: StoredApproval): Promise<void> {
    try {
      const run = await this.sql.get<Pick<Row<"runs">, "status" | "node">>(
        "SELECT status, node FROM runs WHERE id = ?",
        [a.runId],
      );
      if (run?.status !== "running") return;
      if (run.node !== null && (await liveNodes(this.sql, this.node)).includes(run.node)) return;
      this.resume(a);
    } catch (err) {
      this.log(`tsclaw: approval ${a.approvalId}: could not resume its run: ${(err as Error).message}`);
    }
  }

  /** Hands the run to the resumer, with a claim only this attempt can win. */
  private resume(a: StoredApproval): void {
    if (this.closing || !this.resumer) return;
    const by = `${this.node}:${a.runId}:${randomBytes(4).toString("hex")}`;
    this.resumer(a, async () => {
      // The claim takes the run and its task over for this node in the same statement.
      if (this.closing || !(await this.store.claimResume(a.approvalId, by, this.node))) return false;
      this.claims.set(a.approvalId, by);
      return true;
    });
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
    // The task goes on now (check_task waits again), wherever its run goes on.
    if (a.taskId) await this.tasks.resumed(a.taskId, `approval ${a.status}: ${clip(a.script, 120)}`);
    this.wake(a.approvalId);
    // The waiting run, which knows its session's bus, publishes the decision there.
    await this.bus
      .out(APPROVALS_BUS, payload)
      .catch((err: Error) => this.log(`tsclaw: approval event: ${err.message}`));
  }

  /** Resolves with the approval once decided (by anyone, or by its timeout here). */
  private async waitForDecision(a: StoredApproval, signal: AbortSignal): Promise<StoredApproval> {
    for (;;) {
      if (signal.aborted && this.closing)
        throw new RunPaused("the claw closed while this call waited for its approval; it goes on once decided");
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
    if (decided) {
      await this.announceDecision(decided);
      await this.resumeIfStranded(decided);
    }
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
