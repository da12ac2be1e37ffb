/** `tsclaw doc`: prints the Markdown guide (the same text as GET /doc), no server or database needed. */
import { renderGuide } from "../../src/doc/markdown.js";
import { OPS } from "../../src/ops/index.js";
import { flagOrEnv, type ParsedArgs } from "./args.js";
import { DEFAULT_URL } from "./remote.js";

export const DOC_HELP = `Usage: tsclaw doc [--url URL]

Prints the user's guide as Markdown: the envelope, error codes, every operation with its
arguments, result, errors and a curl example, and the bus, bash, session and task contracts.
--url (or CLAW_URL) is the server address used in the examples (default ${DEFAULT_URL}).
`;

/** Prints the guide. */
export async function docCommand(args: ParsedArgs): Promise<number> {
  const url = (flagOrEnv(args, "url") ?? DEFAULT_URL).replace(/\/+$/, "");
  process.stdout.write(renderGuide(OPS, url));
  return 0;
}
