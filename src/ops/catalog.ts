/** The JSON Schema catalog of every operation, derived from the registry's zod schemas. */
import { z } from "zod";
import { leanSchema } from "./json-schema.js";
import { type AnyOpDef, opFlagsSchema, opScopeSchema } from "./registry.js";

/** One catalog entry: an operation as clients see it. */
export const catalogEntrySchema = z.object({
  name: z.string(),
  group: z.string(),
  summary: z.string(),
  flags: opFlagsSchema.describe("What a call may do; MCP tool annotations carry the same flags"),
  scope: opScopeSchema,
  aliases: z.array(z.string()),
  streamingOnly: z.boolean(),
  kind: z.enum(["call", "stream"]).describe('"stream": the answer opens a stream of event frames on the connection'),
  handle: z.string().nullable().describe('The typed handle method: "group.method" is claw.group.method(args)'),
  errors: z.array(z.string()).describe("Error codes besides the generic ones"),
  example: z.unknown(),
  input: z.record(z.string(), z.unknown()).describe("JSON Schema of the arguments"),
  output: z.record(z.string(), z.unknown()).describe("JSON Schema of the result"),
});

/** One catalog entry. */
export type CatalogEntry = z.infer<typeof catalogEntrySchema>;

const cache = new WeakMap<readonly AnyOpDef[], CatalogEntry[]>();

/**
 * JSON Schema of a zod schema, as a client sends it (input) or receives it (output), in the
 * lean, warning-free form of {@link leanSchema} (no `type` arrays, no empty schemas).
 */
export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const js = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as Record<string, unknown>;
  delete js.$schema;
  return leanSchema(js);
}

/**
 * What deriving the typed handles needs of each operation: names, kinds, and the names of the
 * input's properties (whether it takes a session). Read from the zod shapes, since building every
 * JSON Schema of the catalog costs a few hundred milliseconds that `createClaw()` (and so every
 * `serve` and CLI start) would otherwise pay before the first call; /doc and `ops` build them
 * when first asked.
 */
export function handleEntries(ops: readonly AnyOpDef[]) {
  return ops.map((op) => ({
    name: op.name,
    handle: op.handle,
    streamingOnly: op.streamingOnly ?? false,
    kind: op.kind ?? "call",
    input: {
      properties: op.input instanceof z.ZodObject ? op.input.shape : jsonSchemaOf(op.input, "input").properties,
    },
  }));
}

/** The catalog, computed once per registry. */
export function catalog(ops: readonly AnyOpDef[]): CatalogEntry[] {
  let entries = cache.get(ops);
  if (!entries) {
    entries = ops.map((op) => ({
      name: op.name,
      group: op.group,
      summary: op.summary,
      flags: { ...op.flags },
      scope: op.scope ?? "none",
      aliases: [...(op.aliases ?? [])],
      streamingOnly: op.streamingOnly ?? false,
      kind: op.kind ?? "call",
      handle: op.handle,
      errors: [...(op.errors ?? [])],
      example: op.example,
      input: jsonSchemaOf(op.input, "input"),
      output: jsonSchemaOf(op.output, "output"),
    }));
    cache.set(ops, entries);
  }
  return entries;
}
