/**
 * Retry of model calls: only what can clear is retried (a 429 that is not `insufficient_quota`,
 * honouring Retry-After; 5xx; network errors; a stream cut before `response.completed`), with
 * exponential backoff. Everything else (quota, 400, 401, 403, 404, `response.failed`, a stream
 * `error` event) ends the run at once as `provider_error` with the provider's code. Every failure
 * ends up as a ClawError so a run can report `{code, message, details}`.
 */
import { APIConnectionError, APIError, APIUserAbortError } from "openai";
import type { ModelRetryOptions } from "../config/claw-config.js";
import { ClawError } from "../core/errors.js";

/** A classified failure of one model call. */
export interface ModelFailure {
  error: ClawError;
  retryable: boolean;
  /** HTTP status, when there was a response. */
  status?: number;
  /** Wait the server asked for, in ms. */
  retryAfterMs?: number;
}

/** The provider's own code of an API error (`insufficient_quota`, `rate_limit_exceeded`, …). */
function providerCodeOf(err: APIError): string | null {
  const code = err.code ?? err.type;
  return typeof code === "string" && code !== "" ? code : null;
}

/** Classifies anything a model call threw. */
export function classifyModelError(err: unknown): ModelFailure {
  if (err instanceof ClawError) return { error: err, retryable: err.code === "provider_error" && err.retryable };
  if (err instanceof APIUserAbortError)
    return { error: new ClawError("cancelled", "the run was aborted"), retryable: false };
  if (err instanceof APIConnectionError) {
    return {
      error: new ClawError("provider_error", `could not reach the model provider: ${err.message}`, { network: true }),
      retryable: true,
    };
  }
  if (err instanceof APIError) {
    const status = err.status;
    const providerCode = providerCodeOf(err);
    const providerMessage = (err.error as { message?: unknown } | undefined)?.message ?? err.message;
    const details = { status: status ?? null, providerCode, providerMessage };
    if (status === undefined) {
      // The SDK throws a stream `error` event as a status-less APIError.
      return {
        error: new ClawError("provider_error", `the model stream reported an error: ${err.message}`, details, false),
        retryable: false,
      };
    }
    const quota = providerCode === "insufficient_quota" || err.type === "insufficient_quota";
    const retryable = (status === 429 && !quota) || status >= 500;
    const hint =
      status === 401 || status === 403 ? " (check the API key and the provider)" : quota ? " (billing or quota)" : "";
    return {
      error: new ClawError(
        "provider_error",
        `the model provider answered ${status}: ${err.message}${hint}`,
        details,
        retryable,
      ),
      retryable,
      status,
      retryAfterMs: retryAfterMs(err.headers),
    };
  }
  // Undici's "terminated" and friends: the connection broke while the body streamed.
  return {
    error: new ClawError("provider_error", `model call failed: ${(err as Error)?.message ?? String(err)}`, {
      network: true,
    }),
    retryable: true,
  };
}

/** True when a provider rejected the `include` parameter (the encrypted reasoning request). */
export function refusesInclude(err: unknown): boolean {
  if (!(err instanceof APIError) || err.status !== 400) return false;
  return err.param === "include" || /\binclude\b|encrypted_content/i.test(err.message);
}

/** Parses `retry-after-ms` / `retry-after` (seconds or an HTTP date). */
function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = Number(headers?.get("retry-after-ms"));
  if (headers?.get("retry-after-ms") && Number.isFinite(ms)) return Math.max(0, ms);
  const raw = headers?.get("retry-after");
  if (!raw) return undefined;
  const secs = Number(raw);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Backoff before retry number `attempt` (1-based): Retry-After when given, else base·2^(n-1) with jitter; capped. */
export function backoffMs(attempt: number, failure: ModelFailure, policy: Required<ModelRetryOptions>): number {
  const base = failure.retryAfterMs ?? policy.baseDelayMs * 2 ** (attempt - 1) * (0.8 + Math.random() * 0.4);
  return Math.round(Math.min(policy.maxDelayMs, base));
}

/** Sleeps `ms`, ending early (rejecting with `cancelled`) when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new ClawError("cancelled", "the run was aborted"));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ClawError("cancelled", "the run was aborted"));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Calls `attempt` until it succeeds, a failure is not retryable, or retries run out. `onRetry`
 * is told before each wait (a `retry` event).
 */
export async function withModelRetry<T>(
  attempt: () => Promise<T>,
  opts: {
    policy: Required<ModelRetryOptions>;
    signal: AbortSignal;
    onRetry: (info: { attempt: number; delayMs: number; failure: ModelFailure }) => void;
  },
): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (opts.signal.aborted) throw new ClawError("cancelled", "the run was aborted");
      const failure = classifyModelError(err);
      if (!failure.retryable || n > opts.policy.maxRetries) throw failure.error;
      const delayMs = backoffMs(n, failure, opts.policy);
      opts.onRetry({ attempt: n, delayMs, failure });
      await sleep(delayMs, opts.signal);
    }
  }
}
