/** Continuity operations: server_identity, continuity_context, memory_add, memory_search. */
import { z } from "zod";
import { defineOp } from "../registry.js";

export const serverIdentityOp = defineOp({
  name: "server_identity",
  group: "continuity",
  summary: "Who this server is: stable instance id, name, version, project, start time, schema version, operation names.",
  input: z.object({}).strict(),
  output: z.object({
    instance: z.string().describe("Stable id of this instance (stored in its database)"),
    name: z.string(),
    version: z.string(),
    project: z.string().describe("Default project of tasks and memory"),
    startedAt: z.number(),
    schemaVersion: z.number().int(),
    ops: z.array(z.string()),
  }),
  example: {},
  handler: (_args, { services }) => ({ ...services.identity, ops: services.ops.map((o) => o.name) }),
});

/** Continuity operations. */
export const continuityOps = [serverIdentityOp] as const;
