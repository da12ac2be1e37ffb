/**
 * Connection limits of an HTTP server. On the raw socket, before any parsing or work: open
 * connections in total, and a header timeout for the first request (slowloris). Once a request
 * on a connection proves a token: open connections per peer address, for remote peers only (a
 * local program and a reverse proxy on this machine count only against the total; behind a
 * trusted proxy the peer is the forwarded client). A connection that has not proven a token is
 * closed after each answer, so idle keep-alives without the token hold no slot. Refusals are one
 * short HTTP answer with a JSON error envelope. It also knows which connections never sent a
 * request, so shutdown closes them at once.
 */
import { readFileSync } from "node:fs";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { ClawError } from "../src/core/errors.js";
import { peerAddress } from "./peer-address.js";
import { rawErrorResponse } from "./raw-response.js";
import { isLoopbackAddress } from "./security.js";

/** The limits the guard enforces. */
export interface ConnectionLimits {
  /** Open connections in total. */
  maxConnections: number;
  /** Open authenticated connections from one remote peer address (loopback peers: the total only). */
  maxConnectionsPerPeer: number;
  /** Milliseconds until a connection's first request headers must be complete. */
  headerTimeoutMs: number;
}

/** Options of {@link guardConnections} besides the limits. */
export interface GuardOptions {
  /** Addresses of reverse proxies whose `X-Forwarded-For` names the peer (limits and logs only). Default: none */
  trustProxy?: readonly string[];
}

/** What {@link guardConnections} returns. */
export interface ConnectionGuard {
  /** Closes every connection that has not sent a complete request head (at shutdown). */
  closeFresh(): void;
  /**
   * A request on this connection proved a token: the connection now counts against its peer's
   * cap (remote peers only), and may stay open between requests. Throws `too_many_requests`
   * (the answer then closes the connection) when that peer already holds its share.
   */
  authenticated(req: IncomingMessage, res?: ServerResponse): void;
  /** Open connections (for tests and stats). */
  readonly open: number;
}

interface SocketState {
  started: boolean;
  timer: NodeJS.Timeout;
  /** True once a request on it proved a token. */
  authenticated: boolean;
  /** The peer key it counts against (undefined: not counted, unauthenticated or loopback). */
  peer?: string;
}

const guards = new WeakMap<Server, ConnectionGuard>();

/** The guard installed on `server`, if any (the WebSocket upgrade reports authentication to it). */
export function guardOf(server: Server): ConnectionGuard | undefined {
  return guards.get(server);
}

/**
 * The peer a connection counts against: an IPv4 address, or the /64 of an IPv6 address (one
 * host usually holds a whole /64, so counting single addresses would not limit it).
 */
