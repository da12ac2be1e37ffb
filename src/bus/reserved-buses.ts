/**
 * The buses the server writes for itself: task changes (`tasks`), requests between nodes
 * (`nodes`), schedules and approvals. Other nodes act on what these carry, so nothing a client
 * or an agent run sends may write them: `out`, `trim_bus`, bash event specs and a session's bus
 * are refused with `bus_reserved`. Reading and subscribing stay open to anyone allowed the bus.
 * The server's own services publish through the bus service directly, which is not checked.
 */
import { ClawError } from "../core/errors.js";

/** Every reserved bus name. */
export const RESERVED_BUSES: readonly string[] = Object.freeze(["tasks", "nodes", "schedules", "approvals"]);

const RESERVED = new Set(RESERVED_BUSES);

/** True when `bus` is written by the server only. */
export function isReservedBus(bus: string): boolean {
  return RESERVED.has(bus);
}

/**
 * Throws `bus_reserved` when `bus` is reserved; `what` says what would have written it (for
 * example `out`, `stdoutLineEvent.bus`, `a session's bus`).
 */
export function assertWritableBus(bus: string, what: string): void {
  if (!RESERVED.has(bus)) return;
  throw new ClawError(
    "bus_reserved",
    `bus "${bus}" is reserved for the server's own events (${RESERVED_BUSES.join(", ")}): ${what} may not write it; read or subscribe to it instead`,
    { bus, reserved: RESERVED_BUSES },
  );
}
