/** `tsclaw stdio`: the protocol as JSON lines on stdin/stdout; logs on stderr; exit 0 at EOF. */
import { isProviderKeyVar } from "../../src/bash/env.js";
import { runStdio } from "../stdio.js";
import type { CommandLine } from "./flags.js";
import { flagsHelp } from "./help.js";
import { scrubOwnSecrets } from "./scrub-secrets.js";
import { startClaw } from "./start-claw.js";

/** Help of `tsclaw stdio`. */
export const STDIO_HELP = `Usage: tsclaw stdio [flags]

Reads one request envelope per line on stdin, {"op": "...", "args": {...}, "id": ...}, and writes
one response line per request on stdout, plus {"event": "bus", ...} lines for subscriptions.
Requests run concurrently: a long call (bash, prompt, check_task) does not hold up the lines
after it, so answers can come out of order; match them by id. Each request still sees the
effects of every request before it. Lines are split on LF only. stdout carries the protocol
only; diagnostics go to stderr. At end of input the calls in flight finish, then it exits 0.

Example:
  printf '%s\\n' '{"op":"out","args":{"payload":"hi"},"id":1}' | tsclaw stdio --db :memory:

Flags (each also from its environment variable):
${flagsHelp("stdio")}`;

/** Runs the stdio adapter until EOF (or SIGINT/SIGTERM); resolves with the exit code. */
export async function stdioCommand(cl: CommandLine): Promise<number> {
  // A copy: the environment block is blanked next, and getenv reads from it.
  const claw = await startClaw({ ...cl.clawOptions(), env: { ...process.env } });
  scrubOwnSecrets(isProviderKeyVar, []); // keys out of /proc/<pid>/environ, where bash could read them
  let onSignal: () => void = () => {};
  const signalled = new Promise<void>((resolve) => (onSignal = resolve));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    await Promise.race([runStdio(claw, { input: process.stdin, output: process.stdout }), signalled]);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await claw.close();
  }
  return 0;
}
