/**
 * One MCP server (one per MCP session or stdio connection) over a claw, on the official SDK's
 * protocol core: tools generated from the registry, tasks backed by tsclaw's task service,
 * resources, progress and cancellation. Transports only move its messages.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import type { Claw } from "../../src/claw/claw.js";
import { VERSION } from "../../src/core/version.js";
import { OPS } from "../../src/ops/index.js";
import { type CallStreams, pollDuring } from "./polling.js";
import { isLongCall, startProgress } from "./progress.js";
import { registerResources } from "./resources.js";
import { taskResult } from "./task-result.js";
import { ClawTaskStore } from "./task-store.js";
import { callTestTool, TEST_TOOLS } from "./test-tools.js";
import { TASK_TOOL, toolsOf } from "./tool-list.js";
import { toToolResult } from "./tool-result.js";

/** Options of an MCP server. */
export interface McpServerOptions {
  /** Interval of progress heartbeats during long calls, in ms. Default: 5000 */
  progressIntervalMs?: number;
}

/** What the transport under a server adds (Streamable HTTP); absent on stdio. */
export interface McpTransportFeatures {
  /** Lets long calls close and resume their SSE stream (polling). */
  streams?: CallStreams;
  /** Serves the probe tools of MCP test suites (test_reconnection) besides the registry's. Default: false */
  testTools?: boolean;
}

const INSTRUCTIONS =
  "tsclaw: every operation is a tool named as the operation. Read the resource tsclaw://guide (or call the doc tool) " +
  "for the contracts. run_task starts an agent run as a durable task (task-augmented calls make it an MCP task with the " +
  "same id); without task support, poll it with check_task, which waits server-side.";

/** Creates an MCP server for `claw`; connect it to one transport. */
export function createMcpServer(
  claw: Claw,
  options: McpServerOptions = {},
  features: McpTransportFeatures = {},
): Server {
  const heartbeatMs = options.progressIntervalMs ?? 5000;
  const { streams } = features;
  const testTools = new Set(features.testTools ? TEST_TOOLS.map((t) => t.name) : []);
  const tools = features.testTools ? [...toolsOf(OPS), ...TEST_TOOLS] : toolsOf(OPS);
  const toolNames = new Set(tools.map((t) => t.name));
  const store = new ClawTaskStore(claw);
  const server = new Server(
    { name: "tsclaw", version: VERSION },
    {
      capabilities: {
        tools: { listChanged: false },
        resources: { subscribe: true, listChanged: false },
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      },
      instructions: INSTRUCTIONS,
      taskStore: store,
    },
  );
  server.onerror = (err) => claw.config.log(`tsclaw mcp: ${err.message}`);

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args = {}, task } = request.params;
    if (!toolNames.has(name))
      throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found; tools/list lists them`);
    if (task) {
      if (name !== TASK_TOOL) {
        throw new McpError(ErrorCode.MethodNotFound, `${name} does not run as a task; only ${TASK_TOOL} does`);
      }
      return { task: await extra.taskStore!.createTask({ ttl: task.ttl }) };
    }
    if (testTools.has(name)) return callTestTool(name, streams, extra.requestId);
    const progressToken = extra._meta?.progressToken;
    const stop =
      progressToken === undefined
        ? () => {}
        : startProgress(
            claw,
            name,
            args,
            (report) => {
              extra
                .sendNotification({ method: "notifications/progress", params: { progressToken, ...report } })
                .catch(() => {}); // the client went away: the call's own signal handles that
            },
            heartbeatMs,
          );
    const stopPolling = isLongCall(name, args) ? pollDuring(streams, extra.requestId) : () => {};
    try {
      // notifications/cancelled aborts extra.signal: the call ends as on a disconnect (bash killed).
      return toToolResult(await claw.do({ op: name, args }, { transport: "mcp", signal: extra.signal }));
    } finally {
      stopPolling();
      stop();
    }
  });

  server.setRequestHandler(GetTaskPayloadRequestSchema, (request, extra) =>
    taskResult(claw, store, request.params.taskId, extra),
  );

  const endSubscriptions = registerResources(server, claw);
  const closed = server.onclose;
  server.onclose = () => {
    endSubscriptions();
    closed?.();
  };
  return server;
}
