/**
 * Storage of approvals over `Sql` (SQLite or PostgreSQL): statements and row mapping only. Each
 * state change is one conditional UPDATE, so when two nodes (or a decision and a restart) race,
 * the database picks exactly one winner: one decision, one claim to run the command.
 */
import { randomBytes } from "node:crypto";
import type { Sql } from "../store/sql.js";
import type { Narrow } from "../store/tables/columns.js";
import type { Row } from "../store/tables/tables.js";
import type { Approval } from "./approval-schema.js";

/** What `COLUMNS` reads: every column but who resumed the run (its own statements read that). */
type ApprovalRow = Narrow<
  Omit<Row<"approvals">, "resumed_at" | "resumed_by">,
  { status: Approval["status"]; on_timeout: Approval["onTimeout"]; decided_by: Approval["decidedBy"] }
>;

/** An approval with the call's full argument text (what runs when it is approved). */
export type StoredApproval = Approval & { args: string };

/** What a new request stores. */
export type NewApproval = Omit<
  StoredApproval,
  "approvalId" | "status" | "requestedAt" | "decidedAt" | "note" | "decidedBy" | "executedAt"
>;

/** Filters of a listing. */
export interface ApprovalFilter {
  status?: "pending" | "decided";
  sessionId?: string;
  taskId?: string;
  /** Exclusive: approvals older than this id. */
  before?: string;
  limit: number;
}

const COLUMNS =
  "id, status, session_id, run_id, task_id, call_id, script, cwd, args, reason, on_timeout, requested_at, expires_at, decided_at, note, decided_by, executed_at, node";

const num = (v: number | string | null) => (v === null ? null : Number(v));

function toApproval(r: ApprovalRow): StoredApproval {
  return {
    approvalId: r.id,
    status: r.status,
    sessionId: r.session_id,
    runId: r.run_id,
    taskId: r.task_id,
    callId: r.call_id,
    script: r.script,
    cwd: r.cwd,
    args: r.args,
    reason: r.reason,
    onTimeout: r.on_timeout,
    requestedAt: Number(r.requested_at),
    expiresAt: num(r.expires_at),
    decidedAt: num(r.decided_at),
    note: r.note,
    decidedBy: r.decided_by,
    executedAt: num(r.executed_at),
  };
}

// Ids sort in request order (time first), so a listing pages by id.
const newId = (at: number) => `apr_${at.toString(36).padStart(9, "0")}${randomBytes(6).toString("hex")}`;

/** Statements over `approvals`. */
export class ApprovalStore {
  constructor(
    private readonly sql: Sql,
    /** This node: the one waiting for the approvals it requests. */
    private readonly node: string,
  ) {}

  /** Stores a pending request; the same call of the same run again returns the stored one. */
  async insert(a: NewApproval): Promise<StoredApproval> {
    const at = Date.now();
    await this.sql.run(
      `INSERT INTO approvals (${COLUMNS}) VALUES (?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, NULL, ?) ON CONFLICT (run_id, call_id) DO NOTHING`,
      [
        newId(at),
        a.sessionId,
        a.runId,
        a.taskId,
        a.callId,
        a.script,
        a.cwd,
        a.args,
        a.reason,
        a.onTimeout,
        at,
        a.expiresAt,
        this.node,
      ],
    );
    return (await this.byCall(a.runId, a.callId))!;
  }

  /** The approval with this id. */
  async get(id: string): Promise<StoredApproval | undefined> {
    const r = await this.sql.get<ApprovalRow>(`SELECT ${COLUMNS} FROM approvals WHERE id = ?`, [id]);
    return r && toApproval(r);
  }

  /** The approval of one call of a run. */
  async byCall(runId: string, callId: string): Promise<StoredApproval | undefined> {
    const r = await this.sql.get<ApprovalRow>(`SELECT ${COLUMNS} FROM approvals WHERE run_id = ? AND call_id = ?`, [
      runId,
      callId,
    ]);
    return r && toApproval(r);
  }

