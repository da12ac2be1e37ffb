/**
 * What the task service needs from sessions (src/agent/session-service.ts implements it). Kept
 * as a narrow interface so the task runner depends on behaviour, not on the agent's internals.
 */

/** The parts of a Session the task service reads. */
export interface TaskSession {
  sessionId: string;
  sessionKey: string;
  provider: string;
  model: string;
  bus: string;
}

/** The outcome of one agent run. */
export interface TaskRunResult {
  sessionId: string;
  runId: string;
  status: "completed" | "completed_no_summary" | "error" | "cancelled";
  text: string | null;
  error?: { code: string; message: string };
}

/** Session operations used by tasks. */
export interface SessionPort {
  /** The session of `sessionKey` (created when new). */
  ensure(args: { sessionKey?: string; bus?: string; name?: string; model?: string; provider?: string }): TaskSession;
  /** A session by id or key; throws `not_found`. */
  get(ref: { sessionId?: string; sessionKey?: string }): TaskSession;
  /** Throws `provider_auth_missing` when the provider's key is missing. */
  checkProvider(provider?: string): void;
  /** Runs one prompt; throws `session_busy` when a run is active on the session. */
  run(
    sessionId: string,
    message: string,
    opts?: { taskId?: string; signal?: AbortSignal; onEvent?: (payload: Record<string, unknown>) => void },
  ): Promise<TaskRunResult>;
  isRunning(sessionId: string): boolean;
  abort(sessionId: string): boolean;
}
