/**
 * The WebSocket endpoint /ws on an HTTP server: checks Origin, Host and token before accepting
 * the upgrade (the same rules as /do), then hands each socket to the bridge.
 */
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import type { Claw } from "../src/claw/claw.js";
import { ClawError } from "../src/core/errors.js";
import { guardOf } from "./connection-guard.js";
import { refuseSocket } from "./raw-response.js";
import { type AccessGrant, type AccessPolicy, checkAccess } from "./security.js";
import { bridgeSocket, type WsBridgeOptions } from "./ws-bridge.js";

/** Options of {@link attachWebSocket}. */
export interface WebSocketOptions extends WsBridgeOptions {
  /** Who may connect (the server's policy, shared with /do). */
  policy: AccessPolicy;
  /** Path of the endpoint. Default: "/ws" */
  path?: string;
}

/** What {@link attachWebSocket} returns. */
export interface AttachedWebSocket {
  /** Closes every socket (1001) and every SSE stream of the claw, and stops accepting upgrades. */
  close(): void;
  /** The underlying `ws` server (its `clients` are the open sockets). */
  readonly wss: WebSocketServer;
}

/** Refuses a handshake that `ws` would refuse with a bare text answer, before it sees it. */
function checkHandshake(req: IncomingMessage): void {
  const bad = (why: string) => new ClawError("invalid_request", `not a WebSocket handshake: ${why}`);
  if (req.method !== "GET") throw bad(`the method must be GET, not ${req.method}`);
  if ((req.headers.upgrade ?? "").toLowerCase() !== "websocket")
    throw bad(`Upgrade must be "websocket", not "${String(req.headers.upgrade).slice(0, 40)}"`);
  const key = req.headers["sec-websocket-key"];
  if (typeof key !== "string" || !/^[+/0-9A-Za-z]{21}[AQgw]==$/.test(key.trim()))
    throw bad("Sec-WebSocket-Key must be 16 bytes in base64");
  const version = req.headers["sec-websocket-version"];
  if (version !== "13" && version !== "8") throw bad("Sec-WebSocket-Version must be 13");
}

/**
 * Serves the WebSocket bridge on `server` at /ws. Messages larger than twice the message limit
 * are refused by `ws` itself (close 1009); up to that, an oversized message gets a
 * `payload_too_large` frame and the socket stays open.
 */
export function attachWebSocket(claw: Claw, server: Server, options: WebSocketOptions): AttachedWebSocket {
  const path = options.path ?? "/ws";
  const maxMessageBytes = options.maxMessageBytes ?? claw.config.limits.maxRequestBytes;
  const wss = new WebSocketServer({ noServer: true, maxPayload: 2 * maxMessageBytes, perMessageDeflate: false });

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    let grant: AccessGrant;
    try {
      const url = new URL(req.url ?? "/", "http://localhost");
      if (url.pathname !== path)
        throw new ClawError("not_found", `no WebSocket endpoint at ${url.pathname}; use ${path}`);
      checkHandshake(req);
      grant = checkAccess(req, options.policy, {
        stream: true,
        scoped: claw.gate.tokens,
        tickets: claw.gate.tickets,
      });
      guardOf(server)?.authenticated(req);
    } catch (err) {
      refuseSocket(socket, err);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      const bridge = bridgeSocket(claw, ws, { ...options, maxMessageBytes, grant: grant.scoped });
      ws.on("message", (data) => bridge.message(data));
      ws.on("pong", () => bridge.pong());
      ws.on("close", () => bridge.closed());
      ws.on("error", () => {
        bridge.closed();
        ws.terminate();
      });
    });
  };
  server.on("upgrade", onUpgrade);

  return {
    wss,
    close() {
      server.off("upgrade", onUpgrade);
      for (const ws of wss.clients) ws.close(1001, "server shutting down");
      // Peers that do not answer the close handshake are dropped shortly after.
      const timer = setTimeout(() => {
        for (const ws of wss.clients) ws.terminate();
        wss.close();
      }, 1000);
      timer.unref();
      if (wss.clients.size === 0) wss.close();
    },
  };
}
