/**
 * The one table of error codes. Each code maps once to an HTTP status, says whether a client
 * may retry the same request unchanged, and what it means for the caller and what to do (the
 * /doc error table renders it; a code cannot be added without its meaning). Never reuse a code
 * for a different meaning.
 */
export const ERROR_TABLE = {
  invalid_json: {
    status: 400,
    retryable: false,
    meaning: "The request text is not JSON. Fix the quoting (with curl, put the body in single quotes).",
  },
  invalid_request: {
    status: 400,
    retryable: false,
    meaning: 'The envelope is wrong: it must be an object `{"op": string, "args"?: object, "id"?: string|number}`.',
  },
  invalid_args: {
    status: 400,
    retryable: false,
    meaning: "An argument is missing, unknown or of the wrong type; `details.issues` lists each `{path, message}`.",
  },
  unknown_op: {
    status: 404,
    retryable: false,
    meaning: "No operation has that name; `ops` (or `GET /doc?format=json`) lists them.",
  },
  not_found: {
    status: 404,
    retryable: false,
    meaning: "The named session, task or other object does not exist.",
  },
  unauthorized: {
    status: 401,
    retryable: false,
    meaning:
      "No token or a wrong one: send `Authorization: Bearer <token>` (GET streams: `?token=`). `tsclaw serve` keeps it in `<db>.token` beside its database unless it was given one (`--token-file`, `CLAW_TOKEN`); the guide's \"This server\" section says where this server's is.",
  },
  forbidden: {
    status: 403,
    retryable: false,
    meaning: "The `Origin` is not allowed, or a local request used a `Host` that is not a loopback name.",
  },
  bus_reserved: {
    status: 403,
    retryable: false,
    meaning:
      "The bus is the server's own (`tasks`, `nodes`, `schedules`, `approvals`): anyone may read or subscribe to it, but only the server writes it. `out`, `trim_bus`, bash event specs and a session's `bus` must name another bus.",
  },
  unsupported_media_type: {
    status: 415,
    retryable: false,
    meaning: "`POST /do` needs `Content-Type: application/json`.",
  },
  payload_too_large: {
    status: 413,
    retryable: false,
    meaning: "The body, message, line or payload is over its limit (`details.limit`, bytes).",
  },
  version_conflict: {
    status: 409,
    retryable: false,
    meaning:
      "`expectedVersion` is stale; nothing changed. Re-read the task or schedule (`details.currentVersion`), decide again.",
  },
  limit_reached: {
    status: 409,
    retryable: false,
    meaning:
      "A configured count limit is reached (`details.limit` names it, `details.max` its value; e.g. `maxSchedules`). Delete something first, or ask the operator to raise the limit.",
  },
  idempotency_conflict: {
    status: 409,
    retryable: false,
    meaning:
      "This `idempotencyKey` was used with different arguments. Use a new key, or resend the original arguments.",
  },
  session_busy: {
    status: 409,
    retryable: true,
    meaning: "The session is busy and the call cannot wait for its turn; retry, or use `steer`/`follow_up`.",
  },
  approval_conflict: {
    status: 409,
    retryable: false,
    meaning:
      "The approval was already decided the other way (by a human or its timeout); `details.status` says how. Nothing changed.",
  },
  receipt_conflict: {
    status: 409,
    retryable: false,
    meaning: "A different receipt was already stored under this `sessionRef` for the task.",
  },
  completion_handoff_required: {
    status: 422,
    retryable: false,
    meaning: "Completing (`done`) needs non-empty `handoff.completed` and `handoff.next`.",
  },
  completion_receipt_required: {
    status: 422,
    retryable: false,
    meaning: "Completing (`done`) needs one `receipt`.",
  },
  blocker_required: {
    status: 422,
    retryable: false,
    meaning: "`blocked` needs a non-empty `handoff.blockers`.",
  },
  write_context_mismatch: {
    status: 422,
    retryable: false,
    meaning: "`writeContext` must equal this server's instance (`server_identity`) and the task's project.",
  },
  invalid_transition: {
    status: 422,
    retryable: false,
    meaning: "The task cannot move from its status to the one asked (see `task_update`).",
  },
  unsupported_on_transport: {
    status: 400,
    retryable: false,
    meaning: "The operation streams and needs WebSocket or stdio (over HTTP: `read` with `waitMs`, or SSE).",
  },
  too_many_requests: {
    status: 429,
    retryable: true,
    meaning:
      "A limit was reached: bash processes, subscriptions, calls in flight on one connection, or open connections (`details.scope`: `total`, `peer`, `connection`). Retry later, or close connections you do not use.",
  },
  request_timeout: {
    status: 408,
    retryable: true,
    meaning:
      "The request's headers did not arrive within the header timeout (`--header-timeout`); the connection was closed. Send the whole request at once.",
  },
  headers_too_large: {
    status: 431,
    retryable: false,
    meaning: "The request's headers are larger than the server accepts; send fewer or shorter headers.",
  },
  provider_auth_missing: {
    status: 503,
    retryable: false,
    meaning: "The model provider's API key is not set on the server (`details.variable` names it).",
  },
  provider_error: {
    status: 502,
    retryable: true,
    meaning:
      "The model provider failed: `details.providerCode` and `details.status` say how. Rate limits, 5xx and network errors were retried already; quota, auth and bad requests are not retried.",
  },
  model_incomplete: {
    status: 502,
    retryable: false,
    meaning:
      "The model stopped before finishing (`details.reason`, e.g. `max_output_tokens`); the partial answer is stored.",
  },
  cancelled: {
    status: 409,
    retryable: false,
    meaning: "The call or run was cancelled (the caller went away, `abort`, `cancel_task`).",
  },
  lease_lost: {
    status: 409,
    retryable: false,
    meaning:
      "Several nodes on PostgreSQL: this node no longer holds the session's lease (it was paused or cut off for longer than the lease, and the session's work was given up or taken over), so its run stopped and nothing more of it was written. Check the task (`node_lost`) and run it again if needed.",
  },
  storage_unavailable: {
    status: 503,
    retryable: true,
    meaning: "The database could not be written (disk full, read-only, locked). Nothing was written; retry later.",
  },
  shutting_down: {
    status: 503,
    retryable: true,
    meaning: "The server is stopping; retry against the new process.",
  },
  starting: {
    status: 503,
    retryable: true,
    meaning:
      "The server is still opening its database (requests that arrive meanwhile wait for it; this one waited too long, or too many were waiting). Retry in a second (`Retry-After`).",
  },
  database_locked: {
    status: 409,
    retryable: false,
    meaning: "Another process serves this database file.",
  },
  schema_too_new: {
    status: 500,
    retryable: false,
    meaning: "The database was written by a newer tsclaw.",
  },
  turn_limit: {
    status: 422,
    retryable: false,
    meaning:
      "The run used its maximum number of model turns (`details.maxTurns`; the server's `--max-turns`) without a final answer. What it did so far is in the session; prompt again to continue, or ask for less per run.",
  },
  node_unreachable: {
    status: 503,
    retryable: true,
    meaning:
      "Several nodes on PostgreSQL: the session's run is on another node (`details.node`), which did not answer in time. Retry; a node that stays silent loses its runs at the end of its lease.",
  },
  internal: {
    status: 500,
    retryable: true,
    meaning: "A bug on the server; it logged the cause. Retrying may help.",
  },
  connection_failed: {
    status: 503,
    retryable: true,
    meaning:
      "Raised by the remote client (`tsclaw/client`), never sent by a server: the server could not be reached, so whether the call ran is unknown. Retry (with an idempotency key where the operation takes one).",
  },
} as const satisfies Record<string, { status: number; retryable: boolean; meaning: string }>;

