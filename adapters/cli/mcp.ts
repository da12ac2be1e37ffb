/** `tsclaw mcp`: MCP over stdio, on a database of its own or relayed to a running server (--url). */

import { relayMcpStdio, serveMcpStdio } from "../mcp/stdio.js";
import type { CommandLine } from "./flags.js";
import { flagsHelp } from "./help.js";
import { remoteOf } from "./remote.js";
import { startClaw } from "./start-claw.js";

/** Help of `tsclaw mcp`. */
export const MCP_HELP = `Usage: tsclaw mcp [flags]

Speaks the Model Context Protocol on stdin/stdout, for MCP clients that launch a command
(2026-07-28 and the 2025 revisions; the client's first message picks one):
every operation is a tool, run_task also runs as an MCP task, and the guide and each task are
resources. stdout carries the protocol only; diagnostics go to stderr.

Without --url it opens the database itself (--db and the other claw flags). With --url (or
CLAW_URL) it relays to the /mcp endpoint of a running tsclaw serve instead, with --token /
CLAW_TOKEN, else the token file of --db when the URL is a loopback one.

Examples:
  tsclaw mcp --db ./claw.db
  tsclaw mcp --url http://127.0.0.1:8000 --db ./claw.db     # relay; token from ./claw.db.token

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
      await Promise.race([relayMcpStdio(url, headers), signalled]);
      return 0;
    }
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
