/**
 * Session operations: start, prompt, steer, queue, abort, compact, settings, fork, delete; the
 * ones that only read are in session-reads.ts, and `sessionOps` lists both in catalog order.
 * Every "session" argument is `sessionId`, `sessionKey`, or `session` (either one), so a caller
 * can keep its own continuity name instead of storing our id. Schemas of sessions, messages and
 * run results live in src/agent/session-schemas.ts.
 */

import { z } from "zod";
import { waitUnlessGone } from "../agent/caller-wait.js";
import { forkSession } from "../agent/session-fork.js";
import { ensureSessionArgsSchema, refOf, runResultSchema, sessionSchema, withRef } from "../agent/session-schemas.js";
import { approvalPolicySchema } from "../approvals/approval-schema.js";
import { defineOp } from "./registry.js";
import {
  exportSessionOp,
  getLastAssistantTextOp,
  getMessagesOp,
  getSessionStatsOp,
  getStateOp,
  listSessionsOp,
  SESSION_EXAMPLE,
} from "./session-reads.js";

const messageText = z.string().min(1).describe("The user's message");
const EX = SESSION_EXAMPLE;

export const startSessionOp = defineOp({
  name: "start_session",
  group: "session",
  flags: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  summary: "Start a session bound to a bus, or return the existing one for a known sessionKey.",
  notes:
    "Starting with an existing `sessionKey` returns that session unchanged. Fails with `provider_auth_missing` (naming the variable) when the provider has no API key, and with `invalid_args` for a provider that is neither known nor the server's.",
  input: ensureSessionArgsSchema.extend({
    approval: approvalPolicySchema
      .optional()
      .describe(
        "Approval policy of the agent's bash calls in this session (also set on an existing one). Default: the server's (serve --approval)",
      ),
  }),
  output: sessionSchema,
  example: {
    sessionKey: "demo",
    name: "Demo",
    approval: { mode: "rules", rules: [{ match: "\\brm\\b", decision: "ask" }] },
  },
  errors: ["provider_auth_missing", "invalid_args", "bus_reserved"],
  handle: "session.start",
  handler: async ({ approval, ...args }, { services }) => {
    const { sessions } = services;
    const existing = args.sessionKey ? await sessions.store.find({ sessionKey: args.sessionKey }) : undefined;
    sessions.checkProvider(args.provider ?? existing?.provider);
    const session = existing ?? (await sessions.ensure(args));
    if (approval) await services.approvals.setSessionPolicy(session.sessionId, approval);
    return session;
  },
});

export const promptOp = defineOp({
  name: "prompt",
  group: "session",
  flags: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  summary: "Send a user message and wait for the run to end; returns its status, final text, usage and counts.",
  notes:
    'While the session is busy, the prompt is stored and runs in its turn (after the run, task or compaction ahead of it, also after a restart). With `behavior` "steer" (delivered at the next turn boundary) or "follow_up" (delivered when the run would end) it joins the active run instead and waits for that run. A run that fails still returns, with `status: "error"` and `error` (`model_incomplete`, `provider_error` with `details.providerCode`, …). If the caller goes away the run continues.',
  input: withRef({
    message: messageText,
    behavior: z
      .enum(["steer", "follow_up"])
      .optional()
      .describe("Join the active agent run instead of waiting for a run of its own. Default: a run of its own"),
  }),
  output: runResultSchema,
  example: { ...EX, message: "List the files in the current directory" },
  errors: ["provider_auth_missing", "not_found"],
  handle: "session.prompt",
  handler: async (args, { services, signal }) => {
    const s = services.sessions;
    const { sessionId } = await s.get(refOf(args));
    return waitUnlessGone(s.prompt(sessionId, args.message, args.behavior), signal);
  },
});

function queueOp<const N extends "steer" | "follow_up", const M extends string>(name: N, method: M, summary: string) {
  return defineOp({
    name,
    group: "session",
    flags: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
    summary,
    notes:
      "Returns once the message is stored: it survives a restart and is delivered exactly once. When no run is active it waits for the next run (see clear_queue).",
    input: withRef({ message: messageText }),
    output: z.object({
      queued: z.boolean(),
      pending: z.number().int().describe("Messages of this kind now waiting"),
      running: z.boolean().describe("A run is active and will pick it up"),
    }),
    example: { ...EX, message: name === "steer" ? "Stop and summarise what you have" : "Then write it to notes.txt" },
    errors: ["not_found"],
    handle: `session.${method}` as const,
    handler: async (args, { services }) =>
      services.sessions.enqueue((await services.sessions.get(refOf(args))).sessionId, name, args.message),
  });
}

export const steerOp = queueOp(
  "steer",
  "steer",
  "Queue a message delivered at the next turn boundary of the active run (tool calls not yet started are skipped).",
);
export const followUpOp = queueOp(
  "follow_up",
  "followUp",
  "Queue a message delivered when the active run would otherwise end.",
);

