/** The Markdown guide served at GET /doc and by the `doc` operation, generated from the registry. */

import { type CatalogEntry, catalog } from "../catalog.js";
import { ERROR_TABLE, type ErrorCode } from "../errors.js";
import type { AnyOpDef, OpGroup } from "../registry.js";
import { ERROR_MEANING } from "./error-text.js";
import { SECTIONS } from "./guide-sections.js";
import { INTRO } from "./guide-text.js";
import { propertiesTable, resultTable, ShapeIndex } from "./schema-table.js";

const GROUP_TITLES: Record<OpGroup, string> = {
  bus: "Bus",
  bash: "Bash",
  session: "Sessions",
  task: "Tasks",
  continuity: "Continuity and memory",
  meta: "Meta",
};

/** Codes any operation may return, whatever it does. */
const GENERIC_ERRORS: readonly ErrorCode[] = [
  "invalid_json",
  "invalid_request",
  "invalid_args",
  "unknown_op",
  "unauthorized",
  "forbidden",
  "payload_too_large",
  "storage_unavailable",
  "shutting_down",
  "internal",
];

function errorTable(): string {
  const rows = Object.entries(ERROR_TABLE).map(
    ([code, e]) =>
      `| \`${code}\` | ${e.status} | ${e.retryable ? "yes" : "no"} | ${(ERROR_MEANING[code as ErrorCode] ?? "").replace(/\|/g, "\\|")} |`,
  );
  return [
    "## Error codes",
    "",
    "Each code has one HTTP status. `retryable` says whether the same request may succeed later unchanged.",
    `Any operation may fail with ${GENERIC_ERRORS.map((c) => `\`${c}\``).join(", ")}; each operation lists the others it may return.`,
    "",
    "| code | HTTP status | retryable | meaning and what to do |",
    "|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}

function contents(ops: readonly AnyOpDef[]): string {
  const out = ["## Operations at a glance", "", "| operation | group | what it does |", "|---|---|---|"];
  for (const group of Object.keys(GROUP_TITLES) as OpGroup[]) {
    for (const op of ops.filter((o) => o.group === group))
      out.push(`| \`${op.name}\` | ${group} | ${op.summary.replace(/\|/g, "\\|")} |`);
  }
  return [...out, ""].join("\n");
}

function curlFor(entry: CatalogEntry, url: string): string {
  const body = JSON.stringify({ op: entry.name, args: entry.example });
  return [
    "```sh",
    `curl -s ${url}/do -H "Authorization: Bearer $CLAW_TOKEN" -H 'Content-Type: application/json' -d '${body.replace(/'/g, "'\\''")}'`,
    "```",
  ].join("\n");
}

function opSection(entry: CatalogEntry, def: AnyOpDef, url: string, shapes: ShapeIndex): string {
  const parts = [`### \`${entry.name}\``, "", entry.summary, ""];
  if (entry.aliases.length) parts.push(`Aliases: ${entry.aliases.map((a) => `\`${a}\``).join(", ")}.`, "");
  if (def.notes) parts.push(def.notes, "");
  parts.push("Arguments:", "", propertiesTable(entry.input, shapes, `\`${entry.name}\` arguments`));
  const sameResult = shapes.firstSeen(entry.output, `the result of \`${entry.name}\``);
  if (sameResult) parts.push(`Result: the same fields as ${sameResult}.`, "");
  else parts.push("Result:", "", resultTable(entry.output, shapes, `the result of \`${entry.name}\``));
  if (entry.errors.length)
    parts.push(`Errors besides the generic ones: ${entry.errors.map((c) => `\`${c}\``).join(", ")}.`, "");
  if (entry.streamingOnly) {
    parts.push(
      "Streaming transports only (WebSocket, stdio); over HTTP it returns `unsupported_on_transport`. Example frame:",
      "",
      "```json",
      JSON.stringify({ op: entry.name, args: entry.example, id: 1 }),
      "```",
      "",
    );
  } else parts.push("Example:", "", curlFor(entry, url), "");
  return parts.join("\n");
}

/** The whole guide. `url` is used in curl examples. Default: "http://localhost:8000" */
export function renderGuide(ops: readonly AnyOpDef[], url = "http://localhost:8000"): string {
  const entries = catalog(ops);
  const shapes = new ShapeIndex();
  const out = [INTRO.replaceAll("{URL}", url), errorTable(), contents(ops)];
  for (const section of SECTIONS) out.push(section.replaceAll("{URL}", url));
  out.push(
    "## Operations",
    "",
    "Every operation with its arguments (defaults applied when omitted), result, errors and an example.",
    "",
  );
  for (const group of Object.keys(GROUP_TITLES) as OpGroup[]) {
    const inGroup = ops.filter((o) => o.group === group);
    if (inGroup.length === 0) continue;
    out.push(`## ${GROUP_TITLES[group]} operations`, "");
    for (const def of inGroup) out.push(opSection(entries.find((e) => e.name === def.name)!, def, url, shapes));
  }
  return out.join("\n");
}
