/**
 * `subscriptions/listen` for task ids (the tasks extension's notifications/tasks), which the
 * SDK's listen router does not know: an SSE stream that opens with the acknowledgement, then
 * carries the full DetailedTask of a listed task on every change. Changes come from the `tasks`
 * bus, so a change made on another node is pushed too. The standard headers and the declared extension are checked as for any 2026 request.
 */
import type { ServerResponse } from "node:http";
import { SUBSCRIPTION_ID_META_KEY } from "@modelcontextprotocol/server";
import type { Claw } from "../../src/claw/claw.js";
import type { FixtureTasks } from "./conformance-tools.js";
import {
  declaresTasks,
  detailedTask,
  findTask,
  MISSING_CAPABILITY,
  REQUIRED_TASKS,
  type WireTask,
} from "./ext-tasks.js";
import { followTaskChanges } from "./task-changes.js";

/** Task ids one subscription may follow. */
export const MAX_LISTEN_TASKS = 100;
const KEEPALIVE_MS = 15_000;

/** A JSON-RPC request body as parsed. */
export interface ListenBody {
  id?: unknown;
  method?: unknown;
  params?: { notifications?: { taskIds?: unknown }; _meta?: Record<string, unknown> };
}

/** True for a subscriptions/listen that asks for task notifications. */
export function isTaskListen(body: unknown): body is ListenBody {
  const b = body as ListenBody | null;
  return b?.method === "subscriptions/listen" && b.params?.notifications?.taskIds !== undefined && "id" in b;
}

function reject(res: ServerResponse, id: unknown, status: number, code: number, message: string, data?: unknown) {
  const body = JSON.stringify({ jsonrpc: "2.0", id, error: { code, message, ...(data ? { data } : {}) } });
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/** Serves one task subscription on `res` until the client goes away or the mount closes. */
export async function serveTaskListen(
  claw: Claw,
  body: ListenBody,
  headers: Record<string, string | string[] | undefined>,
  res: ServerResponse,
  fixtures: FixtureTasks | undefined,
): Promise<void> {
  const meta = body.params?._meta;
  const version = meta?.["io.modelcontextprotocol/protocolVersion"];
  const headerVersion = headers["mcp-protocol-version"];
  if (headerVersion === undefined || headerVersion !== version) {
    return reject(res, body.id, 400, -32020, "Bad Request: MCP-Protocol-Version header missing or not the body's");
  }
  if (headers["mcp-method"] !== "subscriptions/listen") {
    return reject(res, body.id, 400, -32020, "Bad Request: Mcp-Method header missing or not the body's method");
  }
  if (!declaresTasks(meta)) {
    return reject(res, body.id, 400, MISSING_CAPABILITY, "Missing required client capability", REQUIRED_TASKS);
  }
  const ids = body.params?.notifications?.taskIds;
  if (!Array.isArray(ids) || ids.length > MAX_LISTEN_TASKS || !ids.every((i) => typeof i === "string")) {
    return reject(res, body.id, 200, -32602, `Invalid params: taskIds is a list of at most ${MAX_LISTEN_TASKS} ids`);
  }
  const visible: string[] = [];
  for (const id of new Set(ids as string[])) {
    if (fixtures?.get(id) || (await findTask(claw, id))) visible.push(id);
  }
  const stamp = { [SUBSCRIPTION_ID_META_KEY]: body.id };
  const write = (method: string, params: Record<string, unknown>) => {
    if (!res.writableEnded) {
      res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method, params })}\n\n`);
    }
  };
  // Sends are serialised per task, newest state last: a slow read never overtakes a later one.
  const chains = new Map<string, Promise<void>>();
  const push = (taskId: string) => {
    const next = (chains.get(taskId) ?? Promise.resolve()).then(async () => {
      const fixture = fixtures?.get(taskId);
      const t = fixture ? undefined : await findTask(claw, taskId);
      const task: WireTask | undefined = fixture ?? (t ? await detailedTask(claw, t) : undefined);
      if (task) write("notifications/tasks", { ...task, _meta: stamp });
    });
    chains.set(
      taskId,
      next.catch(() => {}),
    );
  };
  // Followed before the stream is answered: a refusal (the claw shutting down) is still a plain error.
  const listed = new Set(visible);
  const offs = [followTaskChanges(claw, (taskId) => listed.has(taskId), push)];
  if (fixtures) offs.push(fixtures.listen((taskId) => listed.has(taskId) && push(taskId)));
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache, no-transform",
    "x-accel-buffering": "no",
  });
  write("notifications/subscriptions/acknowledged", { notifications: { taskIds: visible }, _meta: stamp });
  for (const taskId of visible) push(taskId); // the state now: a change just before the listen is not lost
  const keepalive = setInterval(() => res.writableEnded || res.write(": keepalive\n\n"), KEEPALIVE_MS);
  keepalive.unref();
  await new Promise<void>((resolve) => res.once("close", resolve));
  clearInterval(keepalive);
  for (const off of offs) off();
}
