/** The JSON Schema catalog of every operation, derived from the registry's zod schemas. */
import { z } from "zod";
import type { AnyOpDef } from "./registry.js";

/** One catalog entry. */
export interface CatalogEntry {
  name: string;
  group: string;
  summary: string;
  aliases: string[];
  streamingOnly: boolean;
  errors: string[];
  example: unknown;
  input: Record<string, unknown>;
  output: Record<string, unknown>;
}

const cache = new WeakMap<readonly AnyOpDef[], CatalogEntry[]>();

/** JSON Schema of a zod schema, as a client sends it (input) or receives it (output). */
export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const js = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as Record<string, unknown>;
  delete js.$schema;
  return js;
}

/** The catalog, computed once per registry. */
export function catalog(ops: readonly AnyOpDef[]): CatalogEntry[] {
  let entries = cache.get(ops);
  if (!entries) {
    entries = ops.map((op) => ({
      name: op.name,
      group: op.group,
      summary: op.summary,
      aliases: [...(op.aliases ?? [])],
      streamingOnly: op.streamingOnly ?? false,
      errors: [...(op.errors ?? [])],
      example: op.example,
      input: jsonSchemaOf(op.input, "input"),
      output: jsonSchemaOf(op.output, "output"),
    }));
    cache.set(ops, entries);
  }
  return entries;
}
