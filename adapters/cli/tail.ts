/** `tsclaw tail [bus]`: follows a bus over Server-Sent Events and prints one JSON line per event. */
import { busNameSchema, DEFAULT_BUS } from "../../src/bus/bus-name.js";
import { readJsonLines } from "../jsonl.js";
import type { CommandLine, PositionalSpec } from "./flags.js";
import { flagsHelp } from "./help.js";
import { envelopeError, fetchFailure, remoteOf } from "./remote.js";

/** Arguments of `tsclaw tail`. */
export const TAIL_POSITIONALS: readonly PositionalSpec[] = [{ name: "bus" }];

/** Help of `tsclaw tail`. */
export const TAIL_HELP = `Usage: tsclaw tail [bus] [flags]

Prints the events of a bus (default "thebus") as JSON lines {"bus","seq","ts","payload"} and
keeps following it. A dropped connection is resumed from the last seq printed, so no event is
lost or repeated. Without --after only new events are printed.

Flags:
${flagsHelp("tail")}`;

/** Runs `tail`; resolves with the exit code (0 on SIGINT or after --count events). */
export async function tailCommand(cl: CommandLine): Promise<number> {
  const bus = cl.positionals[0] ?? DEFAULT_BUS;
  if (!busNameSchema.safeParse(bus).success) {
    process.stderr.write(`tsclaw tail: "${bus}" is not a bus name (1-200 characters of A-Z a-z 0-9 . _ : -)\n`);
    return 2;
  }
  let after = cl.get<number>("after");
  const count = cl.get<number>("count");
  const { url, headers, authNote } = remoteOf(cl);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  process.stdout.on("error", onSignal); // the reader went away (e.g. | head)
  let printed = 0;
  let connected = false;
  let delay = 250;
  try {
    while (!stop.signal.aborted) {
      const query = after === undefined ? "" : `?after=${after}`;
      let res: Response;
      try {
        res = await fetch(`${url}/bus/${encodeURIComponent(bus)}/events${query}`, { headers, signal: stop.signal });
      } catch (err) {
        if (stop.signal.aborted) break;
        if (!connected) {
          process.stderr.write(`tsclaw: ${fetchFailure(url, err)}\n`);
          return 1;
        }
        delay = Math.min(delay * 2, 5000);
        await new Promise((r) => setTimeout(r, delay));
        continue;
      }
      if (res.status !== 200) {
        process.stderr.write(`tsclaw: ${envelopeError(res.status, await res.text(), authNote)}\n`);
        return 1;
      }
      connected = true;
      delay = 250;
      try {
        for await (const item of readJsonLines(res.body!)) {
          if (!("line" in item)) continue;
          // The server's opening comment names the starting seq: a reconnect resumes from there.
          const opening = after === undefined ? /^: tsclaw bus .*, after (\d+)$/.exec(item.line) : null;
          if (opening) after = Number(opening[1]);
          if (!item.line.startsWith("data: ")) continue;
          const data = item.line.slice(6);
          process.stdout.write(`${data}\n`);
          after = (JSON.parse(data) as { seq: number }).seq;
          if (count !== undefined && ++printed >= count) return 0;
        }
      } catch {
        // the stream broke: reconnect below, from the last seq printed
      }
      if (!stop.signal.aborted)
        process.stderr.write(`tsclaw tail: connection lost; resuming after seq ${after ?? "(new events)"}\n`);
    }
    return 0;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    stop.abort();
  }
}
