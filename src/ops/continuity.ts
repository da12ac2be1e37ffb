/** Continuity operations: server_identity, continuity_context, memory_add, memory_search. */
import { z } from "zod";
import { pageBytesInput } from "../core/byte-page.js";
import { identitySchema } from "../nodes/identity.js";
import type { Services } from "../ops/registry.js";
import { continuityPage } from "../tasks/continuity-page.js";
import { memoryAddInput, memoryEntrySchema, memorySearchInput } from "../tasks/memory-service.js";
import { handoffSchema, taskRowSchema, taskStatusSchema } from "../tasks/task-schema.js";
import { toRow } from "../tasks/task-view.js";
import { defineOp } from "./registry.js";

const serverIdentitySchema = identitySchema.extend({
  node: z.string().describe("This process's node id, new at every start (list_nodes)"),
  ops: z.array(z.string()).describe("Names of every operation"),
  model: z.string().describe("Default model of new sessions and tasks"),
  provider: z.string().describe("Default model provider"),
});

function identityOf(services: Services) {
  const { model, provider } = services.config;
  return { ...services.identity, node: services.nodes.id, ops: services.ops.map((o) => o.name), model, provider };
}

export const serverIdentityOp = defineOp({
  name: "server_identity",
  group: "continuity",
  flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  scope: "any",
  summary:
    "Who this server is: stable instance id, name, version, project, start time, schema version, operation names, default model and provider.",
  notes:
    "Call it before any write and compare the instance and project with what you expect; task_update's `writeContext` must carry them to complete a task.",
  input: z.object({}).strict(),
  output: serverIdentitySchema,
  example: {},
  handle: "continuity.identity",
  handler: (_args, { services }) => identityOf(services),
});

export const continuityContextOp = defineOp({
  name: "continuity_context",
  group: "continuity",
  flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  summary: "Where work stands: this server's identity, open tasks, recent handoffs and recent memory of a project.",
  notes:
    "The start of a worker's procedure: server_identity, then continuity_context; compare instance and project before any write, then expand a task with get_task and claim it at its current version. The answer is a page of at most `maxBytes` of item text (default 4 MiB, as `read`; the first item whatever its size), the three lists filled in that order; when `nextCursor` is not null, call again with it (and the same project, sessionKey and limit) for the rest. Each list gives at most `limit` items over all pages.",
  input: z
    .object({
      project: z.string().min(1).optional().describe("Default: the server's project"),
      sessionKey: z.string().min(1).optional().describe("Only tasks, handoffs and memory of this session"),
      limit: z.number().int().min(1).max(100).default(10).describe("Max items per list, 1-100. Default: 10"),
      maxBytes: pageBytesInput,
      cursor: z.string().max(1000).optional().describe("nextCursor of the previous page"),
    })
    .strict(),
  output: z.object({
    identity: serverIdentitySchema,
    openTasks: z.array(taskRowSchema).describe("todo, in_progress, blocked and needs_human tasks, newest first"),
    recentHandoffs: z.array(
      z.object({
        taskId: z.string(),
        title: z.string(),
        status: taskStatusSchema,
        version: z.number().int(),
        sessionKey: z.string().nullable(),
        handoff: handoffSchema,
        updatedAt: z.number(),
      }),
    ),
    recentMemory: z.array(memoryEntrySchema),
    nextCursor: z
      .string()
      .nullable()
      .describe("Pass as `cursor` for the items this page had no room for; null when every list is complete"),
  }),
  example: { limit: 5 },
  errors: ["invalid_args"],
  handle: "continuity.context",
  handler: async (args, { services }) => {
    const project = args.project ?? services.config.project;
    const page = await continuityPage(services.sql, { ...args, project });
    const now = Date.now();
    return {
      identity: identityOf(services),
      openTasks: page.openTasks.map((t) => toRow(t, now)),
      recentHandoffs: page.handoffTasks.map((t) => ({
        taskId: t.id,
        title: t.title,
        status: t.status,
        version: t.version,
        sessionKey: t.sessionKey,
        handoff: t.handoff!,
        updatedAt: t.updatedAt,
      })),
      recentMemory: page.recentMemory,
      nextCursor: page.nextCursor,
    };
  },
});

export const memoryAddOp = defineOp({
  name: "memory_add",
  group: "continuity",
  flags: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  summary: "Remember a note (decision, fact, pointer) for a project; searchable with memory_search.",
  input: memoryAddInput,
  output: z.object({ memoryId: z.string(), createdAt: z.number(), replayed: z.boolean() }),
  example: { text: "Deploys go through the staging bus first", tags: ["deploy"], idempotencyKey: "note-deploy-1" },
  errors: ["idempotency_conflict"],
  handle: "memory.add",
  handler: (args, { services }) => services.memory.add(args),
});

export const memorySearchOp = defineOp({
  name: "memory_search",
  group: "continuity",
  flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  summary: "Full-text search of a project's memory (SQLite FTS5), best matches first.",
  notes:
    "Any text is a valid query: words are matched (with stemming), punctuation and FTS5 syntax in the query are ignored. Entries matching more of the words rank higher. A page holds at most `limit` entries and at most `maxBytes` of their text (default 4 MiB, as `read`), always at least one; pass `nextCursor` as `cursor` (with the same query) for the next matches.",
  input: memorySearchInput,
  output: z.object({
    results: z.array(
      z.object({
        memoryId: z.string(),
        text: z.string(),
        tags: z.array(z.string()),
        createdAt: z.number(),
        score: z.number().describe("Higher is a better match"),
      }),
    ),
    nextCursor: z.string().nullable().describe("Pass as `cursor` for the next matches; null when there are no more"),
  }),
  example: { query: "deploy staging", limit: 5 },
  handle: "memory.search",
  handler: (args, { services }) => services.memory.search(args),
});

/** Continuity operations. */
export const continuityOps = [serverIdentityOp, continuityContextOp, memoryAddOp, memorySearchOp] as const;
