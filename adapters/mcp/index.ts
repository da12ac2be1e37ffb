/**
 * tsclaw/mcp: the Model Context Protocol adapter. `createMcpServer` gives an SDK server over a
 * claw for any transport; `McpHttpMount` serves Streamable HTTP (mounted at /mcp by the HTTP
 * adapter); `serveMcpStdio` speaks it on stdin/stdout; `relayMcpStdio` joins stdio to a running
 * server's /mcp.
 * @module tsclaw/mcp
 */

export { MemoryEventStore } from "./event-store.js";
export { McpHttpMount, type McpHttpOptions } from "./http.js";
export { GUIDE_URI, TASK_URI_TEMPLATE } from "./resources.js";
export { createMcpServer, type McpServerOptions } from "./server.js";
export { relayMcpStdio, type StdioStreams, serveMcpStdio } from "./stdio.js";
export { ClawTaskStore } from "./task-store.js";
export { annotationsOf, toolsOf } from "./tool-list.js";
