/** `tsclaw doc`: prints the Markdown guide (the same text as GET /doc), no server or database needed. */

import { resolveConfig } from "../../src/config/claw-config.js";
import { DEFAULTS } from "../../src/config/defaults.js";
import { renderGuide } from "../../src/doc/markdown.js";
import { OPS } from "../../src/ops/index.js";
import type { CommandLine } from "./flags.js";
import { flagsHelp } from "./help.js";

/** Help of `tsclaw doc`. */
export const DOC_HELP = `Usage: tsclaw doc [flags]

Prints the user's guide as Markdown: the envelope, error codes, every operation with its
arguments, result, errors and a curl example, and the bus, bash, session and task contracts,
for the configuration its CLAW_* variables describe. --op or --section prints one part.

Flags:
${flagsHelp("doc")}`;

/** Prints the guide. */
export async function docCommand(cl: CommandLine): Promise<number> {
  const config = resolveConfig({ url: cl.get<string>("url") ?? DEFAULTS.url });
  process.stdout.write(renderGuide(OPS, config, { op: cl.get<string>("op"), section: cl.get<string>("section") }));
  return 0;
}
