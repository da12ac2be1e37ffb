/** tsclaw/ws: the WebSocket bridge. */
export { attachWebSocket } from "./ws-server.js";
