/**
 * NodeService on a real SQLite database with a clock the test moves: `alive` flips exactly when
 * a node's heartbeat is older than that node's own lease, nodes silent for a day are forgotten
 * when another starts, and a failing heartbeat is logged once, not once per beat.
 */
import { afterEach, describe, expect, it } from "vitest";
import { NodeService } from "../../src/nodes/node-service.js";
import { type OpenedDb, openDb } from "../../src/store/db.js";
import { SqliteSql } from "../../src/store/sqlite-sql.js";

let opened: OpenedDb | undefined;
afterEach(() => opened?.close());

function setup() {
  opened = openDb(":memory:");
  const sql = new SqliteSql(opened.db);
  let now = 1_700_000_000_000;
  const clock = { now: () => now, advance: (ms: number) => (now += ms) };
  const lines: string[] = [];
  const node = (leaseMs: number, url?: string) =>
    new NodeService({ sql, leaseMs, url: () => url, log: (l) => lines.push(l), now: clock.now });
  return { sql, clock, lines, node };
}

describe("NodeService", () => {
  it("a node is alive while its last heartbeat is within its own lease", async () => {
    const { clock, node } = setup();
    const a = node(3000, "http://10.0.0.1:8000");
    await a.start();
    clock.advance(1000);
    const b = node(9000);
    await b.start();
    expect(await a.list()).toEqual([
      { node: a.id, url: "http://10.0.0.1:8000", startedAt: a.startedAt, lastHeartbeat: a.startedAt, alive: true },
      { node: b.id, url: null, startedAt: b.startedAt, lastHeartbeat: b.startedAt, alive: true },
    ]);
    clock.advance(2000); // a's heartbeat is exactly its lease old
    expect((await b.list()).map((n) => n.alive)).toEqual([true, true]);
    clock.advance(1); // a is past its 3 s lease, b within its 9 s
    expect((await b.list()).map((n) => n.alive)).toEqual([false, true]);
    await a.beat();
    expect(await b.list()).toContainEqual(
      expect.objectContaining({ node: a.id, lastHeartbeat: clock.now(), alive: true }),
    );
    await a.close();
    await b.close();
  });

  it("forgets nodes silent for a day when a node starts; close removes only its own row", async () => {
    const { sql, clock, node } = setup();
    const dead = node(1000);
    await dead.start();
    await dead.close(); // a clean close: gone at once
    // A node killed with -9 leaves its row as its last heartbeat wrote it.
    const crashed = { id: "crashed-node" };
    await sql.run("INSERT INTO nodes (node, url, started_at, last_heartbeat, lease_ms) VALUES (?, NULL, ?, ?, 1000)", [
      crashed.id,
      clock.now(),
      clock.now(),
    ]);
    clock.advance(24 * 60 * 60 * 1000 - 1);
    const survivor = node(1000);
    await survivor.start();
    expect((await survivor.list()).map((n) => [n.node, n.alive])).toEqual([
      [crashed.id, false],
      [survivor.id, true],
    ]);
    clock.advance(2);
    const late = node(1000);
    await late.start();
    expect((await late.list()).map((n) => n.node)).toEqual([survivor.id, late.id]);
    await late.close();
    expect(await sql.all("SELECT node FROM nodes")).toEqual([{ node: survivor.id }]);
  });

  it("a failing heartbeat is logged once, and its recovery once", async () => {
    const { sql, lines, node } = setup();
    const a = node(1000);
    await a.start();
    await sql.run("ALTER TABLE nodes RENAME TO nodes_away");
    await a.beat();
    await a.beat();
    await sql.run("ALTER TABLE nodes_away RENAME TO nodes");
    await a.beat();
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^tsclaw: node ${a.id}: heartbeat failed: no such table: nodes`)),
      `tsclaw: node ${a.id}: heartbeat written again`,
    ]);
    await a.close();
  });

  it("runs heartbeat hooks after each heartbeat it writes, not before start", async () => {
    const { sql, node, lines } = setup();
    const a = node(1000);
    const seen: number[] = [];
    a.onHeartbeat(async () => {
      const row = await sql.get<{ last_heartbeat: number }>("SELECT last_heartbeat FROM nodes WHERE node = ?", [a.id]);
      seen.push(row!.last_heartbeat);
    });
    await a.beat(); // not started: nothing written, no hook
    expect(seen).toEqual([]);
    await a.start();
    await a.beat();
    await a.beat();
    expect(seen).toEqual([a.startedAt, a.startedAt]);
    a.onHeartbeat(async () => {
      throw new Error("lease table gone");
    });
    await a.beat();
    await a.beat();
    expect(lines).toEqual([`tsclaw: node ${a.id}: heartbeat failed: lease table gone`]);
    await a.close();
  });
});
