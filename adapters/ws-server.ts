/** The WebSocket bridge at /ws (lands with the adapters issue). */
import type { Server } from "node:http";
import type { Claw } from "../src/claw.js";
import type { AccessPolicy } from "./security.js";

/** Attaches /ws to an HTTP server; returns its closer. */
export function attachWebSocket(_claw: Claw, _server: Server, _options: { policy: AccessPolicy }): { close(): void } {
  return { close() {} };
}
