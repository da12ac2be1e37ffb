/**
 * tsclaw/ws: the WebSocket bridge. `attachWebSocket` serves /ws on an HTTP server (pass the same
 * access policy as the HTTP server); `bridgeSocket` bridges any socket of the same shape.
 * @module tsclaw/ws
 */

export type { DeliveredCursor } from "./peer.js";
export { type AccessPolicy, createAccessPolicy } from "./security.js";
export {
  type BridgeSocket,
  bridgeSocket,
  SLOW_CONSUMER_CLOSE,
  type WsBridge,
  type WsBridgeOptions,
} from "./ws-bridge.js";
export { type AttachedWebSocket, attachWebSocket, type WebSocketOptions } from "./ws-server.js";