export const abortOp = defineOp({
  name: "abort",
  group: "session",
  flags: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  summary:
    "Abort what the session is doing: the model stream stops, running bash is killed, a compaction ends without changing the history.",
  notes:
    "Runs waiting behind it (queued prompts, tasks) start next; queued steering and follow-ups stay queued. With several nodes, a run on another node is aborted there: the answer comes once it has stopped (`node_unreachable` if that node does not answer).",
  input: withRef({}),
  output: z.object({ aborted: z.boolean().describe("False when the session was idle") }),
  example: EX,
  errors: ["not_found", "node_unreachable"],
  handle: "session.abort",
  handler: async (args, { services }) => ({
    aborted: await services.sessions.abort((await services.sessions.get(refOf(args))).sessionId),
  }),
});

export const clearQueueOp = defineOp({
  name: "clear_queue",
  group: "session",
  flags: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  summary: "Drop pending steering and follow-up messages.",
  input: withRef({}),
  output: z.object({ cleared: z.number().int().describe("Messages dropped") }),
  example: EX,
  errors: ["not_found"],
  handle: "session.clearQueue",
  handler: async (args, { services }) => ({
    cleared: await services.sessions.clearQueue((await services.sessions.get(refOf(args))).sessionId),
  }),
});

export const setModelOp = defineOp({
  name: "set_model",
  group: "session",
  flags: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  summary: "Change the session's model (and provider) for its next model call.",
  input: withRef({
    model: z.string().min(1).describe("Model name"),
    provider: z.string().min(1).optional().describe("Provider. Default: unchanged"),
  }),
  output: sessionSchema,
  example: { ...EX, model: "openai/gpt-5-mini" },
  errors: ["not_found", "provider_auth_missing", "invalid_args"],
  handle: "session.setModel",
  handler: async (args, { services }) =>
    services.sessions.setModel((await services.sessions.get(refOf(args))).sessionId, args.model, args.provider),
});

export const setSessionNameOp = defineOp({
  name: "set_session_name",
  group: "session",
  flags: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  summary: "Rename the session.",
  input: withRef({ name: z.string().describe("New display name") }),
  output: sessionSchema,
  example: { ...EX, name: "Renamed demo" },
  errors: ["not_found"],
  handle: "session.setName",
  handler: async (args, { services }) =>
    services.sessions.setName((await services.sessions.get(refOf(args))).sessionId, args.name),
});

export const forkOp = defineOp({
  name: "fork",
  group: "session",
  flags: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  summary: "Create a new session with this one's settings and its history up to a message (default: all of it).",
  input: withRef({
    messageId: z.string().optional().describe("Copy history up to and including this message. Default: everything"),
    newSessionKey: z.string().min(1).max(200).optional().describe("Key of the new session. Default: its id"),
  }),
  output: sessionSchema,
  example: { ...EX, newSessionKey: "demo-fork" },
  errors: ["not_found", "invalid_args"],
  handle: "session.fork",
  handler: async (args, { services }) => forkSession(services.sessions, await services.sessions.get(refOf(args)), args),
});

export const compactOp = defineOp({
  name: "compact",
  group: "session",
  flags: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  summary: "Ask the model to summarise the history; later model calls get the summary instead of the older messages.",
  notes:
    "get_messages still returns every message, the summary included (role `summary`). While a run is active the compaction waits for its turn; prompts sent meanwhile run after it. `abort` stops it and leaves the history unchanged.",
  input: withRef({ instructions: z.string().optional().describe("What the summary should focus on") }),
  output: z.object({
    summary: z.string(),
    messagesCompacted: z.number().int().describe("Messages the summary replaces in the context"),
  }),
  example: EX,
  errors: ["provider_auth_missing", "provider_error", "model_incomplete", "cancelled", "not_found"],
  handle: "session.compact",
  handler: async (args, { services }) => {
    const session = await services.sessions.get(refOf(args));
    const { summary, messagesCompacted } = await services.sessions.compact(session.sessionId, args.instructions);
    return { summary, messagesCompacted };
  },
});

export const deleteSessionOp = defineOp({
  name: "delete_session",
  group: "session",
  flags: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  summary: "Delete the session with its messages (an active run is aborted first).",
  notes: "Deleting an unknown session returns `deleted: false`, so a retried delete is safe.",
  input: withRef({}),
  output: z.object({ deleted: z.boolean() }),
  example: { sessionKey: "no-such-session" },
  handle: "session.delete",
  handler: async (args, { services }) => {
    const session = await services.sessions.store.find(refOf(args));
    return { deleted: session ? await services.sessions.delete(session.sessionId) : false };
  },
});

/** Session operations. */
export const sessionOps = [
  startSessionOp,
  promptOp,
  steerOp,
  followUpOp,
  abortOp,
  clearQueueOp,
  getStateOp,
  getMessagesOp,
  listSessionsOp,
  setModelOp,
  setSessionNameOp,
  forkOp,
  compactOp,
  getSessionStatsOp,
  getLastAssistantTextOp,
  exportSessionOp,
  deleteSessionOp,
] as const;