  /** Newest first. */
  async list(f: ApprovalFilter): Promise<StoredApproval[]> {
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (f.status === "pending") where.push("status = 'pending'");
    else if (f.status === "decided") where.push("status <> 'pending'");
    if (f.sessionId !== undefined) where.push("session_id = ?") && params.push(f.sessionId);
    if (f.taskId !== undefined) where.push("task_id = ?") && params.push(f.taskId);
    if (f.before !== undefined) where.push("id < ?") && params.push(f.before);
    const rows = await this.sql.all<ApprovalRow>(
      `SELECT ${COLUMNS} FROM approvals ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY id DESC LIMIT ?`,
      [...params, f.limit],
    );
    return rows.map(toApproval);
  }

  /** Decides a pending approval; the decided row, or undefined when it was not pending (any more). */
  async decide(
    id: string,
    status: "approved" | "denied",
    note: string | null,
    by: "human" | "timeout",
  ): Promise<StoredApproval | undefined> {
    const r = await this.sql.get<ApprovalRow>(
      `UPDATE approvals SET status = ?, note = ?, decided_by = ?, decided_at = ? WHERE id = ? AND status = 'pending' RETURNING ${COLUMNS}`,
      [status, note, by, Date.now(), id],
    );
    return r && toApproval(r);
  }

  /**
   * Claims the run of a decided approval to go on; true for exactly one resumer (`by`: the node
   * and run going on), and again for that same resumer. With `node` (a run resumed from storage
   * by another node than the gone one that paused it), the claim also makes that node the owner
   * of the run and of its task, in the same statement on PostgreSQL: once the approval counts as
   * resumed, the other nodes' sweeps of a gone node's work would otherwise find the run and its
   * task still owned by the gone node, and no longer paused, and end them as lost.
   */
  async claimResume(id: string, by: string, node?: string): Promise<boolean> {
    const claim =
      "UPDATE approvals SET resumed_at = ?, resumed_by = ? WHERE id = ? AND status <> 'pending' AND (resumed_at IS NULL OR resumed_by = ?)";
    const params = [Date.now(), by, id, by];
    if (node === undefined) return (await this.sql.run(claim, params)).changes === 1;
    if (this.sql.dialect === "postgres") {
      const row = await this.sql.get<{ n: number | string }>(
        `WITH a AS (${claim} RETURNING run_id, task_id),
           r AS (UPDATE runs SET node = ? WHERE id IN (SELECT run_id FROM a)),
           t AS (UPDATE tasks SET run_node = ? WHERE id IN (SELECT task_id FROM a))
         SELECT COUNT(*) AS n FROM a`,
        [...params, node, node],
      );
      return Number(row?.n ?? 0) === 1;
    }
    // SQLite: one process, whose sweep of a gone process's work runs before it resumes anything,
    // so the task may follow in a statement of its own (the run's row is adopted as it starts).
    const claimed = await this.sql.get<Pick<Row<"approvals">, "task_id">>(`${claim} RETURNING task_id`, params);
    if (!claimed) return false;
    if (claimed.task_id !== null)
      await this.sql.run("UPDATE tasks SET run_node = ? WHERE id = ?", [node, claimed.task_id]);
    return true;
  }

  /** Approvals nobody has resumed yet whose run is still unfinished, oldest first, with the node holding that run. */
  async unresumed(): Promise<Array<StoredApproval & { runNode: string | null }>> {
    const cols = COLUMNS.split(", ")
      .map((c) => `a.${c}`)
      .join(", ");
    const rows = await this.sql.all<ApprovalRow & { run_node: Row<"runs">["node"] }>(
      `SELECT ${cols}, r.node AS run_node FROM approvals a JOIN runs r ON r.id = a.run_id WHERE a.resumed_at IS NULL AND r.status = 'running' ORDER BY a.id`,
    );
    return rows.map((r) => ({ ...toApproval(r), runNode: r.run_node }));
  }

  /** Claims an approved command to run; true for exactly one caller, ever. */
  async claimRun(id: string): Promise<boolean> {
    const { changes } = await this.sql.run(
      "UPDATE approvals SET executed_at = ? WHERE id = ? AND status = 'approved' AND executed_at IS NULL",
      [Date.now(), id],
    );
    return changes === 1;
  }
}
