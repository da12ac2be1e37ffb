/**
 * The WebSocket bridge for one socket, written against a minimal socket shape so tests can drive
 * it with a fake as well as with `ws`. One envelope per message, responses matched by `id`,
 * pipelined; subscription events pushed as frames. A peer whose send buffer passes the
 * high-water mark is closed with 4008 (memory stays bounded; it resumes with `after`), and a
 * peer that stops answering pings is terminated.
 */
import type { ScopedGrant } from "../src/access/scoped-tokens.js";
import type { Claw } from "../src/claw/claw.js";
import { ClawError } from "../src/core/errors.js";
import { type DeliveredCursor, Peer } from "./peer.js";

/** The part of a WebSocket the bridge uses (`ws`'s WebSocket fits). */
export interface BridgeSocket {
  /** Sends a text frame; `done` (when given) is called once it has been written out. */
  send(data: string, done?: (err?: Error) => void): void;
  close(code?: number, reason?: string): void;
  /** Drops the connection at once (dead peer). */
  terminate(): void;
  ping(): void;
  /** Bytes queued but not yet written to the network. */
  readonly bufferedAmount: number;
}

/** Options of {@link bridgeSocket}. */
export interface WsBridgeOptions {
  /** Queued bytes past which the peer is closed with 4008. Default: 4 MiB */
  highWaterMark?: number;
  /** Ping interval; a peer that has not answered one ping by the next is terminated. Default: 30000 ms */
  pingIntervalMs?: number;
  /** Largest message; bigger ones get `payload_too_large`. Default: the claw's limits.maxRequestBytes (10 MiB) */
  maxMessageBytes?: number;
  /** Subscriptions per socket. Default: the claw's limits.maxSubscriptions (64) */
  maxSubscriptions?: number;
  /** Calls in flight per socket. Default: the claw's limits.maxCallsPerConnection (1024) */
  maxCallsPerConnection?: number;
  /** The scoped token the socket was opened with: every call is checked against it, and its revocation closes the socket. */
  grant?: ScopedGrant;
}

/** Close code of a socket whose scoped token was revoked (its run ended). */
export const TOKEN_REVOKED_CLOSE = 4001;

/** Close code of a consumer cut at the high-water mark. */
export const SLOW_CONSUMER_CLOSE = 4008;

/** Events the socket owner forwards to the bridge. */
export interface WsBridge {
  /** A message arrived (text, or binary holding UTF-8 JSON). */
  message(data: string | Buffer | ArrayBuffer | Buffer[]): void;
  /** A pong arrived. */
  pong(): void;
  /** The socket closed (either side). */
  closed(): void;
  /** The protocol peer behind the socket (for tests and stats). */
  readonly peer: Peer;
}

function toBuffer(data: Buffer | ArrayBuffer | Buffer[]): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** The close reason (at most 123 bytes): where to resume. The closing frame has every subscription. */
function closeReason(subs: DeliveredCursor[]): string {
  if (subs.length === 1) return `slow_consumer lastSeq=${subs[0]!.lastSeq}`;
  const all = `slow_consumer lastSeq=${JSON.stringify(Object.fromEntries(subs.map((s) => [s.sub, s.lastSeq])))}`;
  return Buffer.byteLength(all) <= 123 ? all : "slow_consumer; see the closing frame";
}

/** Most bytes gathered into one socket write while frames are corked. */
const CORK_BYTES = 16 * 1024;

