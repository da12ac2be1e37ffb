/** What each error code means for a caller, and what to do about it (the /doc error table). */
import type { ErrorCode } from "../errors.js";

/** Meaning and remedy per code. A code without an entry is still listed, with its status. */
export const ERROR_MEANING: Partial<Record<ErrorCode, string>> = {
  invalid_json: "The request text is not JSON. Fix the quoting (with curl, put the body in single quotes).",
  invalid_request:
    'The envelope is wrong: it must be an object `{"op": string, "args"?: object, "id"?: string|number}`.',
  invalid_args: "An argument is missing, unknown or of the wrong type; `details.issues` lists each `{path, message}`.",
  unknown_op: "No operation has that name; `ops` (or `GET /doc?format=json`) lists them.",
  not_found: "The named session, task or other object does not exist.",
  unauthorized:
    "No token or a wrong one: send `Authorization: Bearer <token>`; `tsclaw serve` keeps it in `<db>.token` beside its database unless it was given one (`--token-file`, `CLAW_TOKEN`).",
  forbidden: "The `Origin` is not allowed, or a local request used a `Host` that is not a loopback name.",
  unsupported_media_type: "`POST /do` needs `Content-Type: application/json`.",
  payload_too_large: "The body, message, line or payload is over its limit (`details.limit`, bytes).",
  version_conflict:
    "`expectedVersion` is stale; nothing changed. Re-read the task (`details.currentVersion`), decide again.",
  idempotency_conflict:
    "This `idempotencyKey` was used with different arguments. Use a new key, or resend the original arguments.",
  session_busy: "The session is running and the call cannot wait; retry, or use `steer`/`follow_up`.",
  receipt_conflict: "A different receipt was already stored under this `sessionRef` for the task.",
  completion_handoff_required: "Completing (`done`) needs non-empty `handoff.completed` and `handoff.next`.",
  completion_receipt_required: "Completing (`done`) needs one `receipt`.",
  blocker_required: "`blocked` needs a non-empty `handoff.blockers`.",
  write_context_mismatch:
    "`writeContext` must equal this server's instance (`server_identity`) and the task's project.",
  invalid_transition: "The task cannot move from its status to the one asked (see `task_update`).",
  unsupported_on_transport:
    "The operation streams and needs WebSocket or stdio (over HTTP: `read` with `waitMs`, or SSE).",
  too_many_requests: "A limit of concurrent work was reached (bash processes, subscriptions). Retry later.",
  provider_auth_missing: "The model provider's API key is not set on the server (`details.variable` names it).",
  provider_error: "The model provider failed after retries. Retry later.",
  cancelled: "The call or run was cancelled (the caller went away, `abort`, `cancel_task`).",
  storage_unavailable:
    "The database could not be written (disk full, read-only, locked). Nothing was written; retry later.",
  shutting_down: "The server is stopping; retry against the new process.",
  database_locked: "Another process serves this database file.",
  schema_too_new: "The database was written by a newer tsclaw.",
  internal: "A bug on the server; it logged the cause. Retrying may help.",
};
