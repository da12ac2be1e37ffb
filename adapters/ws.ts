/**
 * tsclaw/ws: the WebSocket bridge. `attachWebSocket` serves /ws on an HTTP server (pass the same
 * access policy as the HTTP server); `bridgeSocket` bridges any socket of the same shape.
 * @module tsclaw/ws
 */
export { attachWebSocket, type AttachedWebSocket, type WebSocketOptions } from "./ws-server.js";
export { bridgeSocket, SLOW_CONSUMER_CLOSE, type BridgeSocket, type WsBridge, type WsBridgeOptions } from "./ws-bridge.js";
export { createAccessPolicy, type AccessPolicy } from "./security.js";
export type { DeliveredCursor } from "./peer.js";
