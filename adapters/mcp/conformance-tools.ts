/**
 * Fixture tools of the official MCP conformance suite's 2026-07-28 scenarios (tasks-*,
 * tools-call-error, server-stateless), served only with `--mcp-test-tools`, never otherwise.
 * Their tasks are fixtures too: the suite asks for a tool that sleeps, one that fails, one
 * that asks twice…, none of which is a tsclaw agent run, so they live in this bounded
 * in-memory store; tsclaw's own tasks (run_task, prompt) are durable and never live here.
 */
import { randomUUID } from "node:crypto";
import {
  acceptedContent,
  type CallToolResult,
  inputRequired,
  MissingRequiredClientCapabilityError,
  type ServerContext,
  type Tool,
} from "@modelcontextprotocol/server";
import { type InputRequest, POLL_INTERVAL_MS, REQUIRED_TASKS, type WireTask } from "./ext-tasks.js";

type Args = Record<string, unknown>;
type Support = "forbidden" | "optional" | "required";

const object = (properties: Record<string, unknown> = {}) => ({ type: "object" as const, properties });
const ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

function fixture(name: string, description: string, taskSupport: Support, inputSchema = object()): Tool {
  return {
    name,
    description: `Conformance fixture (served with --mcp-test-tools): ${description}`,
    inputSchema,
    annotations: ANNOTATIONS,
    execution: { taskSupport },
  } as Tool;
}

/** The fixtures' definitions, for tools/list. */
export const FIXTURE_TOOLS: readonly Tool[] = [
  fixture("greet", "answers Hello, {name}! at once", "forbidden", object({ name: { type: "string" } })),
  fixture(
    "slow_compute",
    "a task that sleeps `seconds` then answers",
    "optional",
    object({ seconds: { type: "number" } }),
  ),
  fixture("failing_job", "a task whose tool fails after ~1 s (isError)", "required"),
  fixture("protocol_error_job", "a task that fails with a JSON-RPC error", "optional"),
  fixture("confirm_delete", "a task that asks for one confirmation", "required"),
  fixture("multi_input", "a task that asks two questions at once", "required"),
  fixture("test_tool_with_task", "asks for user_name (input_required), then runs as a task", "required"),
  fixture("test_error_handling", "always answers a tool error", "forbidden"),
  fixture("test_missing_capability", "needs sampling, which a client must declare (-32021)", "forbidden"),
  fixture("test_streaming_elicitation", "answers input_required with one elicitation", "forbidden"),
  fixture("test_logging_tool", "would log, but only at a logLevel the request sets (it sets none here)", "forbidden"),
];
const NAMES = new Set(FIXTURE_TOOLS.map((t) => t.name));
const SUPPORT = new Map(FIXTURE_TOOLS.map((t) => [t.name, (t.execution?.taskSupport ?? "forbidden") as Support]));

