/** Meta operations: the catalog and the guide. */
import { z } from "zod";
import { guideSectionNames, renderGuide } from "../doc/markdown.js";
import { catalog, catalogEntrySchema } from "./catalog.js";
import { defineOp } from "./registry.js";
import { streamTicketOp } from "./stream-ticket.js";

export const opsOp = defineOp({
  name: "ops",
  group: "meta",
  flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  scope: "any",
  summary: "The catalog: every operation with its summary, aliases and JSON Schemas of input and output.",
  input: z.object({}).strict(),
  output: z.object({
    ops: z.array(catalogEntrySchema),
  }),
  example: {},
  handle: null,
  handler: (_args, { services }) => ({ ops: catalog(services.ops) }),
});

export const docOp = defineOp({
  name: "doc",
  group: "meta",
  flags: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  scope: "any",
  summary: "The Markdown user's guide (the same text as GET /doc), or one operation's or one section's part of it.",
  notes:
    "`op` returns one operation's section (as `GET /doc?op=<name>`), `section` one section of the guide (as `GET /doc?section=<name>`); without either, the whole guide.",
  input: z
    .object({
      op: z.string().optional().describe("One operation's section, by name or alias"),
      section: z
        .string()
        .optional()
        .describe(`One section by name: ${guideSectionNames().join(", ")}`),
    })
    .strict(),
  output: z.object({ markdown: z.string() }),
  example: { section: "bus" },
  errors: ["not_found"],
  handle: null,
  handler: (args, { services }) => ({ markdown: renderGuide(services.ops, services.config, args) }),
});

export const cancelCallOp = defineOp({
  name: "cancel_call",
  group: "meta",
  flags: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  summary: "End a call in flight that was sent with a `callId` in its envelope, as if its caller had gone away.",
  notes:
    "The cancelled call still answers, the way a caller that goes away would see it: a check_task wait ends with the current snapshot, bash is killed, a long-polling read returns. The remote client (`tsclaw/client`) sends it when a call's AbortSignal aborts.",
  input: z
    .object({ callId: z.string().min(16).max(200).describe("The callId of the call's request envelope") })
    .strict(),
  output: z.object({ cancelled: z.boolean().describe("False when no such call was in flight") }),
  example: { callId: "c_0123456789abcdef" },
  handle: null,
  handler: (args, { services }) => ({ cancelled: services.calls.cancel(args.callId) }),
});

/** Meta operations. */
export const metaOps = [opsOp, docOp, cancelCallOp, streamTicketOp] as const;
