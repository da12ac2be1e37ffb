/**
 * Connection limits of an HTTP server, enforced on the raw socket before any parsing or work:
 * open connections in total and per peer address, and a header timeout for the first request
 * (slowloris). Refusals are one short HTTP answer with a JSON error envelope, then the socket is
 * closed. It also knows which connections never sent a request, so shutdown closes them at once.
 */
import { readFileSync } from "node:fs";
import type { IncomingMessage, Server } from "node:http";
import type { Socket } from "node:net";
import { ClawError } from "../src/core/errors.js";
import { rawErrorResponse } from "./raw-response.js";

/** The limits the guard enforces. */
export interface ConnectionLimits {
  /** Open connections in total. */
  maxConnections: number;
  /** Open connections from one peer address. */
  maxConnectionsPerPeer: number;
  /** Milliseconds until a connection's first request headers must be complete. */
  headerTimeoutMs: number;
}

/** What {@link guardConnections} returns. */
export interface ConnectionGuard {
  /** Closes every connection that has not sent a complete request head (at shutdown). */
  closeFresh(): void;
  /** Open connections (for tests and stats). */
  readonly open: number;
}

interface SocketState {
  peer: string;
  started: boolean;
  timer: NodeJS.Timeout;
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
export function guardConnections(server: Server, limits: ConnectionLimits): ConnectionGuard {
  const maxTotal = affordableConnections(limits.maxConnections);
  const open = new Map<Socket, SocketState>();
  const perPeer = new Map<string, number>();

  const admit = (socket: Socket): boolean => {
    const peer = peerKey(socket.remoteAddress);
    const mine = perPeer.get(peer) ?? 0;
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
    if (mine >= limits.maxConnectionsPerPeer) {
      refuse(
        socket,
        new ClawError(
          "too_many_requests",
          `your address holds ${mine} open connections, the limit per peer (--max-connections-per-peer); close some or reuse them`,
          { limit: limits.maxConnectionsPerPeer, scope: "peer" },
        ),
      );
      return false;
    }
    perPeer.set(peer, mine + 1);
    const state: SocketState = {
      peer,
      started: false,
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
      const left = (perPeer.get(peer) ?? 1) - 1;
      if (left > 0) perPeer.set(peer, left);
      else perPeer.delete(peer);
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

  const started = (req: IncomingMessage) => {
    const state = open.get(req.socket);
    if (state) {
      state.started = true;
      clearTimeout(state.timer);
    }
  };
  server.prependListener("request", started);
  server.prependListener("upgrade", (req: IncomingMessage, socket: Socket) => {
    started(req);
    // Only this listener: nobody serves upgrades here, and Node would have destroyed the socket.
    if (server.listenerCount("upgrade") === 1) socket.destroy();
  });

  return {
    closeFresh() {
      for (const [socket, state] of open) if (!state.started) socket.destroy();
    },
    get open() {
      return open.size;
    },
  };
}
