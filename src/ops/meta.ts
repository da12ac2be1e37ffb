/** Meta operations: the catalog and the guide. */
import { z } from "zod";
import { catalog } from "../catalog.js";
import { renderGuide } from "../doc/markdown.js";
import { defineOp } from "../registry.js";

export const opsOp = defineOp({
  name: "ops",
  group: "meta",
  summary: "The catalog: every operation with its summary, aliases and JSON Schemas of input and output.",
  input: z.object({}).strict(),
  output: z.object({
    ops: z.array(
      z.object({
        name: z.string(),
        group: z.string(),
        summary: z.string(),
        aliases: z.array(z.string()),
        streamingOnly: z.boolean(),
        errors: z.array(z.string()),
        example: z.unknown(),
        input: z.record(z.string(), z.unknown()),
        output: z.record(z.string(), z.unknown()),
      }),
    ),
  }),
  example: {},
  handler: (_args, { services }) => ({ ops: catalog(services.ops) }),
});

export const docOp = defineOp({
  name: "doc",
  group: "meta",
  summary: "The Markdown user's guide (the same text as GET /doc).",
  input: z.object({}).strict(),
  output: z.object({ markdown: z.string() }),
  example: {},
  handler: (_args, { services }) => ({ markdown: renderGuide(services.ops, services.config.url) }),
});

/** Meta operations. */
export const metaOps = [opsOp, docOp] as const;
