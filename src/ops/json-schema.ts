/**
 * JSON Schema as every client tool accepts it, without warnings: zod writes a nullable field as
 * a `type` array and "any JSON value" as a schema with no keyword, which MCP Inspector and
 * form-building clients flag (98 warnings over the catalog); and every integer carries the
 * safe-integer bounds, which say nothing a JSON number does not and cost ~50 bytes each. Here a
 * `type` array becomes `anyOf` (each branch with the keywords of its type), a schema with no
 * keyword gets an explicit `anyOf` of every JSON type, and the safe-integer bounds go.
 */

type Schema = Record<string, unknown>;

/** Keywords that only annotate: a schema with nothing else accepts any value. */
const ANNOTATIONS = new Set(["description", "title", "default", "examples", "deprecated", "readOnly", "writeOnly"]);

/** The keywords that constrain values of one JSON type, for splitting a `type` array. */
const KEYWORDS_OF: Record<string, readonly string[]> = {
  string: ["minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType"],
  number: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  integer: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  array: ["items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"],
  object: [
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
  ],
};

const ANY_JSON = ["string", "number", "boolean", "object", "array", "null"].map((type) => ({ type }));

/** Keywords whose value is a schema, and those whose value maps names or positions to schemas. */
const SUBSCHEMA = ["items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else"];
const SUBSCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const SUBSCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"];

function isSchema(v: unknown): v is Schema {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A copy of `schema` in the lean, warning-free form described above. */
export function leanSchema(schema: Schema): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (SUBSCHEMA.includes(k) && isSchema(v)) out[k] = leanSchema(v);
    else if (SUBSCHEMA_MAPS.includes(k) && isSchema(v))
      out[k] = Object.fromEntries(Object.entries(v).map(([n, s]) => [n, isSchema(s) ? leanSchema(s) : s]));
    else if (SUBSCHEMA_LISTS.includes(k) && Array.isArray(v)) out[k] = v.map((s) => (isSchema(s) ? leanSchema(s) : s));
    else out[k] = v;
  }
  if (out.minimum === Number.MIN_SAFE_INTEGER) delete out.minimum;
  if (out.maximum === Number.MAX_SAFE_INTEGER) delete out.maximum;
  if (Array.isArray(out.type)) return splitTypes(out, out.type as string[]);
  if (Object.keys(out).every((k) => ANNOTATIONS.has(k))) return { ...out, anyOf: ANY_JSON };
  return out;
}

/** `{type: [a, b], …}` as `{anyOf: [{type: a, …a's keywords}, {type: b, …}], …the rest}`. */
function splitTypes(schema: Schema, types: string[]): Schema {
  const { type: _types, ...rest } = schema;
  const typed = new Set(types.flatMap((t) => KEYWORDS_OF[t] ?? []));
  const shared: Schema = {};
  for (const [k, v] of Object.entries(rest)) if (!typed.has(k)) shared[k] = v;
  const branches = types.map((type) => {
    const branch: Schema = { type };
    for (const k of KEYWORDS_OF[type] ?? []) if (k in rest) branch[k] = rest[k];
    return branch;
  });
  return { ...shared, anyOf: branches };
}
