/**
 * kill -9 of `tsclaw serve` while clients publish through POST /do: every acknowledged event is
 * there after a restart on the same database file, with its payload, and seqs stay contiguous.
 * Five kills in a row on one file, each at a different point of the load.
 */
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { tempDir } from "../helpers/claw.js";
import { readAll, type ServeProcess, startServe } from "./serve-process.js";

const CLIENTS = 4;
const ROUNDS = 5;

let running: ServeProcess | undefined;
afterEach(async () => {
  if (running && running.child.exitCode === null && running.child.signalCode === null) await running.kill9();
  running = undefined;
});

/** Publishes from `CLIENTS` loops until the server dies; returns what was acknowledged. */
function publishUntilDeath(
  server: ServeProcess,
  round: number,
  onAck: () => void,
): { acked: Map<number, unknown>; done: Promise<void> } {
  const acked = new Map<number, unknown>();
  const loops = Array.from({ length: CLIENTS }, async (_, c) => {
    for (let n = 0; ; n++) {
      const payload = { round, c, n, pad: "x".repeat((n % 7) * 50) };
      let res: Response;
      try {
        res = await fetch(`${server.url}/do`, {
          method: "POST",
          headers: { "content-type": "application/json", ...server.auth },
          body: JSON.stringify({ op: "out", args: { bus: "fault", payload } }),
        });
      } catch {
        return; // the server is gone: this request was never acknowledged
      }
      let body: any;
      try {
        body = await res.json();
      } catch {
        return; // cut mid-response: not acknowledged
      }
      expect(body.ok, JSON.stringify(body)).toBe(true);
      acked.set(body.result.seq, payload);
      onAck();
    }
  });
  return { acked, done: Promise.all(loops).then(() => {}) };
}

test("every acknowledged out survives kill -9 of serve, five times on one file; seqs stay contiguous", async () => {
  const db = join(tempDir("tsclaw-fault-"), "claw.db");
  const allAcked = new Map<number, unknown>();
  for (let round = 0; round < ROUNDS; round++) {
    const server = await startServe(db);
    running = server;
    // Kill at a different depth of the load each round.
    const killAfter = 40 + round * 60;
    let acks = 0;
    let killed: Promise<void> | undefined;
    const { acked, done } = publishUntilDeath(server, round, () => {
      if (++acks === killAfter) killed = server.kill9();
    });
    await done;
    await killed;
    expect(acks).toBeGreaterThanOrEqual(killAfter);
    for (const [seq, payload] of acked) allAcked.set(seq, payload);

    const after = await startServe(db);
    running = after;
    const events = await readAll(after, "fault");
    // Contiguous from 1: no gap, no duplicate.
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const bySeq = new Map(events.map((e) => [e.seq, e.payload]));
    for (const [seq, payload] of allAcked) expect(bySeq.get(seq), `acknowledged seq ${seq}`).toEqual(payload);
    const list = await after.op("list_buses");
    expect(list.body.result.buses.find((b: { bus: string }) => b.bus === "fault")).toMatchObject({
      lastSeq: events.length,
      count: events.length,
    });
    expect(await after.stop()).toBe(0);
    running = undefined;
  }
  expect(allAcked.size).toBeGreaterThan(ROUNDS * 40);
}, 120_000);