/** Bridges one socket to a claw. */
export function bridgeSocket(claw: Claw, socket: BridgeSocket, options: WsBridgeOptions = {}): WsBridge {
  const highWaterMark = options.highWaterMark ?? 4 * 1024 * 1024;
  const maxMessageBytes = options.maxMessageBytes ?? claw.config.limits.maxRequestBytes;
  let alive = true;
  let ended = false;

  const end = () => {
    if (ended) return;
    ended = true;
    clearInterval(heartbeat);
    options.grant?.signal.removeEventListener("abort", revoked);
    peer.close();
  };
  const revoked = () => {
    socket.close(TOKEN_REVOKED_CLOSE, "token revoked: its run ended");
    end();
  };

  const cut = () => {
    if (ended) return;
    const subs = peer.delivered();
    // One bounded frame past the mark, so the client learns where to resume even without the close reason.
    socket.send(
      JSON.stringify({
        event: "closing",
        code: SLOW_CONSUMER_CLOSE,
        reason: "slow_consumer",
        message: `the send buffer passed ${highWaterMark} bytes; reconnect and subscribe with after = lastSeq`,
        subscriptions: subs,
      }),
    );
    socket.close(SLOW_CONSUMER_CLOSE, closeReason(subs));
    end();
  };

  // Frames sent in one tick leave together, up to CORK_BYTES per writev: a syscall per frame is
  // most of what fan-out costs. Corked bytes are not counted against the high-water mark (they
  // are written at the end of the tick or at CORK_BYTES); what the socket could not write is.
  const raw = (socket as unknown as { _socket?: { cork(): void; uncork(): void } })._socket;
  let corked = false;
  let corkedBytes = 0;
  let tickPending = false;
  const uncork = () => {
    if (!corked) return;
    corked = false;
    corkedBytes = 0;
    raw!.uncork();
  };
  // Backlog pages pause at a quarter of the mark and resume once written frames bring the
  // queue under an eighth; only live events can reach the mark (and the 4008 cut).
  const congestedAt = Math.max(1, Math.floor(highWaterMark / 4));
  const queued = () => socket.bufferedAmount - corkedBytes;
  let drainWaiters: (() => void)[] = [];
  const written = () => {
    if (drainWaiters.length === 0 || queued() > congestedAt / 2) return;
    const waiters = drainWaiters;
    drainWaiters = [];
    for (const w of waiters) w();
  };
  const send = (text: string): boolean => {
    if (ended) return false;
    if (queued() > highWaterMark) {
      cut();
      return false;
    }
    if (raw && !corked) {
      corked = true;
      raw.cork();
      if (!tickPending) {
        tickPending = true;
        process.nextTick(() => {
          tickPending = false;
          uncork();
        });
      }
    }
    socket.send(text, written);
    if (raw) {
      corkedBytes += Buffer.byteLength(text) + 10; // + the frame header (at most 10 bytes)
      if (corkedBytes >= CORK_BYTES) uncork();
    }
    return true;
  };

  const peer = new Peer(claw, {
    transport: "ws",
    grant: options.grant,
    maxSubscriptions: options.maxSubscriptions ?? claw.config.limits.maxSubscriptions,
    maxInFlight: options.maxCallsPerConnection ?? claw.config.limits.maxCallsPerConnection,
    sendFrame: (text) => void send(text),
    sendEvent: (text) => send(text),
    congested: () => queued() > congestedAt,
    onDrain: (fn) => {
      drainWaiters.push(fn);
      setImmediate(written); // it may have drained already
    },
  });

  const heartbeat = setInterval(() => {
    if (!alive) {
      socket.terminate();
      end();
      return;
    }
    alive = false;
    try {
      socket.ping();
    } catch {
      // not open any more; 'close' follows
    }
  }, options.pingIntervalMs ?? 30_000);
  heartbeat.unref();
  options.grant?.signal.addEventListener("abort", revoked, { once: true });

  return {
    peer,
    message(data) {
      alive = true; // any traffic proves the peer is there
      if (ended) return;
      const size =
        typeof data === "string"
          ? Buffer.byteLength(data)
          : Array.isArray(data)
            ? data.reduce((n, b) => n + b.length, 0)
            : data.byteLength;
      if (size > maxMessageBytes) {
        peer.reject(
          new ClawError("payload_too_large", `message is ${size} bytes; the limit is ${maxMessageBytes}`, {
            limit: maxMessageBytes,
          }),
        );
        return;
      }
      peer.receive(typeof data === "string" ? data : toBuffer(data).toString("utf8"));
    },
    pong() {
      alive = true;
    },
    closed: end,
  };
}
