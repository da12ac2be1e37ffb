/**
 * The MCP server of revision 2026-07-28 (stateless: one instance per HTTP request, built by the
 * SDK v2's createMcpHandler): the registry's tools, the resources, and the tasks extension over
 * tsclaw tasks. `run_task` and `prompt` answer a CreateTaskResult to a request that declares
 * the extension, once the task is stored; tasks/get, tasks/update and tasks/cancel serve any
 * tsclaw task. tasks/list and tasks/result do not exist in this revision (method not found).
 */
import {
  type CallToolResult,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
  type Tool,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import type { Claw } from "../../src/claw/claw.js";
import { VERSION } from "../../src/core/version.js";
import { OPS } from "../../src/ops/index.js";
import { callFixture, FIXTURE_TOOLS, type FixtureTasks } from "./conformance-tools.js";
import {
  answerInputs,
  declaresTasks,
  detailedTask,
  findTask,
  REQUIRED_TASKS,
  TASKS_EXTENSION,
  type WireTask,
} from "./ext-tasks.js";
import { startProgress } from "./progress.js";
import { GUIDE_URI, TASK_URI_TEMPLATE, taskIdOf } from "./resources.js";
import { TASK_TOOL, toolsOf } from "./tool-list.js";
import { toToolResult } from "./tool-result.js";

/** What a modern server needs besides the claw. */
export interface ModernServerFeatures {
  /** Serve the conformance fixture tools (test stores), as --mcp-test-tools asks. Default: undefined */
  fixtures?: FixtureTasks;
  /** Interval of progress heartbeats during long calls, in ms. Default: 5000 */
  progressIntervalMs?: number;
}

const INSTRUCTIONS =
  "tsclaw: every operation is a tool named as the operation. Read the resource tsclaw://guide (or call the doc tool). " +
  "With the tasks extension declared, run_task and prompt answer a task handle (the durable tsclaw task): follow it " +
  "with tasks/get or subscriptions/listen. Without it, poll run_task with check_task, which waits server-side.";

/** Tools that answer a CreateTaskResult to a declaring request. */
const TASK_CAPABLE = new Set([TASK_TOOL, "prompt"]);

type Args = Record<string, unknown>;

function envelopeOf(ctx: ServerContext): Record<string, unknown> | undefined {
  return (ctx.mcpReq as { envelope?: Record<string, unknown> }).envelope;
}

function requireTasks(ctx: ServerContext): void {
  if (!declaresTasks(envelopeOf(ctx))) {
    throw new MissingRequiredClientCapabilityError(REQUIRED_TASKS, "Missing required client capability");
  }
}

function unknownTask(taskId: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Failed to retrieve task: Task not found: ${taskId}`);
}

/** The modern tool list: the registry's tools, task-capable ones marked optional for the extension. */
function modernTools(fixtures: boolean): Tool[] {
  const tools = toolsOf(OPS).map((t) => ({
    ...t,
    execution: { taskSupport: TASK_CAPABLE.has(t.name) ? "optional" : "forbidden" },
  })) as Tool[];
  return fixtures ? [...tools, ...FIXTURE_TOOLS] : tools;
}

/** A stored task as the CreateTaskResult that hands it to the client. */
async function createTaskResult(claw: Claw, taskId: string): Promise<CallToolResult> {
  const t = await findTask(claw, taskId);
  if (!t) throw new ProtocolError(ProtocolErrorCode.InternalError, `task ${taskId} vanished right after it was stored`);
  const { result: _r, inputRequests: _i, error: _e, ...task } = await detailedTask(claw, t);
  return { resultType: "task", ...task } as unknown as CallToolResult;
}

/** `prompt` as a run task of its session: the session must be named by key (a task's session is). */
async function promptAsTask(claw: Claw, args: Args): Promise<string | undefined> {
  if (args.behavior !== undefined || typeof args.message !== "string") return undefined;
  let sessionKey = typeof args.sessionKey === "string" ? args.sessionKey : undefined;
  if (sessionKey === undefined && typeof args.sessionId === "string") {
    const s = await claw.do({ op: "get_state", args: { sessionId: args.sessionId } }, { transport: "mcp" });
    sessionKey = s.ok ? ((s.result as { sessionKey?: string }).sessionKey ?? undefined) : undefined;
  }
  if (sessionKey === undefined) return undefined;
  const r = await claw.do({ op: TASK_TOOL, args: { prompt: args.message, sessionKey } }, { transport: "mcp" });
  return r.ok ? (r.result as { taskId: string }).taskId : undefined;
}

async function callTool(claw: Claw, name: string, args: Args, ctx: ServerContext, heartbeatMs: number) {
  if (declaresTasks(envelopeOf(ctx)) && TASK_CAPABLE.has(name)) {
    if (name === TASK_TOOL) {
      const r = await claw.do({ op: name, args }, { transport: "mcp" });
      if (!r.ok) return toToolResult(r);
      return createTaskResult(claw, (r.result as { taskId: string }).taskId);
    }
    const taskId = await promptAsTask(claw, args);
    if (taskId !== undefined) return createTaskResult(claw, taskId);
  }
  const progressToken = (ctx.mcpReq._meta as { progressToken?: string | number } | undefined)?.progressToken;
  const stop =
    progressToken === undefined
      ? () => {}
      : startProgress(
          claw,
          name,
          args,
          (report) => {
            ctx.mcpReq
              .notify({ method: "notifications/progress", params: { progressToken, ...report } })
              .catch(() => {});
          },
          heartbeatMs,
        );
  try {
    // The request's signal ends with the client's POST: the call ends as on a disconnect (bash killed).
    return toToolResult(await claw.do({ op: name, args }, { transport: "mcp", signal: ctx.mcpReq.signal }));
  } finally {
    stop();
  }
}

/** Creates the 2026-07-28 server for one request. */
export function createModernServer(claw: Claw, features: ModernServerFeatures = {}): Server {
  const { fixtures } = features;
  const heartbeatMs = features.progressIntervalMs ?? 5000;
  const tools = modernTools(fixtures !== undefined);
  const names = new Set(tools.map((t) => t.name));
  const server = new Server(
    { name: "tsclaw", version: VERSION },
    {
      capabilities: {
        tools: { listChanged: false },
        resources: { subscribe: true, listChanged: false },
        extensions: { [TASKS_EXTENSION]: {} },
      },
      instructions: INSTRUCTIONS,
    },
  );
  server.setRequestHandler("tools/list", () => ({ tools }));
  server.setRequestHandler("tools/call", async (request, ctx) => {
    const { name, arguments: args = {} } = request.params;
    if (!names.has(name)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found; tools/list lists them`);
    }
    if (fixtures?.serves(name)) return callFixture(fixtures, name, args, ctx, declaresTasks(envelopeOf(ctx)));
    return callTool(claw, name, args, ctx, heartbeatMs);
  });

  server.setRequestHandler("resources/list", () => ({
    resources: [{ uri: GUIDE_URI, name: "guide", title: "tsclaw guide", mimeType: "text/markdown" }],
  }));
  server.setRequestHandler("resources/templates/list", () => ({
    resourceTemplates: [
      { uriTemplate: TASK_URI_TEMPLATE, name: "task", title: "tsclaw task", mimeType: "application/json" },
    ],
  }));
  server.setRequestHandler("resources/read", async (request) => {
    const { uri } = request.params;
    if (uri === GUIDE_URI) return { contents: [{ uri, mimeType: "text/markdown", text: claw.doc() }] };
    const taskId = taskIdOf(uri);
    const r =
      taskId === undefined ? undefined : await claw.do({ op: "get_task", args: { taskId, include: ["timeline"] } });
    if (!r?.ok) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Resource not found: ${uri}`);
    return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(r.result) }] };
  });

  const taskIdParams = z.object({ taskId: z.string() }).passthrough();
  const taskOf = async (taskId: string): Promise<WireTask> => {
    const fixture = fixtures?.get(taskId);
    if (fixture) return fixture;
    const t = await findTask(claw, taskId);
    if (!t) throw unknownTask(taskId);
    return detailedTask(claw, t);
  };
  server.setRequestHandler("tasks/get", { params: taskIdParams }, async (params, ctx) => {
    requireTasks(ctx);
    return (await taskOf(params.taskId)) as unknown as Record<string, unknown>;
  });
  server.setRequestHandler("tasks/update", { params: taskIdParams }, async (params, ctx) => {
    requireTasks(ctx);
    // The SDK lifts inputResponses out of params (the multi-round-trip field) into the context.
    const raw = (params as { inputResponses?: unknown }).inputResponses ?? ctx.mcpReq.inputResponses;
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Invalid params: inputResponses must be an object");
    }
    const responses = raw as Record<string, { action?: unknown; content?: unknown }>;
    if (fixtures?.get(params.taskId)) {
      fixtures.answer(params.taskId, responses);
      return {};
    }
    const t = await findTask(claw, params.taskId);
    if (!t) throw unknownTask(params.taskId);
    await answerInputs(claw, t, responses);
    return {};
  });
  server.setRequestHandler("tasks/cancel", { params: taskIdParams }, async (params, ctx) => {
    requireTasks(ctx);
    if (fixtures?.get(params.taskId)) {
      fixtures.cancel(params.taskId);
      return {};
    }
    const t = await findTask(claw, params.taskId);
    if (!t) throw unknownTask(params.taskId);
    // Cooperative: a task that already ended stays as it ended; the ack is the same.
    await claw.do({ op: "cancel_task", args: { taskId: params.taskId } }, { transport: "mcp" });
    return {};
  });
  return server;
}