/** A stable, snake_case error code from {@link ERROR_TABLE}. */
export type ErrorCode = keyof typeof ERROR_TABLE;

/** The error shape carried on the wire: `{code, message, retryable, details?}`. */
export interface WireError {
  code: ErrorCode;
  message: string;
  retryable: boolean;
  details?: Record<string, unknown>;
}

/** Every failure tsclaw reports, in process and on the wire, is a `ClawError` with a `code`. */
export class ClawError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;
  /** Overrides the table's default when a particular failure is (not) worth retrying. */
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, retryable?: boolean) {
    super(message);
    this.name = "ClawError";
    this.code = code;
    this.details = details;
    this.retryable = retryable ?? ERROR_TABLE[code].retryable;
  }

  /** HTTP status of this error's code. */
  get status(): number {
    return ERROR_TABLE[this.code].status;
  }

  /** The wire form: no stack, no cause, only what a client can act on. */
  toWire(): WireError {
    const wire: WireError = { code: this.code, message: this.message, retryable: this.retryable };
    if (this.details !== undefined) wire.details = this.details;
    return wire;
  }
}

/**
 * One class however many copies are loaded: `tsclaw` and `tsclaw/client` are separate bundles
 * (ESM and CommonJS each), each with its own copy of ClawError. Every copy brands its prototype
 * with the same registered symbol (`Symbol.for`: one in every bundle and realm), and `instanceof`
 * any copy checks the brand; a subclass keeps the ordinary prototype check.
 */
const CLAW_ERROR_BRAND = Symbol.for("tsclaw.ClawError");
Object.defineProperty(ClawError.prototype, CLAW_ERROR_BRAND, { value: true });
Object.defineProperty(ClawError, Symbol.hasInstance, {
  value: function hasInstance(this: unknown, value: unknown): boolean {
    if (this !== ClawError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === "object" && value !== null && CLAW_ERROR_BRAND in value;
  },
});

/** HTTP status for a code. */
export function httpStatus(code: ErrorCode): number {
  return ERROR_TABLE[code].status;
}

/**
 * Converts anything thrown into a ClawError. Unknown errors become `internal` with a generic
 * message, so no stack trace or internal detail reaches the wire; SQLite disk errors become
 * `storage_unavailable` so clients know to retry later.
 */
export function toClawError(err: unknown): ClawError {
  if (err instanceof ClawError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code.startsWith("SQLITE_")) {
    if (/FULL|READONLY|IOERR|CANTOPEN|BUSY|LOCKED/.test(code)) {
      return new ClawError(
        "storage_unavailable",
        `storage is unavailable (${code}); nothing was written, retry later`,
        { sqlite: code },
      );
    }
  }
  return new ClawError("internal", "internal error; the server logged the cause");
}
