/** `tsclaw do <op> [json]`: calls one operation on a running server and prints its result. */
import { readFileSync } from "node:fs";
import type { ParsedArgs } from "./args.js";
import { envelopeError, fetchFailure, REMOTE_FLAGS_HELP, remoteOf } from "./remote.js";

export const DO_HELP = `Usage: tsclaw do <op> [json] [flags]

POSTs {"op": <op>, "args": <json>} to the server's /do and prints the result as JSON on stdout.
On failure prints one line "tsclaw: <code>: <message>" on stderr and exits 1.
<json> is the arguments object; "-" reads it from stdin; omitted means {}.

Examples:
  tsclaw do out '{"payload": {"hello": 1}}'
  tsclaw do read '{"bus": "thebus", "after": 0}'
  echo '{"script": "uptime"}' | tsclaw do bash -

Flags:
${REMOTE_FLAGS_HELP}  --pretty               indent the result (default when stdout is a terminal)
`;

/** Runs `do`; resolves with the exit code. */
export async function doCommand(args: ParsedArgs): Promise<number> {
  const [op, json, ...rest] = args.positionals;
  if (!op || rest.length > 0) {
    process.stderr.write(`tsclaw do: expected <op> [json]; run tsclaw do --help\n`);
    return 2;
  }
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
  const { url, headers } = remoteOf(args);
  let res: Response;
  try {
    res = await fetch(`${url}/do`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(opArgs === undefined ? { op, id: 1 } : { op, args: opArgs, id: 1 }),
    });
  } catch (err) {
    process.stderr.write(`tsclaw: ${fetchFailure(url, err)}\n`);
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
    process.stderr.write(`tsclaw: ${envelopeError(res.status, text)}\n`);
    return 1;
  }
  const pretty = args.flags.has("pretty") || process.stdout.isTTY;
  process.stdout.write(`${JSON.stringify(body.result, null, pretty ? 2 : undefined)}\n`);
  return 0;
}
