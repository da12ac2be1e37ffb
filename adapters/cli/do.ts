/** `tsclaw do <op> [json]`: calls one operation on a running server and prints its result. */
import { readFileSync } from "node:fs";
import { closest } from "../../src/core/suggest.js";
import { OPS } from "../../src/ops/index.js";
import type { CommandLine, PositionalSpec } from "./flags.js";
import { flagsHelp } from "./help.js";
import { envelopeError, fetchFailure, remoteOf } from "./remote.js";

/** Arguments of `tsclaw do`. */
export const DO_POSITIONALS: readonly PositionalSpec[] = [{ name: "op", required: true }, { name: "json" }];

/** Help of `tsclaw do`. */
export const DO_HELP = `Usage: tsclaw do <op> [json] [flags]

POSTs {"op": <op>, "args": <json>} to the server's /do and prints the result as JSON on stdout.
On failure prints one line "tsclaw: <code>: <message>" on stderr and exits 1.
<json> is the arguments object; "-" reads it from stdin; omitted means {}.

Examples:
  tsclaw do out '{"payload": {"hello": 1}}'
  tsclaw do read '{"bus": "thebus", "after": 0}'
  echo '{"script": "uptime"}' | tsclaw do bash -

Flags:
${flagsHelp("do")}`;

/**
 * When no server answers, a mistyped operation would otherwise go unnoticed until one does: say
 * so from this version's own catalog (the server, when reachable, answers `unknown_op` itself).
 */
function unknownLocally(op: string): string {
  const names = OPS.flatMap((o) => [o.name, ...(o.aliases ?? [])]);
  if (names.includes(op)) return "";
  const meant = closest(op, names);
  return `; "${op}" is not an operation either${meant.length > 0 ? ` (did you mean ${meant.join(", ")}?)` : ""}`;
}

/** Runs `do`; resolves with the exit code. */
export async function doCommand(cl: CommandLine): Promise<number> {
  const [op, json] = cl.positionals as [string, string | undefined];
  let opArgs: unknown;
  if (json !== undefined) {
    const text = json === "-" ? readFileSync(0, "utf8") : json;
    try {
      opArgs = JSON.parse(text);
    } catch (err) {
      process.stderr.write(`tsclaw do: the arguments are not JSON: ${(err as Error).message}\n`);
      return 2;
    }
  }
  const { url, headers, authNote } = remoteOf(cl);
  let res: Response;
  try {
    res = await fetch(`${url}/do`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(opArgs === undefined ? { op, id: 1 } : { op, args: opArgs, id: 1 }),
    });
  } catch (err) {
    process.stderr.write(`tsclaw: ${fetchFailure(url, err)}${unknownLocally(op)}\n`);
    return 1;
  }
  const text = await res.text();
  let body: { ok?: boolean; result?: unknown } | undefined;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (body?.ok !== true) {
    process.stderr.write(`tsclaw: ${envelopeError(res.status, text, authNote)}\n`);
    return 1;
  }
  const pretty = cl.get<boolean>("pretty") || process.stdout.isTTY;
  process.stdout.write(`${JSON.stringify(body.result, null, pretty ? 2 : undefined)}\n`);
  return 0;
}
