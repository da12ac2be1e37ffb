/**
 * Who may call: every peer, loopback included, proves it holds the server's token
 * (`Authorization: Bearer <token>`; GET streams may carry it as `?token=`), unless the server was
 * started with the explicit `insecureLoopback` opt-out, or a live scoped token (an agent run's or
 * a bash call's `CLAW_TOKEN`), whose scope the dispatcher then enforces per call. Origin and Host
 * checks against CSRF and DNS rebinding. Shared by /do, SSE, the WebSocket upgrade and /mcp.
 */
import * as crypto from "node:crypto";
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { SCOPED_TOKEN_PREFIX, type ScopedGrant, type ScopedTokens } from "../src/access/scoped-tokens.js";
import type { StreamTickets } from "../src/access/stream-tickets.js";
import { ClawError } from "../src/core/errors.js";
import { carriesForwarding } from "./peer-address.js";

/** Access policy of a server. */
export interface AccessPolicy {
  /** The server token every peer must present. */
  token: string;
  /**
   * Where the token is (e.g. "the token is in /srv/claw.db.token"), for /doc, which only peers
   * holding a token read. A 401 never shows it.
   */
  tokenHint: string;
  /** True: loopback peers may call without the token (an explicit, single-user opt-out). */
  insecureLoopback: boolean;
  /** Extra allowed Origin values (scheme://host[:port]); same-origin requests are always allowed. */
  allowedOrigins: readonly string[];
}

/** Options of {@link createAccessPolicy}. */
export interface AccessPolicyOptions {
  /** The token. Default: 32 random bytes (read it from `policy.token`) */
  token?: string;
  /** Where the token is, shown in /doc (never in a 401). Default: a generic sentence */
  tokenHint?: string;
  /** Let loopback peers in without the token. Default: false */
  insecureLoopback?: boolean;
  /** Origins allowed besides same-origin. Default: none */
  allowedOrigins?: readonly string[];
}

