/** The Markdown guide served at GET /doc and by the `doc` operation, generated from the registry. */
import { ERROR_TABLE } from "../errors.js";
import { catalog, type CatalogEntry } from "../catalog.js";
import type { AnyOpDef, OpGroup } from "../registry.js";
import { INTRO } from "./guide-text.js";
import { SECTIONS } from "./guide-sections.js";
import { propertiesTable } from "./schema-table.js";

const GROUP_TITLES: Record<OpGroup, string> = {
  bus: "Bus",
  bash: "Bash",
  session: "Sessions",
  task: "Tasks",
  continuity: "Continuity and memory",
  meta: "Meta",
};

function errorTable(): string {
  const rows = Object.entries(ERROR_TABLE).map(([code, e]) => `| \`${code}\` | ${e.status} | ${e.retryable ? "yes" : "no"} |`);
  return ["## Error codes", "", "| code | HTTP status | retryable |", "|---|---|---|", ...rows, ""].join("\n");
}

function curlFor(entry: CatalogEntry, url: string): string {
  const body = JSON.stringify({ op: entry.name, args: entry.example });
  return ["```sh", `curl -s ${url}/do -H 'Content-Type: application/json' -d '${body.replace(/'/g, "'\\''")}'`, "```"].join("\n");
}

function opSection(entry: CatalogEntry, def: AnyOpDef, url: string): string {
  const parts = [`### \`${entry.name}\``, "", entry.summary, ""];
  if (entry.aliases.length) parts.push(`Aliases: ${entry.aliases.map((a) => `\`${a}\``).join(", ")}.`, "");
  if (def.notes) parts.push(def.notes, "");
  parts.push("Arguments:", "", propertiesTable(entry.input));
  parts.push("Result:", "", propertiesTable(entry.output));
  if (entry.errors.length) parts.push(`Errors besides the generic ones: ${entry.errors.map((c) => `\`${c}\``).join(", ")}.`, "");
  if (entry.streamingOnly) parts.push("Streaming transports only (WebSocket, stdio); over HTTP it returns `unsupported_on_transport`.", "");
  else parts.push("Example:", "", curlFor(entry, url), "");
  return parts.join("\n");
}

/** The whole guide. `url` is used in curl examples. */
export function renderGuide(ops: readonly AnyOpDef[], url = "http://localhost:8000"): string {
  const entries = catalog(ops);
  const out = [INTRO.replaceAll("{URL}", url), errorTable()];
  for (const section of SECTIONS) out.push(section.replaceAll("{URL}", url));
  out.push("## Operations", "");
  for (const group of Object.keys(GROUP_TITLES) as OpGroup[]) {
    const inGroup = ops.filter((o) => o.group === group);
    if (inGroup.length === 0) continue;
    out.push(`## ${GROUP_TITLES[group]} operations`, "");
    for (const def of inGroup) out.push(opSection(entries.find((e) => e.name === def.name)!, def, url));
  }
  return out.join("\n");
}
