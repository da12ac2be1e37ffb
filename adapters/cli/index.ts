#!/usr/bin/env node
/** The tsclaw command line: serve, stdio, do, tail, doc. */
import { VERSION } from "../../src/version.js";
import { parseArgs } from "./args.js";
import { DO_HELP, doCommand } from "./do.js";
import { DOC_HELP, docCommand } from "./doc.js";
import { SERVE_HELP, serve } from "./serve.js";
import { STDIO_HELP, stdioCommand } from "./stdio.js";
import { TAIL_HELP, tailCommand } from "./tail.js";

const HELP = `tsclaw ${VERSION}: LLM agents whose only tool is bash, with durable tasks, sessions and an event bus in one SQLite file.

Usage: tsclaw <command> [flags]

Commands:
  serve                      run the server: POST /do, GET /doc, SSE, WebSocket
  stdio                      speak the protocol as JSON lines on stdin/stdout
  do <op> [json] [--url U]   call one operation on a running server
  tail [bus] [--after N]     print a bus's events as JSON lines (follows; --url)
  doc                        print the Markdown guide

Run tsclaw <command> --help for its flags. --version prints the version.
`;

const COMMANDS: Record<string, { help: string; run: (args: ReturnType<typeof parseArgs>) => Promise<number> }> = {
  serve: { help: SERVE_HELP, run: serve },
  stdio: { help: STDIO_HELP, run: stdioCommand },
  do: { help: DO_HELP, run: doCommand },
  tail: { help: TAIL_HELP, run: tailCommand },
  doc: { help: DOC_HELP, run: docCommand },
};

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv, ["help", "version", "pretty"]);
  if (args.flags.has("version")) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const name = args.positionals.shift();
  if (!name) {
    process.stdout.write(HELP);
    return args.flags.has("help") ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`tsclaw: unknown command "${name}"; run tsclaw --help\n`);
    return 2;
  }
  if (args.flags.has("help")) {
    process.stdout.write(command.help);
    return 0;
  }
  return command.run(args);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: Error) => {
    process.stderr.write(`tsclaw: ${err.message}\n`);
    process.exit(1);
  },
);