/** Generates a server token: 32 random bytes, URL-safe. */
export function generateToken(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * Refuses a token that would admit anyone: empty or blank (a `?token=` with an empty value
 * would match it), or holding characters an HTTP header cannot carry.
 */
export function validateToken(token: string, source: string): string {
  if (token.trim() === "")
    throw new ClawError(
      "invalid_args",
      `the token from ${source} is empty; give a real token or omit it to generate one`,
    );
  if (token !== token.trim() || !/^[\x21-\x7e]+$/.test(token))
    throw new ClawError(
      "invalid_args",
      `the token from ${source} must be printable ASCII without spaces (it travels in an HTTP header)`,
    );
  return token;
}

/** Builds a policy; without a token one is generated (give it to your clients). */
export function createAccessPolicy(options: AccessPolicyOptions = {}): AccessPolicy {
  return {
    token: options.token === undefined ? generateToken() : validateToken(options.token, "the access policy"),
    tokenHint: options.tokenHint ?? "ask whoever started the server for its token",
    insecureLoopback: options.insecureLoopback ?? false,
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

// One-shot hashing (Node 20.12+) costs a fifth of a Hash object; older 20.x falls back to one.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: "buffer") => Buffer }).hash;

function digest(s: string): Buffer {
  return oneShot ? oneShot("sha256", s, "buffer") : createHash("sha256").update(s).digest();
}

// The expected side is the same token on every request: hashed once, not per request.
let expectedDigest: { token: string; digest: Buffer } | undefined;

/** Constant-time token comparison (hashing first makes the lengths equal). */
export function tokenMatches(given: string | undefined, expected: string): boolean {
  if (given === undefined || expected === "") return false;
  if (expectedDigest?.token !== expected) expectedDigest = { token: expected, digest: digest(expected) };
  return timingSafeEqual(digest(given), expectedDigest.digest);
}

/**
 * The Authorization header each keep-alive connection last proved the server token with. A
 * later request on that connection with the very same header needs no hashing: comparing it
 * with what this connection itself already sent tells its sender nothing it did not know, and
 * no other connection is ever compared with it.
 */
const provenOnSocket = new WeakMap<object, { header: string; token: string }>();

/** True when the request's header token is the server token (remembered per connection). */
function serverTokenMatches(req: IncomingMessage, given: string, policy: AccessPolicy): boolean {
  const header = req.headers.authorization;
  const proven = header === undefined ? undefined : provenOnSocket.get(req.socket);
  if (proven !== undefined && proven.header === header && proven.token === policy.token) return true;
  if (!tokenMatches(given, policy.token)) return false;
  if (header !== undefined) provenOnSocket.set(req.socket, { header, token: policy.token });
  return true;
}

/** A query parameter of the request's URL; a URL without "?" (every POST /do) is not parsed. */
function queryParam(req: IncomingMessage, name: string): string | null {
  const url = req.url ?? "/";
  return url.includes("?") ? new URL(url, "http://x").searchParams.get(name) : null;
}

/** Where the request carried a token. */
interface PresentedToken {
  token?: string;
  /** True when it came as `?token=` (allowed on GET streams only). */
  inQuery: boolean;
}

function presented(req: IncomingMessage): PresentedToken {
  const h = req.headers.authorization;
  const m = h === undefined ? null : /^bearer\s+(.+)$/i.exec(h.trim()); // the scheme is case-insensitive
  if (m) return { token: m[1]!.trim(), inQuery: false };
  const q = queryParam(req, "token");
  return q === null ? { inQuery: false } : { token: q, inQuery: true };
}

/** What {@link checkAccess} needs to know about the route. */
export interface AccessRoute {
  /**
   * True for GET streams a browser cannot give headers to (SSE, the WebSocket upgrade): only
   * they may carry the token as `?token=`, where it would otherwise end up in logs and history.
   */
  stream: boolean;
  /**
   * The live scoped tokens this route accepts. Absent: scoped tokens are refused here (403),
   * for routes whose calls do not all pass through the dispatcher with the grant (MCP).
   */
  scoped?: Pick<ScopedTokens, "resolve">;
  /**
   * The claw's single-use stream tickets. A `?ticket=` opens only a GET stream, but it is used
   * up wherever it is tried (a ticket that leaked into a URL is gone once anyone tried it).
   * Default: none (a ticket is then refused without being used up)
   */
  tickets?: Pick<StreamTickets, "consume">;
}

/** The token a caller presented, once {@link checkAccess} let it through. */
export interface AccessGrant {
  /** The token as presented (undefined for a loopback peer let in by insecureLoopback). */
  token?: string;
  /** Set when it was a scoped token: pass it on as the calls' `grant`. */
  scoped?: ScopedGrant;
}

/** What a loopback peer without the token is told: where to look, never the token file's path. */
const LOCAL_TOKEN_HINT =
  "tsclaw serve printed where its token is when it started; tsclaw do, tail and mcp read it by themselves";

function unauthorized(message: string, loopback: boolean): ClawError {
  // The path of the token file is for callers holding the token (/doc): an unauthenticated
  // peer, even on this machine, learns only where to look; a peer elsewhere not even that.
  const where = loopback ? ` (${LOCAL_TOKEN_HINT})` : "";
  return new ClawError("unauthorized", `${message}: send Authorization: Bearer <token>${where}`);
}

/** Throws `unauthorized` / `forbidden` when the request may not proceed. */
export function checkAccess(req: IncomingMessage, policy: AccessPolicy, route: AccessRoute): AccessGrant {
  const direct = isLoopbackAddress(req.socket.remoteAddress);
  // A request a proxy forwarded comes from elsewhere, whatever the proxy's own address: it never
  // gets what a peer on this machine gets (the --insecure-loopback opt-out, the local hint).
  const loopback = direct && !carriesForwarding(req);
  if (direct && !isLoopbackHost(req.headers.host)) {
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
  const ticket = queryParam(req, "ticket");
  if (ticket !== null) {
    const valid = route.tickets?.consume(ticket) ?? false;
    if (!(route.stream && req.method === "GET"))
      throw unauthorized(
        "?ticket= is accepted only on GET streams (SSE, WebSocket); this one is now used up",
        loopback,
      );
    if (valid) return {}; // the minter's rights: only the server token may mint
    throw unauthorized("this ticket is unknown, used or expired (a ticket opens one stream within 60 s)", loopback);
  }
  const given = presented(req);
  if (given.token !== undefined && given.inQuery && !(route.stream && req.method === "GET"))
    throw unauthorized("?token= is accepted only on GET streams (SSE, WebSocket)", loopback);
  if (
    given.token !== undefined &&
    (given.inQuery ? tokenMatches(given.token, policy.token) : serverTokenMatches(req, given.token, policy))
  )
    return { token: given.token };
  if (given.token?.startsWith(SCOPED_TOKEN_PREFIX)) {
    if (!route.scoped)
      throw new ClawError("forbidden", "a run's scoped token is accepted on /do, /ws and bus streams only");
    const scoped = route.scoped.resolve(given.token);
    if (scoped) return { token: given.token, scoped };
    throw unauthorized(
      "this scoped token is unknown or its run has ended (it is valid only while its run lasts)",
      loopback,
    );
  }
  if (given.token === undefined && loopback && policy.insecureLoopback) return {};
  throw unauthorized(given.token === undefined ? "this server needs a token" : "wrong token", loopback);
}

function originAllowed(origin: string, host: string | undefined, policy: AccessPolicy): boolean {
  if (policy.allowedOrigins.includes(origin)) return true;
  try {
    return host !== undefined && new URL(origin).host === host.trim().toLowerCase();
  } catch {
    return false;
  }
}
