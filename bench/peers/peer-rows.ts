/**
 * Optional peers: start one if it is installed, and rows that say "peer not installed" (never
 * a number) when it is not.
 */
import { type Row, type Target, unavailable } from "../table.js";
import { PeerMissing } from "./peer-process.js";

/** A started peer, or the name of the missing one. */
export type Optional<P> = { peer: P; missing?: undefined } | { peer?: undefined; missing: string };

/** Starts a peer; a PeerMissing becomes `{missing}` (and a line on stderr), other errors throw. */
export async function startOptional<P>(start: () => Promise<P>): Promise<Optional<P>> {
  try {
    return { peer: await start() };
  } catch (err) {
    if (!(err instanceof PeerMissing)) throw err;
    process.stderr.write(`bench: ${err.peer}: peer not installed; its rows are skipped\n`);
    return { missing: err.peer };
  }
}

/** Stops the started ones. */
export async function stopAll(peers: readonly Optional<{ stop(): Promise<void> }>[]): Promise<void> {
  for (const p of peers) await p.peer?.stop();
}

/** The row for a peer that is not installed: tsclaw's figure when it was measured, no baseline. */
export function notInstalled(
  scenario: string,
  unit: string,
  target: Target | null,
  peer: string,
  tsclaw: number | null = null,
): Row {
  return { ...unavailable(scenario, unit, target, `peer not installed: ${peer}`), tsclaw };
}
