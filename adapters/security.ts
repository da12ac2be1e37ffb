/**
 * Who may call: loopback peers freely unless a token was given explicitly, everyone else with
 * `Authorization: Bearer <token>`; Origin and Host checks against CSRF and DNS rebinding.
 * Shared by /do, SSE and the WebSocket upgrade.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { ClawError } from "../src/errors.js";

/** Access policy of a server. */
export interface AccessPolicy {
  /** The token; generated when none was configured. */
  token: string;
  /** True when the token was configured explicitly: then loopback peers need it too. */
  tokenRequiredForAll: boolean;
  /** Extra allowed Origin values (scheme://host[:port]); same-origin requests are always allowed. */
  allowedOrigins: readonly string[];
}

/** Builds a policy; without a token one is generated (print it once). */
export function createAccessPolicy(options: { token?: string; allowedOrigins?: readonly string[] } = {}): AccessPolicy {
  return {
    token: options.token ?? randomBytes(24).toString("base64url"),
    tokenRequiredForAll: options.token !== undefined,
    allowedOrigins: options.allowedOrigins ?? [],
  };
}

/** True for 127.0.0.0/8, ::1 and their IPv4-mapped forms. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.startsWith("::ffff:") ? address.slice(7) : address;
  return a === "::1" || /^127\.\d+\.\d+\.\d+$/.test(a);
}

/** True for a Host header naming a loopback host (any port). */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const h = host.trim().toLowerCase(); // host names are case-insensitive
  const name = h.startsWith("[") ? h.slice(0, h.indexOf("]") + 1) : h.replace(/:\d+$/, "");
  return name === "localhost" || name.endsWith(".localhost") || name === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(name);
}

function digest(s: string): Buffer {
  return createHash("sha256").update(s).digest();
}

/** Constant-time token comparison. */
export function tokenMatches(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  return timingSafeEqual(digest(given), digest(expected));
}

function bearer(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  const m = h === undefined ? null : /^bearer\s+(.+)$/i.exec(h.trim()); // the scheme is case-insensitive
  if (m) return m[1]!.trim();
  const url = new URL(req.url ?? "/", "http://x");
  return url.searchParams.get("token") ?? undefined; // for EventSource/WebSocket clients that cannot set headers
}

/** Throws `unauthorized` / `forbidden` when the request may not proceed. */
export function checkAccess(req: IncomingMessage, policy: AccessPolicy): void {
  const loopback = isLoopbackAddress(req.socket.remoteAddress);
  if (loopback && !isLoopbackHost(req.headers.host)) {
    throw new ClawError(
      "forbidden",
      `Host "${req.headers.host ?? ""}" is not a loopback name; requests from this machine must use localhost or 127.0.0.1`,
    );
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !originAllowed(origin, req.headers.host, policy)) {
    throw new ClawError(
      "forbidden",
      `Origin ${origin} is not allowed; only same-origin requests and configured origins may call this server`,
    );
  }
  if ((policy.tokenRequiredForAll || !loopback) && !tokenMatches(bearer(req), policy.token)) {
    throw new ClawError(
      "unauthorized",
      "missing or wrong token: send Authorization: Bearer <token> (printed by tsclaw serve at startup)",
    );
  }
}

function originAllowed(origin: string, host: string | undefined, policy: AccessPolicy): boolean {
  if (policy.allowedOrigins.includes(origin)) return true;
  try {
    return host !== undefined && new URL(origin).host === host.trim().toLowerCase();
  } catch {
    return false;
  }
}
