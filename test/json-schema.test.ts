/**
 * The catalog's JSON Schemas (the `ops` catalog, MCP tools/list) are warning-free for schema
 * tools such as MCP Inspector: no `type` arrays, no schema without a keyword, no safe-integer
 * bounds; and the lean form still says what zod's said.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { catalog, jsonSchemaOf } from "../src/ops/catalog.js";
import { OPS } from "../src/ops/index.js";

type Schema = Record<string, unknown>;

/** Every problem a schema tool would warn about, with its path. */
function warnings(s: unknown, path: string, out: string[] = []): string[] {
  if (typeof s !== "object" || s === null || Array.isArray(s)) return out;
  const schema = s as Schema;
  if (Array.isArray(schema.type)) out.push(`${path}: type array`);
  if (Object.keys(schema).every((k) => ["description", "title", "default", "examples"].includes(k)))
    out.push(`${path}: no keyword`);
  if (schema.maximum === Number.MAX_SAFE_INTEGER) out.push(`${path}: safe-integer bound`);
  for (const k of ["properties", "patternProperties", "$defs"])
    for (const [n, v] of Object.entries((schema[k] as Schema) ?? {})) warnings(v, `${path}.${n}`, out);
  for (const k of ["items", "additionalProperties", "not"]) warnings(schema[k], `${path}.${k}`, out);
  for (const k of ["anyOf", "oneOf", "allOf", "prefixItems"])
    for (const [i, v] of ((schema[k] as unknown[]) ?? []).entries()) warnings(v, `${path}.${k}[${i}]`, out);
  return out;
}

describe("catalog JSON Schema", () => {
  it("has no type arrays, no keyword-less schemas and no safe-integer bounds in any operation", () => {
    const found = catalog(OPS).flatMap((e) => [
      ...warnings(e.input, `${e.name}.input`),
      ...warnings(e.output, `${e.name}.output`),
    ]);
    expect(found).toEqual([]);
  });

  it("keeps the meaning: nullable fields, any-JSON values with their description, bounds of their own type", () => {
    const schema = jsonSchemaOf(
      z.object({
        name: z.string().min(2).nullable(),
        payload: z.unknown().describe("any JSON"),
        count: z.number().int().min(1).nullable(),
      }),
      "input",
    );
    const props = schema.properties as Record<string, Schema>;
    expect(props.name).toEqual({ anyOf: [{ type: "string", minLength: 2 }, { type: "null" }] });
    expect(props.payload).toMatchObject({ description: "any JSON" });
    expect((props.payload!.anyOf as Schema[]).map((b) => b.type)).toEqual([
      "string",
      "number",
      "boolean",
      "object",
      "array",
      "null",
    ]);
    expect(JSON.stringify(props.count)).toContain('"minimum":1');
    expect(JSON.stringify(props.count)).not.toContain(String(Number.MAX_SAFE_INTEGER));
  });
});
