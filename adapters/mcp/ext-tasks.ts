/**
 * The tasks extension of MCP 2026-07-28 (`io.modelcontextprotocol/tasks`) over tsclaw tasks:
 * the DetailedTask of any task (tasks/get and notifications/tasks), its input requests, and
 * what answering them does. The task is the tsclaw task, so it is durable and any node answers.
 */
import type { Claw } from "../../src/claw/claw.js";
import type { Task } from "../../src/tasks/task-schema.js";
import { finalRunResult, mcpStatus } from "./task-map.js";
import { toToolResult } from "./tool-result.js";

/** The extension's identifier. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
/** JSON-RPC code of a request lacking a client capability the server needs. */
export const MISSING_CAPABILITY = -32021;
/** Suggested interval between two tasks/get, in ms (the spec lets the server choose). */
export const POLL_INTERVAL_MS = 2000;

/** One entry of `inputRequests`: a server-to-client request as the client would receive it. */
export interface InputRequest {
  method: "elicitation/create";
  params: { mode: "form"; message: string; requestedSchema: Record<string, unknown> };
}

/** A client's answer to one input request (an ElicitResult). */
export interface InputResponse {
  action?: unknown;
  content?: unknown;
}

/** The wire task of the extension: epoch milliseconds become ISO 8601 strings, ttl is unlimited. */
export interface WireTask {
  taskId: string;
  status: "working" | "input_required" | "completed" | "cancelled" | "failed";
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: null;
  pollIntervalMs: number;
  inputRequests?: Record<string, InputRequest>;
  result?: Record<string, unknown>;
  error?: Record<string, unknown>;
}

/** True when a request's per-request capabilities (`_meta`) declare the extension. */
export function declaresTasks(envelope: Record<string, unknown> | undefined): boolean {
  const caps = envelope?.["io.modelcontextprotocol/clientCapabilities"] as { extensions?: unknown } | undefined;
  const ext = caps?.extensions;
  return typeof ext === "object" && ext !== null && TASKS_EXTENSION in ext;
}

/** The data of a -32021 error naming the extension. */
export const REQUIRED_TASKS = { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } };

/**
 * Key of the input request of a needs_human/blocked task: the version its current wait began at
 * (the timeline's entry of the status change), so the key holds while the run's progress moves
 * the version on, and an answered question is not asked again until the task waits anew. The
 * task's own version when its timeline is not at hand (`findTask` reads it).
 */
export function humanKey(t: Pick<Task, "version" | "status" | "timeline">): string {
  return `human-${waitStart(t) ?? t.version}`;
}

/** The version of the first of the timeline's last entries that have the task's status now. */
function waitStart(t: Pick<Task, "status" | "timeline">): number | undefined {
  const list = t.timeline ?? [];
  let start: number | undefined;
  for (let i = list.length - 1; i >= 0 && list[i]!.status === t.status; i--) start = list[i]!.version;
  return start;
}

/** The form asking a person for the message a needs_human/blocked task waits for. */
function humanRequest(t: Task): InputRequest {
  const why = t.latestUpdate?.text ?? (t.status === "blocked" ? "the task is blocked" : "the task needs a human");
  return {
    method: "elicitation/create",
    params: {
      mode: "form",
      message: `Task "${t.title}" waits for you: ${why}. Your message goes to its session as a follow-up.`,
      requestedSchema: {
        type: "object",
        properties: { message: { type: "string", title: "Message to the agent" } },
        required: ["message"],
      },
    },
  };
}

/** What an input request shows of a pending approval (`approval_list`'s items). */
interface PendingApproval {
  approvalId: string;
  script: string;
  cwd?: string;
  reason: string;
}

/**
 * Pending approvals of a task (`approval_list {taskId, status: "pending"}`) as input requests
 * keyed by approvalId, each a form `{decision: approve|deny, note}`. Only a task's first page
 * (50) is asked at once; a run waits on one approval at a time, so there is rarely more than one.
 */
export async function approvalRequests(claw: Claw, t: Task): Promise<Record<string, InputRequest>> {
  if (t.status !== "needs_human" && t.status !== "blocked") return {}; // only a held task waits on one
  const r = await claw.do(
    { op: "approval_list", args: { taskId: t.taskId, status: "pending", limit: 50 } },
    { transport: "mcp" },
  );
  if (!r.ok) return {};
  const list = (r.result as { approvals: PendingApproval[] }).approvals;
  return Object.fromEntries(list.map((a) => [a.approvalId, approvalRequest(a)]));
}

/** The form of one pending approval: the command, where it runs, and why it needs a human. */
export function approvalRequest(a: PendingApproval): InputRequest {
  return {
    method: "elicitation/create",
    params: {
      mode: "form",
      message: `Approve this command? ${a.script}${a.cwd ? ` (in ${a.cwd})` : ""}: it needs approval by ${a.reason}`,
      requestedSchema: {
        type: "object",
        properties: { decision: { type: "string", enum: ["approve", "deny"] }, note: { type: "string" } },
        required: ["decision"],
      },
    },
  };
}

/**
 * Keys this claw has answered (a human key is answered once; its task's next version asks
 * again), per claw: two claws in one process answer for their own tasks.
 */
