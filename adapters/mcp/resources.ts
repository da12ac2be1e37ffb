/**
 * MCP resources: the guide (`tsclaw://guide`) and each task as `tsclaw://task/{taskId}`, whose
 * subscribers get notifications/resources/updated after every accepted change of the task
 * (followed on the `tasks` bus, no polling).
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Claw } from "../../src/claw/claw.js";
import { followTaskChanges } from "./task-changes.js";

/** URI of the guide. */
export const GUIDE_URI = "tsclaw://guide";
/** URI template of a task. */
export const TASK_URI_TEMPLATE = "tsclaw://task/{taskId}";
const TASK_PREFIX = "tsclaw://task/";

/** The task id of a task resource URI, or undefined. */
export function taskIdOf(uri: string): string | undefined {
  if (!uri.startsWith(TASK_PREFIX)) return undefined;
  const id = decodeURIComponent(uri.slice(TASK_PREFIX.length));
  return id === "" || id.includes("/") ? undefined : id;
}

async function readTask(claw: Claw, uri: string, taskId: string) {
  const r = await claw.do({ op: "get_task", args: { taskId, include: ["timeline"] } });
  if (!r.ok) throw new McpError(ErrorCode.InvalidParams, `Resource ${uri}: ${r.error.message}`, { error: r.error });
  return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(r.result) }] };
}

/**
 * Registers the resource handlers on `server`; returns the function that ends every
 * subscription it made (call it when the MCP session closes).
 */
export function registerResources(server: Server, claw: Claw): () => void {
  const subscriptions = new Map<string, () => void>();
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [
      {
        uri: GUIDE_URI,
        name: "guide",
        title: "tsclaw guide",
        description: "How to use this server: every operation, the bus, task and completion contracts",
        mimeType: "text/markdown",
      },
    ],
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: TASK_URI_TEMPLATE,
        name: "task",
        title: "tsclaw task",
        description: "A task snapshot (get_task with its timeline); subscribe to be told of every change",
        mimeType: "application/json",
      },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    const { uri } = request.params;
    if (uri === GUIDE_URI) return { contents: [{ uri, mimeType: "text/markdown", text: claw.doc() }] };
    const taskId = taskIdOf(uri);
    if (taskId === undefined) throw new McpError(ErrorCode.InvalidParams, `Resource not found: ${uri}`);
    return readTask(claw, uri, taskId);
  });
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const { uri } = request.params;
    const taskId = taskIdOf(uri);
    if (taskId === undefined)
      throw new McpError(ErrorCode.InvalidParams, `only task resources (${TASK_URI_TEMPLATE}) change`);
    await readTask(claw, uri, taskId); // unknown task → error now, not silence later
    if (!subscriptions.has(uri)) {
      const unlisten = followTaskChanges(
        claw,
        (id) => id === taskId,
        () => server.sendResourceUpdated({ uri }).catch(() => {}), // a gone client is the transport's business
      );
      subscriptions.set(uri, unlisten);
    }
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscriptions.get(request.params.uri)?.();
    subscriptions.delete(request.params.uri);
    return {};
  });
  return () => {
    for (const off of subscriptions.values()) off();
    subscriptions.clear();
  };
}
