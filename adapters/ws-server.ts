/**
 * The WebSocket endpoint /ws on an HTTP server: checks Origin, Host and token before accepting
 * the upgrade (the same rules as /do), then hands each socket to the bridge.
 */
import { type IncomingMessage, type Server, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import type { Claw } from "../src/claw.js";
import { ClawError, toClawError } from "../src/errors.js";
import { encodeResponse, errorResponse } from "../src/wire.js";
import { type AccessPolicy, checkAccess } from "./security.js";
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

function refuse(socket: Duplex, err: unknown): void {
  const e = toClawError(err);
  const body = encodeResponse(errorResponse(null, e));
  socket.end(
    `HTTP/1.1 ${e.status} ${STATUS_CODES[e.status] ?? ""}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  socket.once("finish", () => socket.destroy());
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
    try {
      const url = new URL(req.url ?? "/", "http://localhost");
      if (url.pathname !== path)
        throw new ClawError("not_found", `no WebSocket endpoint at ${url.pathname}; use ${path}`);
      checkAccess(req, options.policy, { stream: true });
    } catch (err) {
      refuse(socket, err);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      const bridge = bridgeSocket(claw, ws, { ...options, maxMessageBytes });
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
