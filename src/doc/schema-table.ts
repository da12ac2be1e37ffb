/** Renders a JSON Schema object's properties as a Markdown argument table. */

type Schema = Record<string, unknown>;

/** A short type label for a JSON Schema node, e.g. `string`, `number | string`, `object[]`. */
export function typeLabel(s: Schema | undefined): string {
  if (!s) return "any";
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" \\| ");
  if (s.const !== undefined) return JSON.stringify(s.const);
  const union = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (union) return union.map(typeLabel).join(" \\| ");
  const t = s.type;
  if (t === "array") return `${typeLabel(s.items as Schema | undefined)}[]`;
  if (Array.isArray(t)) return t.join(" \\| ");
  if (typeof t === "string") return t === "integer" ? "integer" : t;
  return "any";
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

/** A Markdown table of the top-level properties of an object schema (empty text when none). */
export function propertiesTable(schema: Schema): string {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const names = Object.keys(props);
  if (names.length === 0) return "_No arguments._\n";
  const rows = names.map((name) => {
    const p = props[name]!;
    const def = p.default !== undefined ? `\`${JSON.stringify(p.default)}\`` : required.has(name) ? "**required**" : "optional";
    return `| \`${name}\` | ${cell(typeLabel(p))} | ${def} | ${cell(String(p.description ?? ""))} |`;
  });
  return ["| field | type | default | meaning |", "|---|---|---|---|", ...rows, ""].join("\n");
}