const answeredBy = new WeakMap<Claw, Set<string>>();
const ANSWERED_MAX = 10_000;

function answeredOf(claw: Claw): Set<string> {
  let set = answeredBy.get(claw);
  if (!set) {
    set = new Set();
    answeredBy.set(claw, set);
  }
  return set;
}

function remember(claw: Claw, key: string): void {
  const answered = answeredOf(claw);
  answered.add(key);
  if (answered.size > ANSWERED_MAX) answered.delete(answered.values().next().value as string);
}

/** The outstanding input requests of a task: its pending approvals, else its human question. */
export async function inputRequestsOf(claw: Claw, t: Task): Promise<Record<string, InputRequest>> {
  const approvals = await approvalRequests(claw, t);
  if (Object.keys(approvals).length > 0) return approvals;
  // A work task without a session has nobody to deliver an answer to: it is not asked.
  if ((t.status !== "needs_human" && t.status !== "blocked") || (!t.sessionId && !t.sessionKey)) return {};
  const key = humanKey(t);
  return answeredOf(claw).has(`${t.taskId}/${key}`) ? {} : { [key]: humanRequest(t) };
}

/** The result a run_task call would have given at the task's end; a run that failed is a tool error. */
function finalResult(t: Task): Record<string, unknown> {
  const result = toToolResult({ id: null, ok: true, result: finalRunResult(t) }) as Record<string, unknown>;
  if (t.status !== "error") return result;
  const error = t.error ?? { code: "run_failed", message: "the run ended with an error" };
  return { content: [{ type: "text", text: JSON.stringify({ error, task: t }) }], isError: true };
}

/** A tsclaw task as the extension's DetailedTask. */
export async function detailedTask(claw: Claw, t: Task): Promise<WireTask> {
  let status = mcpStatus(t.status);
  const message = t.latestUpdate?.text ?? t.error?.message;
  const base = {
    taskId: t.taskId,
    createdAt: new Date(t.createdAt).toISOString(),
    lastUpdatedAt: new Date(t.updatedAt).toISOString(),
    ttlMs: null,
    pollIntervalMs: POLL_INTERVAL_MS,
    ...(message !== undefined ? { statusMessage: message } : {}),
  };
  if (status === "failed") status = "completed"; // a run's error is a tool-level failure, not a protocol one
  if (status === "completed") return { ...base, status, result: finalResult(t) };
  const inputRequests = await inputRequestsOf(claw, t);
  if (Object.keys(inputRequests).length > 0) return { ...base, status: "input_required", inputRequests };
  // needs_human whose question was answered: the agent has the answer and works again.
  if (status === "input_required") return { ...base, status: "working" };
  return { ...base, status };
}

/** Reads a tsclaw task; null when there is none the caller may see. */
export async function findTask(claw: Claw, taskId: string): Promise<Task | null> {
  const r = await claw.do({ op: "get_task", args: { taskId, include: ["timeline"] } }, { transport: "mcp" });
  return r.ok ? (r.result as Task) : null;
}

/**
 * Answers a task's input requests: an approval key decides the approval; the current human
 * key sends the message to the task's session as a follow-up. Unknown or answered keys are
 * ignored, as the extension says.
 */
export async function answerInputs(claw: Claw, t: Task, responses: Record<string, InputResponse>): Promise<void> {
  const outstanding = await inputRequestsOf(claw, t);
  const current = humanKey(t);
  for (const [key, response] of Object.entries(responses)) {
    if (typeof response !== "object" || response === null) continue;
    const human = current in outstanding && asksCurrentQuestion(claw, t, key);
    if (!human && !(key in outstanding)) continue;
    const content = (response.content ?? {}) as Record<string, unknown>;
    const accepted = response.action === "accept";
    if (human) {
      if (!accepted || typeof content.message !== "string" || content.message.trim() === "") continue;
      const ref = t.sessionId ? { sessionId: t.sessionId } : { sessionKey: t.sessionKey ?? "" };
      const r = await claw.do({ op: "follow_up", args: { ...ref, message: content.message } }, { transport: "mcp" });
      if (r.ok) {
        remember(claw, `${t.taskId}/${key}`);
        remember(claw, `${t.taskId}/${current}`);
      }
      continue;
    }
    await decideApproval(claw, key, accepted && content.decision === "approve" ? "approve" : "deny", content.note);
  }
}

/**
 * True when `key` answers the task's human question: its current key, or a key of an earlier
 * version nobody answered (a form shown before a long wait's timeline was cut, or by a server
 * that keyed questions by the task's version): a person answering the form they were shown must
 * not be ignored.
 */
function asksCurrentQuestion(claw: Claw, t: Task, key: string): boolean {
  const version = /^human-(\d+)$/.exec(key)?.[1];
  if (version === undefined || Number(version) > t.version) return false;
  return !answeredOf(claw).has(`${t.taskId}/${key}`);
}

/** Decides one pending approval (`decline`/`cancel` deny) through `approval_decide`. */
async function decideApproval(claw: Claw, approvalId: string, decision: "approve" | "deny", note: unknown) {
  const args = { approvalId, decision, ...(typeof note === "string" ? { note } : {}) };
  await claw.do({ op: "approval_decide", args }, { transport: "mcp" });
}