export function peerKey(address: string | undefined): string {
  if (!address) return "?";
  if (address.startsWith("::ffff:") && address.includes(".")) return address.slice(7);
  if (!address.includes(":")) return address;
  const [head, tail = ""] = address.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups.slice(0, 4).join(":")}::/64`;
}

/**
 * The total-connection limit this process can afford: the configured one, lowered so that
 * connections cannot take the descriptors the database, bash pipes and logs need.
 */
export function affordableConnections(configured: number): number {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync("/proc/self/limits", "utf8"));
    if (m) return Math.max(16, Math.min(configured, Number(m[1]) - 128));
  } catch {
    // not Linux: keep the configured value
  }
  return configured;
}

/** Answers and closes a socket the HTTP parser never saw (or that timed out before a request). */
function refuse(socket: Socket, err: ClawError): void {
  socket.on("error", () => {});
  socket.resume(); // read and drop whatever arrives, so closing does not reset our answer away
  socket.end(rawErrorResponse(err), () => socket.destroy());
  socket.setTimeout(1000, () => socket.destroy());
}

/** Installs the limits on `server`. */
export function guardConnections(
  server: Server,
  limits: ConnectionLimits,
  options: GuardOptions = {},
): ConnectionGuard {
  const maxTotal = affordableConnections(limits.maxConnections);
  const trustProxy = options.trustProxy ?? [];
  const open = new Map<Socket, SocketState>();
  const perPeer = new Map<string, number>();

  const release = (state: SocketState) => {
    if (state.peer === undefined) return;
    const left = (perPeer.get(state.peer) ?? 1) - 1;
    if (left > 0) perPeer.set(state.peer, left);
    else perPeer.delete(state.peer);
    state.peer = undefined;
  };

  const admit = (socket: Socket): boolean => {
    if (open.size >= maxTotal) {
      refuse(
        socket,
        new ClawError(
          "too_many_requests",
          `the server holds ${maxTotal} open connections, its limit (--max-connections); retry later`,
          { limit: maxTotal, scope: "total" },
        ),
      );
      return false;
    }
    const state: SocketState = {
      started: false,
      authenticated: false,
      timer: setTimeout(() => {
        if (state.started || socket.destroyed) return;
        refuse(
          socket,
          new ClawError(
            "request_timeout",
            `no complete request headers within ${limits.headerTimeoutMs} ms (--header-timeout)`,
            { limit: limits.headerTimeoutMs },
          ),
        );
      }, limits.headerTimeoutMs),
    };
    state.timer.unref();
    open.set(socket, state);
    socket.once("close", () => {
      clearTimeout(state.timer);
      open.delete(socket);
      release(state);
    });
    return true;
  };

  // A refused socket must not reach the HTTP machinery at all (no parser, no request, no work),
  // and 'connection' listeners cannot stop each other, so admission sits in front of the event.
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: unknown[]) => boolean;
  server.emit = ((event: string | symbol, ...args: unknown[]) => {
    if (event === "connection" && !admit(args[0] as Socket)) return true;
    return emit(event, ...args);
  }) as Server["emit"];

  const started = (req: IncomingMessage, res?: ServerResponse) => {
    const state = open.get(req.socket);
    if (!state) return;
    state.started = true;
    clearTimeout(state.timer);
    // Without a proven token, the answer closes the connection: an idle keep-alive of a peer
    // without the token holds no slot. authenticated() lets a proven connection stay.
    if (res && !state.authenticated) res.shouldKeepAlive = false;
  };
  server.prependListener("request", started);
  server.prependListener("upgrade", (req: IncomingMessage, socket: Socket) => {
    started(req);
    // Only this listener: nobody serves upgrades here, and Node would have destroyed the socket.
    if (server.listenerCount("upgrade") === 1) socket.destroy();
  });

  const guard: ConnectionGuard = {
    closeFresh() {
      for (const [socket, state] of open) if (!state.started) socket.destroy();
    },
    authenticated(req, res) {
      const state = open.get(req.socket);
      if (!state) return;
      const peer = peerAddress(req, trustProxy);
      // Loopback peers (local programs, a proxy not trusted to name its clients) count only
      // against the total; a forwarded client is a remote peer wherever the proxy runs.
      const key = peer.forwarded || !isLoopbackAddress(peer.address) ? peerKey(peer.address) : undefined;
      if (key !== state.peer && key !== undefined) {
        const mine = perPeer.get(key) ?? 0;
        if (mine >= limits.maxConnectionsPerPeer)
          throw new ClawError(
            "too_many_requests",
            `your address holds ${mine} open connections, the limit per peer (--max-connections-per-peer); close some or reuse them`,
            { limit: limits.maxConnectionsPerPeer, scope: "peer" },
          );
        release(state); // a proxy's connection that now carries another client
        perPeer.set(key, mine + 1);
        state.peer = key;
      }
      if (!state.authenticated) {
        state.authenticated = true;
        if (res && res.shouldKeepAlive === false && keepAliveAsked(req)) res.shouldKeepAlive = true;
      }
    },
    get open() {
      return open.size;
    },
  };
  guards.set(server, guard);
  return guard;
}

/** True when the request lets its connection stay open (HTTP/1.1 by default, 1.0 when asked). */
function keepAliveAsked(req: IncomingMessage): boolean {
  const connection = (req.headers.connection ?? "").toLowerCase();
  if (connection.includes("close")) return false;
  return req.httpVersion === "1.1" || connection.includes("keep-alive");
}
