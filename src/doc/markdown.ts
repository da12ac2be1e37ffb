/** The Markdown guide served at GET /doc and by the `doc` operation, generated from the registry. */

import { ClawError, ERROR_TABLE, type ErrorCode } from "../core/errors.js";
import { closest } from "../core/suggest.js";
import { type CatalogEntry, catalog } from "../ops/catalog.js";
import type { AnyOpDef, OpGroup } from "../ops/registry.js";
import { effectsLine, scopeLine } from "./effects-text.js";
import { fillVars, type GuideConfig, guideVars, serverSection } from "./guide-context.js";
import { CONTRACT_SECTIONS } from "./guide-sections.js";
import { INTRO, TRANSPORTS } from "./guide-text.js";
import { propertiesTable, resultTable, ShapeIndex } from "./schema-table.js";

const GROUP_TITLES: Record<OpGroup, string> = {
  bus: "Bus",
  bash: "Bash",
  session: "Sessions",
  task: "Tasks",
  approval: "Approvals",
  schedule: "Schedules",
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
    ([code, e]) => `| \`${code}\` | ${e.status} | ${e.retryable ? "yes" : "no"} | ${e.meaning.replace(/\|/g, "\\|")} |`,
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

/**
 * The example of one operation: its curl line when the section is read alone (`?op=`); in the
 * whole guide, only the request body (every curl line would repeat the same URL and headers,
 * which "Calling an operation" gives once: ~12 KB of the guide).
 */
function exampleFor(entry: CatalogEntry, url: string, alone: boolean): string[] {
  if (alone) return ["Example:", "", curlFor(entry, url), ""];
  return [
    "Example body of `POST /do`:",
    "",
    "```json",
    JSON.stringify({ op: entry.name, args: entry.example }),
    "```",
    "",
  ];
}

function opSection(entry: CatalogEntry, def: AnyOpDef, url: string, shapes: ShapeIndex, alone: boolean): string {
  const parts = [`### \`${entry.name}\``, "", entry.summary, ""];
  if (entry.aliases.length) parts.push(`Aliases: ${entry.aliases.map((a) => `\`${a}\``).join(", ")}.`, "");
  if (def.notes) parts.push(def.notes, "");
  parts.push(effectsLine(entry.flags), scopeLine(entry.scope), "");
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
  } else parts.push(...exampleFor(entry, url, alone));
  return parts.join("\n");
}

/** Which part of the guide to render: all of it, one operation, or one section. */
export interface GuideSelection {
  /** One operation's section (name or alias). */
  op?: string;
  /** One section by name (see {@link guideSectionNames}). */
  section?: string;
}

type SectionRenderer = (ops: readonly AnyOpDef[], config: GuideConfig) => string;

const SECTIONS: Record<string, SectionRenderer> = {
  intro: () => INTRO,
  server: (_ops, config) => serverSection(config),
  errors: () => errorTable(),
  operations: (ops) => contents(ops),
  transports: () => TRANSPORTS,
  ...Object.fromEntries(Object.entries(CONTRACT_SECTIONS).map(([name, text]) => [name, () => text])),
};

/** Names `?section=` takes, in the guide's order. */
export function guideSectionNames(): string[] {
  return Object.keys(SECTIONS);
}

function opByName(ops: readonly AnyOpDef[], name: string): AnyOpDef {
  const def = ops.find((o) => o.name === name || o.aliases?.includes(name));
  if (def) return def;
  const suggestions = closest(
    name,
    ops.flatMap((o) => [o.name, ...(o.aliases ?? [])]),
  );
  const meant = suggestions.length > 0 ? ` (did you mean ${suggestions.join(", ")}?)` : "";
  throw new ClawError("unknown_op", `unknown operation "${name}"${meant}; GET /doc lists them`, {
    op: name,
    suggestions,
  });
}

/**
 * The guide for a server with `config` (its defaults, limits and access; `config.url` in curl
 * examples), or one part of it. An unknown `op` is `unknown_op`, an unknown `section`
 * `not_found`, each naming the closest names.
 */
export function renderGuide(ops: readonly AnyOpDef[], config: GuideConfig, select: GuideSelection = {}): string {
  const entries = catalog(ops);
  const vars: Record<string, string> = {
    ...guideVars(config),
    SECTIONS: guideSectionNames()
      .map((n) => `\`${n}\``)
      .join(", "),
  };
  const shapes = new ShapeIndex();
  const opText = (def: AnyOpDef, alone = false) =>
    opSection(entries.find((e) => e.name === def.name)!, def, vars.URL!, shapes, alone);
  if (select.op !== undefined && select.section !== undefined)
    throw new ClawError("invalid_args", "give op or section, not both", {
      issues: [{ path: "section", message: "op and section exclude each other" }],
    });
  if (select.op !== undefined) return fillVars(opText(opByName(ops, select.op), true), vars);
  if (select.section !== undefined) {
    const render = Object.hasOwn(SECTIONS, select.section) ? SECTIONS[select.section] : undefined;
    if (!render) {
      const suggestions = closest(select.section, guideSectionNames());
      throw new ClawError(
        "not_found",
        `no guide section "${select.section}"; sections: ${guideSectionNames().join(", ")}`,
        { section: select.section, suggestions },
      );
    }
    return fillVars(render(ops, config), vars);
  }
  const out = Object.values(SECTIONS).map((render) => render(ops, config));
  out.push(
    "## Operations",
    "",
    'Every operation with its arguments (defaults applied when omitted), result, errors and an example request body (`POST /do` as in "Calling an operation"; `GET /doc?op=<name>` gives one operation with its curl line).',
    "",
  );
  for (const group of Object.keys(GROUP_TITLES) as OpGroup[]) {
    const inGroup = ops.filter((o) => o.group === group);
    if (inGroup.length === 0) continue;
    out.push(`## ${GROUP_TITLES[group]} operations`, "");
    for (const def of inGroup) out.push(opText(def));
  }
  return fillVars(out.join("\n"), vars);
}
