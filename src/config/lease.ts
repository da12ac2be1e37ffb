/** The node lease: how long a node may go without a heartbeat before it counts as gone. */
import { ClawError } from "../core/errors.js";

/** Shortest lease: below a second, a busy event loop or a slow commit would look like a dead node. */
export const MIN_LEASE_MS = 1000;
/** Longest lease: a dead node's work waits this long before it is given up. */
export const MAX_LEASE_MS = 60 * 60 * 1000;
/** What a valid lease is, for error messages. */
export const LEASE_RANGE = "between 1s and 1h";

/** True for a whole number of milliseconds within the range. */
export function validLease(ms: number): boolean {
  return Number.isSafeInteger(ms) && ms >= MIN_LEASE_MS && ms <= MAX_LEASE_MS;
}

/** Throws invalid_args when `ms` (createClaw's leaseMs) is not a valid lease. */
export function checkLease(ms: number): number {
  if (!validLease(ms))
    throw new ClawError("invalid_args", `leaseMs must be ${LEASE_RANGE} (1000 to 3600000 ms), not ${ms}`, {
      option: "leaseMs",
    });
  return ms;
}
