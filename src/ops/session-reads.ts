/**
 * Session operations that only read (the `session_read` scope lets a run's token call them):
 * state, messages, the session list, stats, the last answer, and the export.
 */

import { z } from "zod";
import { exportSession } from "../agent/session-export.js";
import { listSessions } from "../agent/session-list.js";
import { messageSchema, refOf, sessionSchema, usageSchema, withRef } from "../agent/session-schemas.js";
import { pageBytesInput } from "../core/byte-page.js";
import { defineOp } from "./registry.js";

/** The session reference of the session operations' examples. */
export const SESSION_EXAMPLE = { sessionKey: "demo" };
const EX = SESSION_EXAMPLE;

export const getStateOp = defineOp({
  name: "get_state",
  group: "session",
  flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  scope: "session_read",
  summary: "The session with its run state: what runs now (agent run or compaction), what waits, message count.",
  input: withRef({}),
  output: sessionSchema.extend({
    isRunning: z.boolean(),
    running: z.enum(["agent", "compact"]).nullable().describe("What the session is doing now; null when idle"),
    messageCount: z.number().int(),
    pending: z
      .object({
        steering: z.number().int(),
        followUp: z.number().int(),
        prompts: z.number().int().describe("Prompts stored, waiting for their run"),
      })
      .describe("Queued messages"),
    queuedRuns: z.number().int().describe("Runs, tasks and compactions waiting behind the current one"),
    currentRunId: z.string().nullable(),
    currentTaskId: z.string().nullable(),
  }),
  example: EX,
  errors: ["not_found"],
  handle: "session.state",
  handler: async (args, { services }) => {
    const s = services.sessions;
    const session = await s.get(refOf(args));
    const [state, counts] = await Promise.all([s.state(session.sessionId), s.store.counts(session.sessionId)]);
    return { ...session, ...state, messageCount: counts.messages };
  },
});

export const getMessagesOp = defineOp({
  name: "get_messages",
  group: "session",
  flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  scope: "session_read",
  summary: "Read the session's messages in order, with cursor paging (compacted ones included).",
  notes:
    "A page holds at most `limit` messages and at most `maxBytes` of their text (default 4 MiB, as `read`), always at least one message, so a page of large tool results stays small. Pass the returned `next` as `after` to continue; `hasMore` says whether more messages exist now.",
  input: withRef({
    after: z.number().int().min(0).default(0).describe("Return messages with seq > after. Default: 0"),
    limit: z.number().int().min(1).max(1000).default(200).describe("Max messages, 1-1000. Default: 200"),
    maxBytes: pageBytesInput,
  }),
  output: z.object({
    messages: z.array(messageSchema),
    next: z.number().int().describe("Cursor to pass as `after`"),
    hasMore: z.boolean(),
  }),
  example: { ...EX, after: 0, limit: 50 },
  errors: ["not_found"],
  handle: "session.messages",
  handler: async (args, { services }) => {
    const s = services.sessions;
    const session = await s.get(refOf(args));
    const page = await s.store.messagePage(session.sessionId, args.after, args.limit, args.maxBytes);
    return { ...page, next: page.messages.at(-1)?.seq ?? args.after };
  },
});

export const listSessionsOp = defineOp({
  name: "list_sessions",
  group: "session",
  flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  summary: "List sessions, newest first, with isRunning; `active: true` lists only those running now.",
  notes:
    "A page holds at most `limit` sessions and at most `maxBytes` of their text (a session's instructions may be long), the first session whatever its size; `nextCursor` continues.",
  input: z
    .object({
      active: z.boolean().optional().describe("Only sessions with an active run. Default: all"),
      limit: z.number().int().min(1).max(500).default(50).describe("Max sessions, 1-500. Default: 50"),
      cursor: z.string().optional().describe("nextCursor of the previous page"),
      maxBytes: pageBytesInput,
    })
    .strict(),
  output: z.object({
    sessions: z.array(sessionSchema.extend({ isRunning: z.boolean() })),
    nextCursor: z.string().nullable(),
  }),
  example: { limit: 20 },
  handle: "session.list",
  handler: (args, { services }) => listSessions(services.sessions, args),
});

export const getSessionStatsOp = defineOp({
  name: "get_session_stats",
  group: "session",
  flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  scope: "session_read",
  summary:
    "Counts of messages, tool calls and runs; tokens (cached and reasoning too) and cost as the provider reported them.",
  input: withRef({}),
  output: z.object({
    messages: z.number().int(),
    toolCalls: z.number().int(),
    runs: z.number().int(),
    tokens: usageSchema.describe("Summed over every run and compaction"),
  }),
  example: EX,
  errors: ["not_found"],
  handle: "session.stats",
  handler: async (args, { services }) => {
    const s = services.sessions;
    const id = (await s.get(refOf(args))).sessionId;
    const [{ messages, toolCalls }, { runs, ...t }] = await Promise.all([s.store.counts(id), s.store.runs.stats(id)]);
    return { messages, toolCalls, runs, tokens: { ...t, total: t.input + t.output } };
  },
});

export const getLastAssistantTextOp = defineOp({
  name: "get_last_assistant_text",
  group: "session",
  flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  scope: "session_read",
  summary: "The newest non-empty assistant text of the session, or null.",
  input: withRef({}),
  output: z.object({ text: z.string().nullable() }),
  example: EX,
  errors: ["not_found"],
  handle: "session.lastAssistantText",
  handler: async (args, { services }) => ({
    text: await services.sessions.store.lastAssistantText((await services.sessions.get(refOf(args))).sessionId),
  }),
});

export const exportSessionOp = defineOp({
  name: "export_session",
  group: "session",
  flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  scope: "session_read",
  summary: "Export the whole session as Markdown or JSON lines (a session line, then one line per message).",
  input: withRef({
    format: z.enum(["markdown", "jsonl"]).default("markdown").describe('"markdown" or "jsonl". Default: "markdown"'),
  }),
  output: z.object({ content: z.string() }),
  example: { ...EX, format: "markdown" },
  errors: ["not_found"],
  handle: "session.export",
  handler: async (args, { services }) => {
    const session = await services.sessions.get(refOf(args));
    return {
      content: exportSession(session, await services.sessions.store.allMessages(session.sessionId), args.format),
    };
  },
});
