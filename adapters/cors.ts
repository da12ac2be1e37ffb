/**
 * CORS for the origins allowed with --allow-origin: their responses carry
 * `Access-Control-Allow-Origin` and `Vary: Origin`, and their preflight gets 204 with the allowed
 * methods and headers. Any other origin keeps getting 403 from the access checks (the preflight
 * here, the request itself in security.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ClawError } from "../src/core/errors.js";
import type { AccessPolicy } from "./security.js";

const ALLOW_METHODS = "GET, POST, OPTIONS";
const ALLOW_HEADERS = "authorization, content-type";

/**
 * Adds the CORS headers a request's Origin earns. Returns true when it answered the request
 * itself (a preflight); throws `forbidden` for a preflight from an origin that is not allowed.
 */
export function applyCors(req: IncomingMessage, res: ServerResponse, policy: AccessPolicy): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined) res.setHeader("vary", "Origin"); // caches must not reuse one origin's answer for another
  const allowed = origin !== undefined && policy.allowedOrigins.includes(origin);
  if (allowed) res.setHeader("access-control-allow-origin", origin);
  if (req.method !== "OPTIONS") return false;
  if (origin !== undefined && !allowed) {
    throw new ClawError("forbidden", `Origin ${origin} is not allowed; start the server with --allow-origin ${origin}`);
  }
  res.writeHead(204, {
    allow: ALLOW_METHODS,
    ...(allowed
      ? {
          "access-control-allow-methods": ALLOW_METHODS,
          "access-control-allow-headers": ALLOW_HEADERS,
          "access-control-max-age": "600",
        }
      : {}),
  });
  res.end();
  return true;
}
