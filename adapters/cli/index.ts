#!/usr/bin/env node
/** The tsclaw command line: serve, stdio, mcp, do, tail, doc, version. */
import type { Command } from "../../src/config/settings.js";
import { closest } from "../../src/core/suggest.js";
import { VERSION } from "../../src/core/version.js";
import { DO_HELP, DO_POSITIONALS, doCommand } from "./do.js";
import { DOC_HELP, docCommand } from "./doc.js";
import { type CommandLine, type PositionalSpec, parseCommandLine, UsageError } from "./flags.js";
import { MCP_HELP, mcpCommand } from "./mcp.js";
import { SERVE_HELP, serve } from "./serve.js";
import { STDIO_HELP, stdioCommand } from "./stdio.js";
import { TAIL_HELP, TAIL_POSITIONALS, tailCommand } from "./tail.js";

const HELP = `tsclaw ${VERSION}: LLM agents whose only tool is bash, with durable tasks, sessions and an event bus in one SQLite file.

Usage: tsclaw <command> [flags]

Commands:
  serve                      run the server: POST /do, GET /doc, SSE, WebSocket
  stdio                      speak the protocol as JSON lines on stdin/stdout
  mcp [--url U]              speak MCP on stdin/stdout (own database, or relay to a server)
  do <op> [json] [--url U]   call one operation on a running server
  tail [bus] [--after N]     print a bus's events as JSON lines (follows; --url)
  doc                        print the Markdown guide
  version                    print the version (also -v, --version)

Run tsclaw <command> --help for its flags.
`;

interface CommandEntry {
  help: string;
  positionals?: readonly PositionalSpec[];
  run: (cl: CommandLine) => Promise<number>;
}

const COMMANDS: Partial<Record<Command, CommandEntry>> = {
  serve: { help: SERVE_HELP, run: serve },
  stdio: { help: STDIO_HELP, run: stdioCommand },
  mcp: { help: MCP_HELP, run: mcpCommand },
  do: { help: DO_HELP, positionals: DO_POSITIONALS, run: doCommand },
  tail: { help: TAIL_HELP, positionals: TAIL_POSITIONALS, run: tailCommand },
  doc: { help: DOC_HELP, run: docCommand },
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    process.stderr.write(HELP);
    return 2;
  }
  if (name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(HELP);
    return 0;
  }
  if (name === "--version" || name === "-v" || name === "version") {
    if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}" (version takes no arguments)`);
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name as Command] : undefined;
  if (!command) {
    const meant = closest(name.replace(/^-+/, ""), [...Object.keys(COMMANDS), "version", "help"], 1);
    const what = name.startsWith("-") ? "flag" : "command";
    const hint = meant.length > 0 ? ` (did you mean ${meant[0]}?)` : "";
    throw new UsageError(`unknown ${what} "${name}"${hint}; run tsclaw --help`);
  }
  const cl = parseCommandLine(name as Command, rest, command.positionals);
  if (cl.help) {
    process.stdout.write(command.help);
    return 0;
  }
  return command.run(cl);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: Error) => {
    const usage = err instanceof UsageError;
    const cmd = process.argv[2] ?? "";
    const prefix = usage && Object.hasOwn(COMMANDS, cmd) ? `tsclaw ${cmd}` : "tsclaw";
    process.stderr.write(`${prefix}: ${err.message}\n`);
    process.exit(usage ? 2 : 1);
  },
);
