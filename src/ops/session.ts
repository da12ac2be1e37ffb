/**
 * Session operations (DESIGN §3, §6). Every "session" argument is `sessionId`, `sessionKey`, or
 * `session` (either one). Schemas of sessions, messages and run results live in
 * src/agent/session-schemas.ts.
 */
import { z } from "zod";
import { waitUnlessGone } from "../agent/caller-wait.js";
import { exportSession } from "../agent/session-export.js";
import { forkSession } from "../agent/session-fork.js";
import { listSessions } from "../agent/session-list.js";
import { messageSchema, refOf, runResultSchema, sessionSchema, withRef } from "../agent/session-schemas.js";
import { busNameSchema, DEFAULT_BUS } from "../bus/bus-name.js";
import { defineOp } from "../registry.js";

const messageText = z.string().min(1).describe("The user's message");
const EX = { sessionKey: "demo" };

export const startSessionOp = defineOp({
  name: "start_session",
  group: "session",
  summary: "Start a session bound to a bus, or return the existing one for a known sessionKey.",
  notes:
    "Starting with an existing `sessionKey` returns that session unchanged. Fails with `provider_auth_missing` (naming the variable) when the provider has no API key.",
  input: z
    .object({
      bus: busNameSchema.default(DEFAULT_BUS).describe('Bus the session publishes to. Default: "thebus"'),
      sessionKey: z.string().min(1).max(200).optional().describe("Your continuity name. Default: the new session's id"),
      name: z.string().optional().describe("Display name"),
      model: z
        .string()
        .min(1)
        .optional()
        .describe("Model. Default: the server's (server_identity.model; the guide's \"This server\" section)"),
      provider: z.string().min(1).optional().describe('"openrouter" or "openai". Default: the server\'s'),
      instructions: z.string().optional().describe("System instructions. Default: the built-in agent instructions"),
      streamText: z.boolean().default(false).describe("Also publish response.output_text.delta events. Default: false"),
    })
    .strict(),
  output: sessionSchema,
  example: { sessionKey: "demo", name: "Demo" },
  errors: ["provider_auth_missing"],
  handler: (args, { services }) => {
    services.sessions.checkProvider(
      args.provider ??
        (args.sessionKey ? services.sessions.store.find({ sessionKey: args.sessionKey })?.provider : undefined),
    );
    return services.sessions.ensure(args);
  },
});

export const promptOp = defineOp({
  name: "prompt",
  group: "session",
  summary: "Send a user message and wait for the run to end; returns its status, final text, usage and counts.",
  notes:
    'While a run is active, `prompt` fails with `session_busy` unless `behavior` is "steer" (delivered at the next turn boundary) or "follow_up" (delivered when the run would end); then it waits for that run. A run that fails still returns, with `status: "error"` and `error`. If the caller goes away the run continues.',
  input: withRef({
    message: messageText,
    behavior: z
      .enum(["steer", "follow_up"])
      .optional()
      .describe("What to do when a run is active. Default: fail with session_busy"),
  }),
  output: runResultSchema,
  example: { ...EX, message: "List the files in the current directory" },
  errors: ["session_busy", "provider_auth_missing", "not_found"],
  handler: async (args, { services, signal }) => {
    const s = services.sessions;
    const session = s.get(refOf(args));
    s.checkProvider(session.provider);
    const active = args.behavior ? s.activeRunResult(session.sessionId) : undefined;
    if (active) {
      const q = s.queuesOf(session.sessionId);
      (args.behavior === "steer" ? q.steering : q.followUp).push(args.message);
      return waitUnlessGone(active, signal);
    }
    return waitUnlessGone(s.run(session.sessionId, args.message), signal);
  },
});

function queueOp<const N extends "steer" | "follow_up">(name: N, queue: "steering" | "followUp", summary: string) {
  return defineOp({
    name,
    group: "session",
    summary,
    notes: "Returns at once. When no run is active the message waits for the next run (see clear_queue).",
    input: withRef({ message: messageText }),
    output: z.object({
      queued: z.boolean(),
      pending: z.number().int().describe("Messages of this kind now waiting"),
      running: z.boolean().describe("A run is active and will pick it up"),
    }),
    example: { ...EX, message: name === "steer" ? "Stop and summarise what you have" : "Then write it to notes.txt" },
    errors: ["not_found"],
    handler: (args, { services }) => {
      const session = services.sessions.get(refOf(args));
      const q = services.sessions.queuesOf(session.sessionId)[queue];
      q.push(args.message);
      return { queued: true, pending: q.length, running: services.sessions.isRunning(session.sessionId) };
    },
  });
}

