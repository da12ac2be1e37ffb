/**
 * The peer address of an HTTP request, for connection limits and logs. Behind a reverse proxy
 * every client arrives from the proxy's one address; with the proxy's address in `trustProxy`,
 * the client is the last hop that proxy added to `X-Forwarded-For` (or to `Forwarded: for=`).
 * Never for authentication: a forwarded request is never "this machine".
 */
import type { IncomingMessage } from "node:http";

/** Where a request comes from. */
export interface PeerAddress {
  /** The client's address (the forwarded one behind a trusted proxy). */
  address: string;
  /** True when `address` came from a trusted proxy's header. */
  forwarded: boolean;
}

/** An address without the IPv4-mapped prefix (`::ffff:127.0.0.1` → `127.0.0.1`). */
export function plainAddress(address: string | undefined): string {
  if (!address) return "?";
  return address.startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
}

/** The last element of a header that may be given several times (Node joins them with ", "). */
function lastHop(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value.join(",") : value;
  if (!text) return undefined;
  const last = text.split(",").pop()!.trim();
  return last === "" ? undefined : last;
}

/** The `for=` of the last element of a `Forwarded` header (RFC 7239), without quotes, brackets or port. */
function forwardedFor(value: string | string[] | undefined): string | undefined {
  const element = lastHop(value);
  const m = element === undefined ? null : /(?:^|;)\s*for=("[^"]*"|[^;]*)/i.exec(element);
  if (!m) return undefined;
  const raw = m[1]!.replace(/^"|"$/g, "").trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(raw);
  if (bracketed) return bracketed[1];
  return /^[\d.]+:\d+$/.test(raw) ? raw.replace(/:\d+$/, "") : raw || undefined;
}

/** The peer of `req`: the socket's address, or the forwarded client when the socket is a trusted proxy. */
export function peerAddress(req: IncomingMessage, trustProxy: readonly string[]): PeerAddress {
  const direct = plainAddress(req.socket.remoteAddress);
  if (trustProxy.length === 0 || !trustProxy.includes(direct)) return { address: direct, forwarded: false };
  const client = lastHop(req.headers["x-forwarded-for"]) ?? forwardedFor(req.headers.forwarded);
  return client === undefined
    ? { address: direct, forwarded: false }
    : { address: plainAddress(client), forwarded: true };
}

/** True when the request says a proxy forwarded it (whether or not that proxy is trusted). */
export function carriesForwarding(req: IncomingMessage): boolean {
  const h = req.headers;
  return h["x-forwarded-for"] !== undefined || h.forwarded !== undefined || h["x-real-ip"] !== undefined;
}
