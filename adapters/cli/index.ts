#!/usr/bin/env node
/** The tsclaw command line: serve, stdio, mcp, do, tail, doc, version. */
import type { Command } from "../../src/config/settings.js";
import { closest } from "../../src/core/suggest.js";
import { VERSION } from "../../src/core/version.js";
import { type CommandLine, type PositionalSpec, parseCommandLine, UsageError } from "./flags.js";
import { explainNativeModuleError } from "./native-module.js";

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

/**
 * Each command is loaded when it runs: a client command (`do`, `tail`, `mcp --url`) then never
 * loads the database driver, whose native module may have been built for another Node than the
 * one an MCP client starts.
 */
const COMMANDS: Partial<Record<Command, () => Promise<CommandEntry>>> = {
  serve: async () => {
    const m = await import("./serve.js");
    return { help: m.SERVE_HELP, run: m.serve };
  },
  stdio: async () => {
    const m = await import("./stdio.js");
    return { help: m.STDIO_HELP, run: m.stdioCommand };
  },
  mcp: async () => {
    const m = await import("./mcp.js");
    return { help: m.MCP_HELP, run: m.mcpCommand };
  },
  do: async () => {
    const m = await import("./do.js");
    return { help: m.DO_HELP, positionals: m.DO_POSITIONALS, run: m.doCommand };
  },
  tail: async () => {
    const m = await import("./tail.js");
    return { help: m.TAIL_HELP, positionals: m.TAIL_POSITIONALS, run: m.tailCommand };
  },
  doc: async () => {
    const m = await import("./doc.js");
    return { help: m.DOC_HELP, run: m.docCommand };
  },
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
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name as Command] : undefined;
  if (!load) {
    const meant = closest(name.replace(/^-+/, ""), [...Object.keys(COMMANDS), "version", "help"], 1);
    const what = name.startsWith("-") ? "flag" : "command";
    const hint = meant.length > 0 ? ` (did you mean ${meant[0]}?)` : "";
    throw new UsageError(`unknown ${what} "${name}"${hint}; run tsclaw --help`);
  }
  const command = await load();
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
    process.stderr.write(`${prefix}: ${explainNativeModuleError(err) ?? err.message}\n`);
    process.exit(usage ? 2 : 1);
  },
);
