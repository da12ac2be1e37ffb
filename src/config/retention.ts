/** Checks bus retention settings: nonsense values (0.0001 ns, NaN, negative, fractional counts) are refused. */
import { ClawError } from "../core/errors.js";

/** Bus retention. Unset fields keep events forever. */
export interface RetentionOptions {
  /** Keep at most this many newest events per bus (a positive integer). */
  maxEvents?: number;
  /** Delete events older than this many milliseconds (at least 1000, at most 100 years). */
  maxAgeMs?: number;
}

/** The shortest accepted max age: 1 s (the age sweep runs at most once a second). */
export const MIN_MAX_AGE_MS = 1000;
/** The longest accepted max age: 100 years. */
export const MAX_MAX_AGE_MS = 100 * 365.25 * 24 * 3600 * 1000;

function refuse(path: string, message: string): never {
  throw new ClawError("invalid_args", `bus retention ${path}: ${message}`, { issues: [{ path, message }] });
}

/** Returns `retention` when it makes sense; throws `invalid_args` naming the bad field otherwise. */
export function validateRetention(retention: RetentionOptions): RetentionOptions {
  const { maxEvents, maxAgeMs } = retention;
  if (maxEvents !== undefined && (!Number.isSafeInteger(maxEvents) || maxEvents < 1))
    refuse("maxEvents", `must be a positive integer, not ${maxEvents}`);
  if (maxAgeMs !== undefined) {
    if (typeof maxAgeMs !== "number" || !Number.isFinite(maxAgeMs))
      refuse("maxAgeMs", `must be a number of milliseconds, not ${maxAgeMs}`);
    if (maxAgeMs < MIN_MAX_AGE_MS) refuse("maxAgeMs", `must be at least ${MIN_MAX_AGE_MS} ms (1s), not ${maxAgeMs} ms`);
    if (maxAgeMs > MAX_MAX_AGE_MS) refuse("maxAgeMs", `must be at most 100 years, not ${maxAgeMs} ms`);
  }
  return retention;
}
