/**
 * NodeService with a clock the test moves, on a real SQLite database and on a real PostgreSQL
 * one (the same SQL): `alive` flips exactly when a node's heartbeat is older than that node's
 * own lease, nodes silent for a day are forgotten when another starts, a failing heartbeat is
 * logged once, not once per beat, and heartbeat hooks run after each heartbeat.
 */
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { NodeService } from "../../src/nodes/node-service.js";
import { type OpenedDb, openDb } from "../../src/store/db.js";
import { PreparedNames } from "../../src/store/pg/prepared-names.js";
import { numericTypes, StatementCodec } from "../../src/store/pg/prepared-query.js";
import { PgSql } from "../../src/store/pg-sql.js";
import { nodesPgSchema } from "../../src/store/schema/nodes.js";
import type { Sql } from "../../src/store/sql.js";
import { SqliteSql } from "../../src/store/sqlite-sql.js";
import { createTestDatabase, type PgServer, startPgServer } from "../helpers/pg-server.js";

let server: PgServer | undefined;
beforeAll(async () => {
  server = await startPgServer();
}, 60_000);
afterAll(() => server?.stop());

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** An empty store with the nodes table, SQLite in memory or a fresh PostgreSQL database. */
async function store(kind: "sqlite" | "postgres"): Promise<Sql> {
  if (kind === "sqlite") {
    const opened: OpenedDb = openDb(":memory:");
    cleanups.push(() => opened.close());
    return new SqliteSql(opened.db);
  }
  const pool = new pg.Pool({ connectionString: await createTestDatabase(server!.url), types: numericTypes(pg.types) });
  cleanups.push(() => pool.end());
  await pool.query(nodesPgSchema);
  return new PgSql(pool, pool, new PreparedNames(() => {}, await StatementCodec.load()));
}

describe.each(["sqlite", "postgres"] as const)("NodeService on %s", (kind) => {
  async function setup() {
    const sql = await store(kind);
    let now = 1_700_000_000_000;
    const clock = { now: () => now, advance: (ms: number) => (now += ms) };
    const lines: string[] = [];
    const node = (leaseMs: number, url?: string) =>
      new NodeService({ sql, leaseMs, url: () => url, log: (l) => lines.push(l), now: clock.now });
    return { sql, clock, lines, node };
  }

  it("a node is alive while its last heartbeat is within its own lease", async () => {
    const { clock, node } = await setup();
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
    const { sql, clock, node } = await setup();
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
    const { sql, lines, node } = await setup();
    const a = node(1000);
    await a.start();
    await sql.run("ALTER TABLE nodes RENAME TO nodes_away");
    await a.beat();
    await a.beat();
    await sql.run("ALTER TABLE nodes_away RENAME TO nodes");
    await a.beat();
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^tsclaw: node ${a.id}: heartbeat failed: .*nodes`)),
      `tsclaw: node ${a.id}: heartbeat written again`,
    ]);
    await a.close();
  });

  it("runs heartbeat hooks after each heartbeat it writes, not before start", async () => {
    const { sql, node, lines } = await setup();
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
