/**
 * What the task service needs from sessions (src/agent/session-service.ts implements it). Kept
 * as a narrow interface so the task runner depends on behaviour, not on the agent's internals;
 * the shapes themselves come from the session schemas. Every lookup is asynchronous (the
 * sessions live in SQLite or PostgreSQL behind `Sql`); `q` runs it inside the caller's open
 * transaction, which is required there: outside executors wait while a transaction is open.
 */
import type { AgentEvent } from "../agent/agent-events.js";
import type { RunStart } from "../agent/run-rows.js";
import type { LeaveWith } from "../agent/session-gate.js";
import type { EnsureSessionArgs, RunResult, Session } from "../agent/session-schemas.js";
import type { SessionRead } from "../agent/session-store.js";
import type { Sql } from "../store/sql.js";

/** A session as the task service reads it (and hands it to the task's run). */
export type TaskSession = Session;

/** The outcome of one agent run. */
export type TaskRunResult = Pick<RunResult, "sessionId" | "runId" | "status" | "text" | "error" | "usage">;

/** Session operations used by tasks. */
export interface SessionPort {
  /** The session of `sessionKey` (created when new); inside the caller's transaction with `q`. */
  ensure(args: EnsureSessionArgs, q?: Sql): Promise<TaskSession>;
  /** Creates a session whose key must be new; undefined when it is taken. Inside the caller's transaction with `q`. */
  create(args: EnsureSessionArgs, q?: Sql): Promise<TaskSession | undefined>;
  /** A session by id or key; rejects `not_found`. Inside the caller's transaction with `q`. */
  get(ref: { sessionId?: string; sessionKey?: string }, q?: Sql): Promise<TaskSession>;
  /**
   * The read of the session of `sessionKey` for a task's insert to fold into its statement
   * (PostgreSQL; undefined elsewhere). Without `provider` (checked by the caller), the task goes
   * in only if `checkProvider` would pass for the session's own.
   */
  readByKey(sessionKey: string, provider?: string): SessionRead | undefined;
  /** Throws `provider_auth_missing` when the provider's key is missing, `invalid_args` when it is unknown. */
  checkProvider(provider?: string): void;
  /**
   * Joins the session's run queue at once (call order is queue order) and resolves when the
   * run has ended. `onStart` is awaited as the run leaves the queue (false skips it). Aborting
   * `signal` removes a waiting run or cancels a running one. Rejects when the run never started.
   */
  run(
    sessionId: string,
    message: string,
    opts?: {
      /** The session as the caller just read it (else the run reads it). */
      session?: TaskSession;
      taskId?: string;
      /** The task's seq: a session's tasks start in this order, on every node. */
      order?: number;
      signal?: AbortSignal;
      /** `start`: the run's row, for the task's start write to carry (PostgreSQL; see RunStart). */
      onStart?: (start?: RunStart) => boolean | undefined | Promise<boolean | undefined>;
      onEvent?: (event: AgentEvent) => void;
      /** Called once the run's job is over, with the session lease's release for the task's end write to carry. */
      leave?: LeaveWith;
    },
  ): Promise<TaskRunResult>;
  /** Resumes stored run `runId` paused on call `callId`, in the session's queue like `run`. */
  resume(
    sessionId: string,
    runId: string,
    callId: string,
    opts?: {
      taskId?: string;
      /** The task's seq, as for `run`. */
      order?: number;
      signal?: AbortSignal;
      onStart?: () => boolean | undefined | Promise<boolean | undefined>;
      onEvent?: (event: AgentEvent) => void;
      /** Called once the run's job is over, with the session lease's release for the task's end write to carry. */
      leave?: LeaveWith;
    },
  ): Promise<TaskRunResult>;
}
