/**
 * kill -9 of `tsclaw serve` while clients publish through POST /do: every acknowledged event is
 * there after a restart on the same database, with its payload, and seqs stay contiguous.
 * Several kills in a row on one database, each at a different point of the load: a SQLite file,
 * and a PostgreSQL database (where the killed node's connections die with it, mid-commit).
 */
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { tempDir } from "../helpers/claw.js";
import { createTestDatabase, startPgServer } from "../helpers/pg-server.js";
import { readAll, type ServeProcess, startServe } from "./serve-process.js";

const CLIENTS = 4;

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

/**
 * `rounds` rounds of publish, kill -9, restart and check on database `db`. The server started to
 * check what survived a kill is the next round's target: each kill lands on a server that itself
 * recovered from one, and a round costs one start, not two. The last one stops cleanly.
 */
async function killRounds(db: string, rounds: number, env: NodeJS.ProcessEnv = {}): Promise<void> {
  const allAcked = new Map<number, unknown>();
  let server = await startServe(db, [], env);
  running = server;
  for (let round = 0; round < rounds; round++) {
    // Kill at a different depth of the load each round.
    const killAfter = 40 + round * 60;
    let acks = 0;
    let killed: Promise<void> | undefined;
    const target = server;
    const { acked, done } = publishUntilDeath(target, round, () => {
      if (++acks === killAfter) killed = target.kill9();
    });
    await done;
    await killed;
    expect(acks).toBeGreaterThanOrEqual(killAfter);
    for (const [seq, payload] of acked) allAcked.set(seq, payload);

    const after = await startServe(db, [], env);
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
    server = after;
  }
  expect(await server.stop()).toBe(0);
  running = undefined;
  expect(allAcked.size).toBeGreaterThan(rounds * 40);
}

test("every acknowledged out survives kill -9 of serve, five times on one file; seqs stay contiguous", async () => {
  await killRounds(join(tempDir("tsclaw-fault-"), "claw.db"), 5);
}, 120_000);

test("on PostgreSQL too: every acknowledged out survives kill -9 of the node, three times; seqs stay contiguous", async () => {
  const server = await startPgServer({ durable: true });
  try {
    await killRounds(await createTestDatabase(server.url), 3, { CLAW_TOKEN: "kill-publish-pg-token-0123456789" });
  } finally {
    await server.stop();
  }
}, 180_000);