const text = (s: string, isError = false): CallToolResult => ({
  content: [{ type: "text", text: s }],
  ...(isError ? { isError } : {}),
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function confirm(message: string, field: string): InputRequest {
  return {
    method: "elicitation/create",
    params: {
      mode: "form",
      message,
      requestedSchema: { type: "object", properties: { [field]: { type: "string" } }, required: [field] },
    },
  };
}

interface Entry {
  task: WireTask;
  timer?: NodeJS.Timeout;
  onAnswers?: (answers: Record<string, Record<string, unknown>>) => void;
  answers: Record<string, Record<string, unknown>>;
}

/** The fixtures' tasks (the newest 1 000). */
export class FixtureTasks {
  private readonly tasks = new Map<string, Entry>();
  private readonly listeners = new Set<(taskId: string) => void>();

  /** Calls `fn` with a task's id after each change; returns the function that stops it. */
  listen(fn: (taskId: string) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(taskId: string): void {
    for (const fn of this.listeners) fn(taskId);
  }

  /** True for a fixture tool's name. */
  serves(name: string): boolean {
    return NAMES.has(name);
  }

  /** A fixture task as tasks/get answers it, or undefined. */
  get(taskId: string): WireTask | undefined {
    const e = this.tasks.get(taskId);
    return e ? structuredClone(e.task) : undefined;
  }

  /** Starts a task in `working`. */
  create(): Entry {
    const now = new Date().toISOString();
    const task: WireTask = {
      taskId: `fixture_${randomUUID()}`,
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: null,
      pollIntervalMs: POLL_INTERVAL_MS,
    };
    const entry: Entry = { task, answers: {} };
    this.tasks.set(task.taskId, entry);
    if (this.tasks.size > 1000) this.drop(this.tasks.keys().next().value as string);
    return entry;
  }

  /** Moves a task on; terminal tasks never change again. */
  set(entry: Entry, change: Partial<WireTask>): void {
    const t = entry.task;
    if (t.status === "completed" || t.status === "failed" || t.status === "cancelled") return;
    const { inputRequests: _i, ...rest } = t;
    entry.task = { ...rest, ...change, lastUpdatedAt: new Date().toISOString() };
    if (change.status !== "working" && change.status !== "input_required") clearTimeout(entry.timer);
    this.changed(t.taskId);
  }

  /** Records answers to outstanding keys; unknown or answered keys are ignored. */
  answer(taskId: string, responses: Record<string, { action?: unknown; content?: unknown }>): void {
    const e = this.tasks.get(taskId);
    const pending = e?.task.inputRequests;
    if (!e || !pending) return;
    for (const [key, r] of Object.entries(responses)) {
      if (!(key in pending) || typeof r !== "object" || r === null) continue;
      e.answers[key] = r.action === "accept" && typeof r.content === "object" && r.content ? (r.content as Args) : {};
      delete pending[key];
    }
    const still = Object.keys(pending).length;
    if (still === 0) e.onAnswers?.(e.answers);
    else {
      e.task = { ...e.task, lastUpdatedAt: new Date().toISOString() };
      this.changed(taskId);
    }
  }

  /** Cancels a running task (a terminal one stays as it is). */
  cancel(taskId: string): void {
    const e = this.tasks.get(taskId);
    if (e) this.set(e, { status: "cancelled", statusMessage: "cancelled by tasks/cancel" });
  }

  private drop(taskId: string): void {
    clearTimeout(this.tasks.get(taskId)?.timer);
    this.tasks.delete(taskId);
  }

  /** Ends every timer (at shutdown). */
  close(): void {
    for (const e of this.tasks.values()) clearTimeout(e.timer);
    this.tasks.clear();
  }
}

function handle(entry: Entry): CallToolResult {
  const { inputRequests: _i, result: _r, error: _e, ...task } = entry.task;
  return { resultType: "task", ...task } as unknown as CallToolResult;
}

function later(store: FixtureTasks, entry: Entry, ms: number, change: Partial<WireTask>): void {
  entry.timer = setTimeout(() => store.set(entry, change), ms);
}

/** Runs a fixture tool; `declared` says whether the request declares the tasks extension. */
export async function callFixture(
  store: FixtureTasks,
  name: string,
  args: Args,
  ctx: ServerContext,
  declared: boolean,
): Promise<CallToolResult> {
  if (SUPPORT.get(name) === "required" && !declared) {
    throw new MissingRequiredClientCapabilityError(REQUIRED_TASKS, "Missing required client capability");
  }
  const seconds = typeof args.seconds === "number" && args.seconds >= 0 ? Math.min(args.seconds, 60) : 1;
  switch (name) {
    case "greet":
      return text(`Hello, ${typeof args.name === "string" ? args.name : "world"}!`);
    case "test_error_handling":
      return text("This tool intentionally returns an error for testing", true);
    case "test_logging_tool":
      return text("nothing logged: the request set no logLevel");
    case "test_missing_capability": {
      const caps = (ctx.mcpReq as { envelope?: Record<string, unknown> }).envelope?.[
        "io.modelcontextprotocol/clientCapabilities"
      ] as { sampling?: unknown } | undefined;
      if (caps?.sampling === undefined) {
        throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { sampling: {} } });
      }
      return text("the client declared sampling");
    }
    case "test_streaming_elicitation":
      return inputRequired({
        inputRequests: { confirm: confirm("Continue?", "confirm") as never },
      }) as unknown as CallToolResult;
    case "slow_compute": {
      const done = text(`Computed after ${seconds} s`);
      if (!declared) {
        await sleep(seconds * 1000);
        return done;
      }
      const e = store.create();
      later(store, e, seconds * 1000, { status: "completed", result: done as Args });
      return handle(e);
    }
    case "failing_job": {
      const e = store.create();
      later(store, e, 1000, { status: "completed", result: text("the job failed", true) as Args });
      return handle(e);
    }
    case "protocol_error_job": {
      const e = store.create();
      const error = { code: -32603, message: "Internal error: the job crashed" };
      later(store, e, 200, { status: "failed", statusMessage: error.message, error });
      return handle(e);
    }
    case "confirm_delete":
    case "multi_input": {
      const e = store.create();
      const keys = name === "confirm_delete" ? ["confirm"] : ["first", "second"];
      const inputRequests = Object.fromEntries(keys.map((k) => [`${k}-${e.task.taskId}`, confirm(`Answer ${k}`, k)]));
      store.set(e, { status: "input_required", inputRequests });
      e.onAnswers = (answers) =>
        store.set(e, { status: "completed", result: text(`Answered: ${JSON.stringify(answers)}`) as Args });
      return handle(e);
    }
    case "test_tool_with_task": {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, "user_name") ?? {};
      const userName = [answer.user_name, answer.name].find((v): v is string => typeof v === "string");
      if (userName === undefined) {
        return inputRequired({
          inputRequests: {
            user_name: inputRequired.elicit({
              message: "What is your name?",
              requestedSchema: {
                type: "object",
                properties: { user_name: { type: "string" } },
                required: ["user_name"],
              },
            }),
          },
        }) as unknown as CallToolResult;
      }
      const e = store.create();
      later(store, e, 200, { status: "completed", result: text(`Hello, ${userName}!`) as Args });
      return handle(e);
    }
  }
  throw new Error(`no fixture ${name}`);
}
