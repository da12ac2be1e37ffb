/** Structured task errors: a code, a category and a recovery a caller can follow. */
import type { TaskError } from "./task-schema.js";
import type { TaskPatch, TaskStore } from "./task-store.js";

/** Builds the error of a task whose run ended in failure (or was interrupted). */
export function taskError(code: string, message: string, sessionKey: string | null): TaskError {
  const rerun = sessionKey
    ? `call run_task with sessionKey "${sessionKey}" (the session keeps its history)`
    : "call run_task again";
  switch (code) {
    case "interrupted":
      return {
        code,
        message,
        category: "restart",
        suggestedRecovery: `The server stopped while this task ran. Check what the run already did (get_messages), then ${rerun}.`,
      };
    case "node_lost":
      return {
        code,
        message,
        category: "restart",
        suggestedRecovery: `The node running this task stopped (its lease lapsed); the task is not re-run on its own. Check what the run already did (get_messages), then ${rerun}.`,
      };
    case "provider_auth_missing":
      return {
        code,
        message,
        category: "auth",
        suggestedRecovery: `Set the provider's API key in the server's environment, restart it, then ${rerun}.`,
      };
    case "provider_error":
      return {
        code,
        message,
        category: "provider",
        suggestedRecovery: `The model provider failed after retries. Wait a little, then ${rerun}.`,
      };
    case "session_busy":
      return {
        code,
        message,
        category: "run",
        suggestedRecovery: `The session was busy. ${rerun[0]!.toUpperCase()}${rerun.slice(1)} once its current run ends.`,
      };
    case "internal":
      return {
        code,
        message,
        category: "internal",
        suggestedRecovery: `An internal error ended the run; the server log has the cause. ${rerun[0]!.toUpperCase()}${rerun.slice(1)}.`,
      };
    default:
      return {
        code,
        message,
        category: "run",
        suggestedRecovery: `Read the message, adjust the prompt if needed, then ${rerun}.`,
      };
  }
}

/**
 * Ends a run task that was in progress when its process stopped (shutdown or restart):
 * `error` with code `interrupted`, the reason as its latest update and on its timeline. A task
 * no longer in progress (it ended meanwhile) is left as it is.
 */
export async function markInterrupted(
  store: TaskStore,
  taskId: string,
  why: { message: string; latest: string; timeline: string; code?: "interrupted" | "node_lost" },
): Promise<void> {
  await store.change(taskId, (t) =>
    t.status === "in_progress"
      ? {
          patch: endedInError(taskError(why.code ?? "interrupted", why.message, t.sessionKey), why.latest),
          timeline: why.timeline,
        }
      : undefined,
  );
}

/** The fields of a task that ends now as `error`, `latest` its last update. */
export function endedInError(error: TaskError, latest: string): TaskPatch {
  const now = Date.now();
  return { status: "error", phase: "ended", endedAt: now, error, latestUpdate: { at: now, text: latest } };
}
