/** Renders JSON Schema object properties as Markdown tables (arguments and results), nested fields as dotted rows. */

type Schema = Record<string, unknown>;

/** How deep nested object fields are expanded (`a.b.c` is depth 3). */
const MAX_DEPTH = 3;

function variants(s: Schema): Schema[] | undefined {
  return (s.anyOf ?? s.oneOf) as Schema[] | undefined;
}

/** A short type label for a JSON Schema node, e.g. `string`, `number | string`, `("a" | "b")[]`. */
export function typeLabel(s: Schema | undefined): string {
  if (!s) return "any";
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (s.const !== undefined) return JSON.stringify(s.const);
  const union = variants(s);
  if (union) {
    const labels = [...new Set(union.map(typeLabel))];
    return labels.length >= 6 && labels.includes("object") && labels.includes("null") ? "any" : labels.join(" | ");
  }
  if (typeof s.$ref === "string") return "object";
  const t = s.type;
  if (t === "array") {
    const item = typeLabel(s.items as Schema | undefined);
    return item.includes(" | ") ? `(${item})[]` : `${item}[]`;
  }
  if (Array.isArray(t)) return t.join(" | ");
  if (typeof t === "string") return t;
  return "any";
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

/** The object schema to expand under a property, if any: the object itself, an array's items, or a nullable object. */
function expandable(s: Schema): { schema: Schema; suffix: string } | undefined {
  const union = variants(s);
  if (union) {
    const objects = union.filter((u) => u.type !== "null");
    return objects.length === 1 ? expandable(objects[0]!) : undefined;
  }
  if (s.type === "object" && s.properties) return { schema: s, suffix: "" };
  if (s.type === "array" && s.items) {
    const inner = expandable(s.items as Schema);
    return inner ? { schema: inner.schema, suffix: `[]${inner.suffix}` } : undefined;
  }
  return undefined;
}

interface Row {
  name: string;
  schema: Schema;
  required: boolean;
  /** Where the same nested object was already described. */
  seenAt?: string;
}

/**
 * Remembers large object shapes already expanded in a guide, so a shape used by several
 * operations (a Task, a Session) is spelled out once and referred to afterwards.
 */
export class ShapeIndex {
  private readonly seen = new Map<string, string>();

  /** Returns where `schema` was first described, or records `where` as that place. */
  firstSeen(schema: Schema, where: string): string | undefined {
    if (Object.keys((schema.properties ?? {}) as object).length < 6) return undefined; // small shapes are cheaper to repeat
    const key = JSON.stringify(schema);
    const at = this.seen.get(key);
    if (at === undefined) this.seen.set(key, where);
    return at;
  }
}

function rows(schema: Schema, prefix: string, depth: number, shapes: ShapeIndex | undefined, where: string): Row[] {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const out: Row[] = [];
  for (const [name, p] of Object.entries(props)) {
    const full = `${prefix}${name}`;
    const row: Row = { name: full, schema: p, required: required.has(name) };
    out.push(row);
    const nested = depth < MAX_DEPTH ? expandable(p) : undefined;
    if (!nested) continue;
    row.seenAt = shapes?.firstSeen(nested.schema, `${where} → \`${full}\``);
    if (!row.seenAt) out.push(...rows(nested.schema, `${full}${nested.suffix}.`, depth + 1, shapes, where));
  }
  return out;
}

function meaning(row: Row): string {
  const text = String(row.schema.description ?? "");
  return row.seenAt ? `${text}${text ? " " : ""}(fields as in ${row.seenAt})` : text;
}

/** A Markdown table of an input object schema: field, type, default (or required), meaning. */
export function propertiesTable(schema: Schema, shapes?: ShapeIndex, where = ""): string {
  const list = rows(schema, "", 1, shapes, where);
  if (list.length === 0) return "_No arguments._\n";
  const lines = list.map(({ name, schema: p, required, seenAt }) => {
    const def = p.default !== undefined ? `\`${JSON.stringify(p.default)}\`` : required ? "**required**" : "optional";
    return `| \`${name}\` | ${cell(typeLabel(p))} | ${def} | ${cell(meaning({ name, schema: p, required, seenAt }))} |`;
  });
  return ["| field | type | default | meaning |", "|---|---|---|---|", ...lines, ""].join("\n");
}

/** A Markdown table of a result object schema: field, type, meaning (optional fields marked). */
export function resultTable(schema: Schema, shapes?: ShapeIndex, where = ""): string {
  const list = rows(schema, "", 1, shapes, where);
  if (list.length === 0) return `Type: ${typeLabel(schema)}.\n`;
  const lines = list.map(
    (r) => `| \`${r.name}\` | ${cell(typeLabel(r.schema))}${r.required ? "" : " (optional)"} | ${cell(meaning(r))} |`,
  );
  return ["| field | type | meaning |", "|---|---|---|", ...lines, ""].join("\n");
}
