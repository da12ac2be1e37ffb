/** `tsclaw mcp`: MCP over stdio, on a database of its own or relayed to a running server (--url). */

import type { CommandLine } from "./flags.js";
import { flagsHelp } from "./help.js";
import { remoteOf } from "./remote.js";

/** Help of `tsclaw mcp`. */
export const MCP_HELP = `Usage: tsclaw mcp [flags]

Speaks the Model Context Protocol on stdin/stdout, for MCP clients that launch a command
(2026-07-28 and the 2025 revisions; the client's first message picks one):
every operation is a tool, run_task also runs as an MCP task, and the guide and each task are
resources. stdout carries the protocol only; diagnostics go to stderr.

Without --url it opens the database itself (--db and the other claw flags). With --url (or
CLAW_URL) it relays to the /mcp endpoint of a running tsclaw serve instead (no database, no
native module), with --token / CLAW_TOKEN, else --token-file / CLAW_TOKEN_FILE, else the token
file of --db (default ./claw.db, relative to the directory the client starts it in) when the
URL is a loopback one. MCP clients start it in a directory of their own: give absolute paths.

Examples:
  tsclaw mcp --db /abs/path/claw.db
  tsclaw mcp --url http://127.0.0.1:8000 --db /abs/path/claw.db   # relay; token from /abs/path/claw.db.token

Flags (each also from its environment variable):
${flagsHelp("mcp")}`;

/** Runs MCP over stdio until EOF (or SIGINT/SIGTERM); resolves with the exit code. */
export async function mcpCommand(cl: CommandLine): Promise<number> {
  let onSignal: () => void = () => {};
  const signalled = new Promise<void>((resolve) => {
    onSignal = resolve;
  });
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    if (cl.get<string>("url") !== undefined) {
      const { url, headers } = remoteOf(cl);
      const { relayMcpStdio } = await import("../mcp/stdio.js");
      await Promise.race([relayMcpStdio(url, headers), signalled]);
      return 0;
    }
    // Loaded only here: the relay above must not load the database driver.
    const [{ startClaw }, { serveMcpStdio }] = await Promise.all([
      import("./start-claw.js"),
      import("../mcp/stdio.js"),
    ]);
    const claw = await startClaw(cl.clawOptions());
    try {
      await Promise.race([serveMcpStdio(claw), signalled]);
    } finally {
      await claw.close();
    }
    return 0;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
