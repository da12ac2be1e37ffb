/** The typed session handle. */
import type { Caller } from "./caller.js";

/** Builds `claw.session`. */
export function createSessionHandle(_call: Caller) {
  return {};
}
