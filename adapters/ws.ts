/** tsclaw/ws: the WebSocket bridge (attach /ws to an HTTP server, or bridge any socket of the same shape). */
export { attachWebSocket, type AttachedWebSocket, type WebSocketOptions } from "./ws-server.js";
export { bridgeSocket, SLOW_CONSUMER_CLOSE, type BridgeSocket, type WsBridge, type WsBridgeOptions } from "./ws-bridge.js";
export type { DeliveredCursor } from "./peer.js";
