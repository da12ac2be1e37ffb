/**
 * The one table of error codes. Each code maps once to an HTTP status and says whether a
 * client may retry the same request unchanged. Never reuse a code for a different meaning.
 */
export const ERROR_TABLE = {
  invalid_json: { status: 400, retryable: false },
  invalid_request: { status: 400, retryable: false },
  invalid_args: { status: 400, retryable: false },
  unknown_op: { status: 404, retryable: false },
  not_found: { status: 404, retryable: false },
  unauthorized: { status: 401, retryable: false },
  forbidden: { status: 403, retryable: false },
  unsupported_media_type: { status: 415, retryable: false },
  payload_too_large: { status: 413, retryable: false },
  version_conflict: { status: 409, retryable: false },
  idempotency_conflict: { status: 409, retryable: false },
  session_busy: { status: 409, retryable: true },
  receipt_conflict: { status: 409, retryable: false },
  completion_handoff_required: { status: 422, retryable: false },
  completion_receipt_required: { status: 422, retryable: false },
  blocker_required: { status: 422, retryable: false },
  write_context_mismatch: { status: 422, retryable: false },
  invalid_transition: { status: 422, retryable: false },
  unsupported_on_transport: { status: 400, retryable: false },
  too_many_requests: { status: 429, retryable: true },
  provider_auth_missing: { status: 503, retryable: false },
  provider_error: { status: 502, retryable: true },
  cancelled: { status: 409, retryable: false },
  storage_unavailable: { status: 503, retryable: true },
  shutting_down: { status: 503, retryable: true },
  database_locked: { status: 409, retryable: false },
  schema_too_new: { status: 500, retryable: false },
  turn_limit: { status: 422, retryable: false },
  internal: { status: 500, retryable: true },
} as const satisfies Record<string, { status: number; retryable: boolean }>;

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
