/** The typed task handle. */
import type { Caller } from "./caller.js";

/** Builds `claw.task`. */
export function createTaskHandle(_call: Caller) {
  return {};
}