export const steerOp = queueOp(
  "steer",
  "steering",
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
  summary: "Abort the session's active run: the model stream stops and running bash is killed at once.",
  input: withRef({}),
  output: z.object({ aborted: z.boolean().describe("False when no run was active") }),
  example: EX,
  errors: ["not_found"],
  handler: (args, { services }) => ({ aborted: services.sessions.abort(services.sessions.get(refOf(args)).sessionId) }),
});

export const clearQueueOp = defineOp({
  name: "clear_queue",
  group: "session",
  summary: "Drop pending steering and follow-up messages.",
  input: withRef({}),
  output: z.object({ cleared: z.number().int().describe("Messages dropped") }),
  example: EX,
  errors: ["not_found"],
  handler: (args, { services }) => {
    const q = services.sessions.queuesOf(services.sessions.get(refOf(args)).sessionId);
    const cleared = q.steering.length + q.followUp.length;
    q.steering.length = 0;
    q.followUp.length = 0;
    return { cleared };
  },
});

export const getStateOp = defineOp({
  name: "get_state",
  group: "session",
  summary: "The session with its run state: isRunning, messageCount, pending queue sizes, current run and task.",
  input: withRef({}),
  output: sessionSchema.extend({
    isRunning: z.boolean(),
    messageCount: z.number().int(),
    pending: z.object({ steering: z.number().int(), followUp: z.number().int() }).describe("Queued messages"),
    currentRunId: z.string().nullable(),
    currentTaskId: z.string().nullable(),
  }),
  example: EX,
  errors: ["not_found"],
  handler: (args, { services }) => {
    const s = services.sessions;
    const session = s.get(refOf(args));
    const q = s.queuesOf(session.sessionId);
    const cur = s.current(session.sessionId);
    return {
      ...session,
      isRunning: cur !== undefined,
      messageCount: s.store.counts(session.sessionId).messages,
      pending: { steering: q.steering.length, followUp: q.followUp.length },
      currentRunId: cur?.runId ?? null,
      currentTaskId: cur?.taskId ?? null,
    };
  },
});

export const getMessagesOp = defineOp({
  name: "get_messages",
  group: "session",
  summary: "Read the session's messages in order, with cursor paging (compacted ones included).",
  notes: "Pass the returned `next` as `after` to continue; `hasMore` says whether more messages exist now.",
  input: withRef({
    after: z.number().int().min(0).default(0).describe("Return messages with seq > after. Default: 0"),
    limit: z.number().int().min(1).max(1000).default(200).describe("Max messages, 1-1000. Default: 200"),
  }),
  output: z.object({
    messages: z.array(messageSchema),
    next: z.number().int().describe("Cursor to pass as `after`"),
    hasMore: z.boolean(),
  }),
  example: { ...EX, after: 0, limit: 50 },
  errors: ["not_found"],
  handler: (args, { services }) => {
    const s = services.sessions;
    const session = s.get(refOf(args));
    const page = s.store.messages(session.sessionId, args.after, args.limit + 1);
    const messages = page.slice(0, args.limit);
    return { messages, next: messages.at(-1)?.seq ?? args.after, hasMore: page.length > args.limit };
  },
});

export const listSessionsOp = defineOp({
  name: "list_sessions",
  group: "session",
  summary: "List sessions, newest first, with isRunning; `active: true` lists only those running now.",
  input: z
    .object({
      active: z.boolean().optional().describe("Only sessions with an active run. Default: all"),
      limit: z.number().int().min(1).max(500).default(50).describe("Max sessions, 1-500. Default: 50"),
      cursor: z.string().optional().describe("nextCursor of the previous page"),
    })
    .strict(),
  output: z.object({
    sessions: z.array(sessionSchema.extend({ isRunning: z.boolean() })),
    nextCursor: z.string().nullable(),
  }),
  example: { limit: 20 },
  handler: (args, { services }) => listSessions(services.sessions, args),
});

export const setModelOp = defineOp({
  name: "set_model",
  group: "session",
  summary: "Change the session's model (and provider) for its next model call.",
  input: withRef({
    model: z.string().min(1).describe("Model name"),
    provider: z.string().min(1).optional().describe("Provider. Default: unchanged"),
  }),
  output: sessionSchema,
  example: { ...EX, model: "openai/gpt-5-mini" },
  errors: ["not_found", "provider_auth_missing"],
  handler: (args, { services }) => {
    const session = services.sessions.get(refOf(args));
    if (args.provider !== undefined) services.sessions.checkProvider(args.provider);
    return services.sessions.store.update(session.sessionId, {
      model: args.model,
      ...(args.provider !== undefined ? { provider: args.provider } : {}),
    });
  },
});

