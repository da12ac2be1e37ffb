/** GET /bus/<name>/events: Server-Sent Events of a bus (placeholder until the SSE adapter lands). */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Claw } from "../src/claw.js";
import { ClawError } from "../src/errors.js";

/** Streams a bus as SSE. */
export function handleSse(_claw: Claw, _req: IncomingMessage, _res: ServerResponse, _bus: string, _url: URL): void {
  throw new ClawError("not_found", "SSE is not available yet");
}