export const setSessionNameOp = defineOp({
  name: "set_session_name",
  group: "session",
  summary: "Rename the session.",
  input: withRef({ name: z.string().describe("New display name") }),
  output: sessionSchema,
  example: { ...EX, name: "Renamed demo" },
  errors: ["not_found"],
  handler: (args, { services }) =>
    services.sessions.store.update(services.sessions.get(refOf(args)).sessionId, { name: args.name }),
});

export const forkOp = defineOp({
  name: "fork",
  group: "session",
  summary: "Create a new session with this one's settings and its history up to a message (default: all of it).",
  input: withRef({
    messageId: z.string().optional().describe("Copy history up to and including this message. Default: everything"),
    newSessionKey: z.string().min(1).max(200).optional().describe("Key of the new session. Default: its id"),
  }),
  output: sessionSchema,
  example: { ...EX, newSessionKey: "demo-fork" },
  errors: ["not_found", "invalid_args"],
  handler: (args, { services }) => forkSession(services.sessions, services.sessions.get(refOf(args)), args),
});

export const compactOp = defineOp({
  name: "compact",
  group: "session",
  summary: "Ask the model to summarise the history; later model calls get the summary instead of the older messages.",
  notes:
    "get_messages still returns every message, the summary included (role `summary`). Fails with `session_busy` while a run is active.",
  input: withRef({ instructions: z.string().optional().describe("What the summary should focus on") }),
  output: z.object({
    summary: z.string(),
    messagesCompacted: z.number().int().describe("Messages the summary replaces in the context"),
  }),
  example: EX,
  errors: ["session_busy", "provider_auth_missing", "provider_error", "not_found"],
  handler: async (args, { services }) => {
    const session = services.sessions.get(refOf(args));
    const { summary, messagesCompacted } = await services.sessions.compact(session.sessionId, args.instructions);
    return { summary, messagesCompacted };
  },
});

export const getSessionStatsOp = defineOp({
  name: "get_session_stats",
  group: "session",
  summary: "Counts of messages, tool calls and runs, and tokens from the provider's reported usage.",
  input: withRef({}),
  output: z.object({
    messages: z.number().int(),
    toolCalls: z.number().int(),
    runs: z.number().int(),
    tokens: z.object({ input: z.number().int(), output: z.number().int(), total: z.number().int() }),
  }),
  example: EX,
  errors: ["not_found"],
  handler: (args, { services }) => {
    const s = services.sessions;
    const id = s.get(refOf(args)).sessionId;
    const { messages, toolCalls } = s.store.counts(id);
    const r = s.store.runStats(id);
    return {
      messages,
      toolCalls,
      runs: r.runs,
      tokens: { input: r.input, output: r.output, total: r.input + r.output },
    };
  },
});

export const getLastAssistantTextOp = defineOp({
  name: "get_last_assistant_text",
  group: "session",
  summary: "The newest non-empty assistant text of the session, or null.",
  input: withRef({}),
  output: z.object({ text: z.string().nullable() }),
  example: EX,
  errors: ["not_found"],
  handler: (args, { services }) => ({
    text: services.sessions.store.lastAssistantText(services.sessions.get(refOf(args)).sessionId),
  }),
});

export const exportSessionOp = defineOp({
  name: "export_session",
  group: "session",
  summary: "Export the whole session as Markdown or JSON lines (a session line, then one line per message).",
  input: withRef({
    format: z.enum(["markdown", "jsonl"]).default("markdown").describe('"markdown" or "jsonl". Default: "markdown"'),
  }),
  output: z.object({ content: z.string() }),
  example: { ...EX, format: "markdown" },
  errors: ["not_found"],
  handler: (args, { services }) => {
    const session = services.sessions.get(refOf(args));
    return { content: exportSession(session, services.sessions.store.allMessages(session.sessionId), args.format) };
  },
});

export const deleteSessionOp = defineOp({
  name: "delete_session",
  group: "session",
  summary: "Delete the session with its messages (an active run is aborted first).",
  notes: "Deleting an unknown session returns `deleted: false`, so a retried delete is safe.",
  input: withRef({}),
  output: z.object({ deleted: z.boolean() }),
  example: { sessionKey: "no-such-session" },
  handler: async (args, { services }) => {
    const session = services.sessions.store.find(refOf(args));
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
